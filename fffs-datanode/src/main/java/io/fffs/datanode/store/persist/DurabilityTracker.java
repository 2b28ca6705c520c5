package io.fffs.datanode.store.persist;

import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import java.util.TreeSet;

/**
 * Stamps log entries with the HLC and keeps the durable frontier: the highest HLC such that every entry stamped at
 * or below it is on disk. Stamping and registering happen under one lock, so an entry is pending from the instant
 * its HLC exists and the frontier can never pass it early.
 */
public final class DurabilityTracker {
  private final HybridLogicalClock clock;
  private final boolean persistent;
  private final TreeSet<Long> pending = new TreeSet<>();
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

  /** Ticks the clock for a new entry and registers it as not yet durable. Returns the packed HLC. */
  public synchronized long stamp() {
    long hlc = clock.tick().packed();
    if (persistent) {
      pending.add(hlc);
      lastStamped = hlc;
    }
    return hlc;
  }

  /** Entry {@code hlc} is on disk. */
  public synchronized void durable(long hlc) {
    pending.remove(hlc);
  }

  /** The entry with {@code hlc} will never be persisted (it was not published); stop waiting for it. */
  public synchronized void abandon(long hlc) {
    pending.remove(hlc);
  }

  public synchronized HlcTimestamp frontier() {
    return HlcTimestamp.valueOf(pending.isEmpty() ? lastStamped : pending.first() - 1);
  }
}
