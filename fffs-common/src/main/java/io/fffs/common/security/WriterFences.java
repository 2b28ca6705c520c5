package io.fffs.common.security;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DatanodeProtocolProtos.WriterFenceProto;
import io.fffs.common.time.PhysicalClock;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A DataNode's writer fences: per block, the lowest writer epoch whose writes it still applies. A file's writer
 * epoch rises when lease recovery or a new writer takes the file over; its WRITE tokens carry it. A fence comes from
 * the NameNode (after lease recovery, before the recovery is stamped) or from a valid WRITE token of a higher epoch
 * than the block's fence. A write under a lower epoch is refused with {@code STALE_WRITER} on arrival and again when
 * it is applied, so a write that arrived just before a fence is not applied after it.
 *
 * <p>A fence lasts until its expiry (the NameNode's clock, like token expiry): by then every token of a lower
 * epoch has expired, so the DataNode's token check refuses such writes anyway. Thread-safe.
 */
public final class WriterFences {
  /** Fences are kept this long past their expiry, for writes that passed the token check just before it. */
  private static final long SLACK_MILLIS = 60_000;

  private record Fence(long epoch, long expiryMillis) {}

  private final PhysicalClock clock;
  private final ConcurrentHashMap<Long, Fence> fences = new ConcurrentHashMap<>();
  private final List<Runnable> barriers = new CopyOnWriteArrayList<>();

  public WriterFences(PhysicalClock clock) {
    this.clock = clock;
  }

  /**
   * Runs {@code barrier} after each {@link #install}: a write path whose writes passed their check before the
   * install returns from it only once those writes are applied (a lock the path holds while it applies a write).
   */
  public void addBarrier(Runnable barrier) {
    barriers.add(barrier);
  }

  /**
   * Installs the NameNode's fences (a heartbeat or registration answer), forgets expired ones, then waits at the
   * barriers: when this returns, no write under a fenced epoch is applied any more.
   */
  public void install(List<WriterFenceProto> received) {
    long now = nowMillis();
    fences.values().removeIf(fence -> fence.expiryMillis() + SLACK_MILLIS < now);
    if (received.isEmpty()) {
      return;
    }
    for (WriterFenceProto fence : received) {
      for (long blockId : fence.getBlockIdsList()) {
        raise(blockId, fence.getEpoch(), fence.getExpiryMillis());
      }
    }
    for (Runnable barrier : barriers) {
      barrier.run();
    }
  }

  /** Refuses writes to {@code blockId} under epochs below {@code epoch} until {@code expiryMillis}. */
  public void raise(long blockId, long epoch, long expiryMillis) {
    Fence present = fences.get(blockId);
    if (epoch == 0 || present != null && present.epoch() == epoch && present.expiryMillis() >= expiryMillis) {
      return;  // the usual case: another packet of the writer that set the fence
    }
    fences.merge(blockId, new Fence(epoch, expiryMillis), (old, raised) ->
        raised.epoch() > old.epoch() ? raised
            : raised.epoch() == old.epoch() && raised.expiryMillis() > old.expiryMillis() ? raised : old);
  }

  /**
   * Throws {@code STALE_WRITER} if a fence of {@code blockId} is above {@code epoch}.
   *
   * @param what the operation, as the refusal names it ("WRITE of block 7")
   */
  public void check(long blockId, long epoch, String what) throws FffsException {
    if (fences.isEmpty()) {
      return;
    }
    Fence fence = fences.get(blockId);
    if (fence != null && epoch < fence.epoch()) {
      throw new FffsException(ErrorCode.STALE_WRITER, what + " refused: it was sent by a writer of epoch " + epoch
          + ", but the file was taken over since (lease recovery or a new writer; epoch " + fence.epoch()
          + "), so this client no longer owns it and nothing of this write was applied; open the file for"
          + " append and write what was lost again");
    }
  }

  /** The fence of {@code blockId}: the lowest epoch whose writes it applies (0: none). */
  public long epoch(long blockId) {
    Fence fence = fences.get(blockId);
    return fence == null ? 0 : fence.epoch();
  }

  /** How many blocks have a fence (metrics, tests). */
  public int size() {
    return fences.size();
  }

  private long nowMillis() {
    return clock.currentTimeMicros() / 1000;
  }
}
