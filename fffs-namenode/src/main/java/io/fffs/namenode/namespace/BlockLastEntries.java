package io.fffs.namenode.namespace;

import io.fffs.common.proto.CommonProtos.BlockLastEntryProto;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongPredicate;

/**
 * Per block, the newest last log entry its writers reported (at {@code fsync} and {@code complete}): a replica
 * whose DataNode reports an older last entry misses entries and is not listed, even when no replica with the newest
 * has reported yet (after a NameNode restart) — an in-place overwrite leaves the length as it was, so only the entry
 * tells. Raised only through logged ops (the one mutation path) and kept in the image; a garbage-collection pass
 * that leaves no version referring to a block (a file deleted, truncated or rewritten long enough ago) removes its
 * entry when it finishes. Thread-safe: read by the DataNode side without the namesystem's lock.
 */
public final class BlockLastEntries {
  private final Map<Long, Long> lastEntries = new ConcurrentHashMap<>();

  /** The newest last entry reported for {@code blockId} (packed HLC), or 0. */
  public long get(long blockId) {
    Long hlc = lastEntries.get(blockId);
    return hlc == null ? 0 : hlc;
  }

  /** Takes in each entry that is newer than the one kept for its block. */
  public void raise(List<BlockLastEntryProto> entries) {
    for (BlockLastEntryProto entry : entries) {
      lastEntries.merge(entry.getBlockId(), entry.getLastEntryHlc(), Math::max);
    }
  }

  /** Forgets the blocks {@code referenced} says no inode refers to any more (history collected them). */
  public void retainOnly(LongPredicate referenced) {
    lastEntries.keySet().removeIf(blockId -> !referenced.test(blockId));
  }

  /** Forgets the entries of {@code blockIds} (history collected every version referring to them). */
  public void forget(List<Long> blockIds) {
    blockIds.forEach(lastEntries::remove);
  }

  /** The blocks that have an entry now (a snapshot). */
  public java.util.Set<Long> blockIds() {
    return new java.util.HashSet<>(lastEntries.keySet());
  }

  /** How many blocks have an entry. */
  public int size() {
    return lastEntries.size();
  }

  /** Every block's entry, for the image. */
  public List<BlockLastEntryProto> all() {
    List<BlockLastEntryProto> all = new ArrayList<>(lastEntries.size());
    lastEntries.forEach((blockId, hlc) -> all.add(BlockLastEntryProto.newBuilder().setBlockId(blockId)
        .setLastEntryHlc(hlc).build()));
    return all;
  }
}
