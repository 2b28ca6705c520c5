package io.fffs.datanode.store.persist;

import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.datanode.store.util.AscendingLongSet;

/**
 * Stamps log entries with the HLC and keeps the durable frontier: the highest HLC such that every entry stamped at
 * or below it is on disk. Stamping and registering happen under one lock, so an entry is pending from the instant
 * its HLC exists and the frontier can never pass it early.
 *
 * <p>Every tick is above the one before, so the pending HLCs ascend and live in an {@link AscendingLongSet} (no
 * object per entry; a backlog may be as large as the arena).
 */
public final class DurabilityTracker {
  private final HybridLogicalClock clock;
  private final boolean persistent;
  private final AscendingLongSet pending = new AscendingLongSet();
  private long lastStamped;

  public DurabilityTracker(HybridLogicalClock clock, boolean persistent) {
    this.clock = clock;
    this.persistent = persistent;
  }

  /** Seeds the tracker (and the clock) with the newest HLC found on disk at recovery. */
  public synchronized void recovered(long maxHlc) {
    if (maxHlc > 0) {
      clock.observe(HlcTimestamp.valueOf(maxHlc));
      lastStamped = Math.max(lastStamped, maxHlc);
    }
  }

  /**
   * Ticks the clock for a new entry and registers it as not yet durable. Returns the packed HLC.
   *
   * @throws IllegalStateException if the clock did not tick above the last stamp still pending
   */
  public synchronized long stamp() {
    long hlc = clock.tick().packed();
    if (persistent) {
      pending.add(hlc);
      lastStamped = hlc;
    }
    return hlc;
  }

  /**
   * Registers an entry applied at another replica's stamp as not yet durable, under a tick of this clock (its key
   * until {@link #durable}): foreign HLCs need not ascend with this node's ticks. The frontier then means that
   * everything applied here by that tick is on disk.
   */
  public synchronized long stampReplica() {
    return stamp();
  }

  /** Entry {@code hlc} is on disk (an HLC not pending, or told twice, changes nothing). */
  public synchronized void durable(long hlc) {
    pending.remove(hlc);
  }

  /** Entries {@code hlcs[0, count)} are on disk: {@link #durable(long)} for each, under one lock. */
  public synchronized void durable(long[] hlcs, int count) {
    for (int i = 0; i < count; i++) {
      pending.remove(hlcs[i]);
    }
  }

  public synchronized HlcTimestamp frontier() {
    return HlcTimestamp.valueOf(pending.isEmpty() ? lastStamped : pending.first() - 1);
  }

  /** Entries stamped and not yet durable. */
  synchronized int pendingForTest() {
    return pending.size();
  }
}
