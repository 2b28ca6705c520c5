package io.fffs.namenode.fs;

import io.fffs.common.proto.DatanodeProtocolProtos.BlockCopyProto;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;

/**
 * The block copies restores wait for (docs/history.md): queued per DataNode, each handed out once to the DataNode
 * that holds the source ({@code getBlockCopies}), and the failures DataNodes report back. A copy is done when its
 * new block is reported written. Thread-safe.
 */
public final class BlockCopies {
  private final Map<String, Queue<BlockCopyProto>> queued = new HashMap<>();
  private final Map<Long, String> failures = new HashMap<>();

  synchronized void add(String datanodeUuid, BlockCopyProto copy) {
    queued.computeIfAbsent(datanodeUuid, uuid -> new ArrayDeque<>()).add(copy);
  }

  /** The copies queued for {@code datanodeUuid}, now handed out. */
  public synchronized List<BlockCopyProto> take(String datanodeUuid) {
    Queue<BlockCopyProto> copies = queued.remove(datanodeUuid);
    return copies == null ? List.of() : new ArrayList<>(copies);
  }

  /** Records that the copy making {@code dstBlockId} failed, and why ({@code "CODE: sentence"}). */
  public synchronized void failed(long dstBlockId, String message) {
    failures.put(dstBlockId, message);
  }

  /** Why the copy making {@code dstBlockId} failed, or null. */
  synchronized String failure(long dstBlockId) {
    return failures.get(dstBlockId);
  }

  /** Forgets the copies of a restore that ended (done, failed or timed out). */
  synchronized void forget(List<Long> dstBlockIds) {
    for (Queue<BlockCopyProto> copies : queued.values()) {
      copies.removeIf(copy -> dstBlockIds.contains(copy.getDstBlockId()));
    }
    dstBlockIds.forEach(failures::remove);
  }
}
