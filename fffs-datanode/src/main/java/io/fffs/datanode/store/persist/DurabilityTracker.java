package io.fffs.datanode.store.persist;

import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import java.util.Arrays;

/**
 * Stamps log entries with the HLC and keeps the durable frontier: the highest HLC such that every entry stamped at
 * or below it is on disk. Stamping and registering happen under one lock, so an entry is pending from the instant
 * its HLC exists and the frontier can never pass it early.
 *
 * <p>Every tick is above the one before, so the pending HLCs, kept in stamp order, ascend: they live in {@code
 * stamps[first, end)}, with a flag per slot for those already on disk. Stamping appends; {@link #durable} finds its
 * HLC by binary search and flags it, and {@code first} moves past the flagged prefix. No object per entry: 9 bytes
 * of heap per pending entry, where a tree of boxed HLCs took ~56 (a backlog may be as large as the arena). The tree
 * had 9 % of the writer's profile samples appending 128 KiB writes at store level, but replacing it did not change
 * the append rate beyond the noise (measured 2026-11-25).
 */
public final class DurabilityTracker {
  private static final int INITIAL_SLOTS = 1024;

  private final HybridLogicalClock clock;
  private final boolean persistent;
  private long[] stamps = new long[INITIAL_SLOTS];
  private boolean[] durable = new boolean[INITIAL_SLOTS];
  /** The oldest pending slot: every entry stamped before it is on disk. */
  private int first;
  /** The next free slot. */
  private int end;
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
      if (end > first && hlc <= stamps[end - 1]) {
        // A binary search over HLCs out of order could pass a pending entry: refuse rather than lie.
        throw new IllegalStateException("the clock ticked to " + HlcTimestamp.valueOf(hlc) + ", not above the last"
            + " stamp " + HlcTimestamp.valueOf(stamps[end - 1]));
      }
      if (end == stamps.length) {
        makeRoom();
      }
      stamps[end] = hlc;
      durable[end] = false;
      end++;
      lastStamped = hlc;
    }
    return hlc;
  }

  /** Moves the pending slots to the front, into arrays twice as large if they fill more than half. */
  private void makeRoom() {
    int pending = end - first;
    long[] toStamps = stamps;
    boolean[] toDurable = durable;
    if (pending > stamps.length / 2) {
      toStamps = new long[stamps.length * 2];
      toDurable = new boolean[toStamps.length];
    }
    System.arraycopy(stamps, first, toStamps, 0, pending);
    System.arraycopy(durable, first, toDurable, 0, pending);
    stamps = toStamps;
    durable = toDurable;
    first = 0;
    end = pending;
  }

  /** Entry {@code hlc} is on disk (an HLC not pending, or told twice, changes nothing). */
  public synchronized void durable(long hlc) {
    int slot = Arrays.binarySearch(stamps, first, end, hlc);
    if (slot < 0) {
      return;
    }
    durable[slot] = true;
    while (first < end && durable[first]) {
      first++;
    }
    if (first == end) {
      first = 0;
      end = 0;
    }
  }

  public synchronized HlcTimestamp frontier() {
    return HlcTimestamp.valueOf(first == end ? lastStamped : stamps[first] - 1);
  }

  /** Entries stamped and not yet durable. */
  synchronized int pendingForTest() {
    int pending = 0;
    for (int slot = first; slot < end; slot++) {
      pending += durable[slot] ? 0 : 1;
    }
    return pending;
  }
}
