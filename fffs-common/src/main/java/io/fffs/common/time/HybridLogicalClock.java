package io.fffs.common.time;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;

/**
 * A hybrid logical clock (Kulkarni et al., "Logical Physical Clocks", 2014): timestamps close to the physical
 * clock that still respect causality. Thread-safe and lock-free: the whole state is one packed
 * {@link HlcTimestamp} in an {@link AtomicLong}, advanced by compare-and-set.
 *
 * <p>Who calls what (docs/design.md §1):
 * <ul>
 *   <li>{@link #tick()} for each local state change (a NameNode edit, a DataNode log entry) and nothing else;
 *       reads never tick.</li>
 *   <li>{@link #receive(HlcTimestamp)} when a server takes in a peer's message that causes a state change.</li>
 *   <li>{@link #now()} to piggyback the clock on a message without creating an event.</li>
 *   <li>{@link #observe(HlcTimestamp)} on clients, which never tick but carry the largest HLC they have seen.</li>
 * </ul>
 * A peer HLC more than the max offset ahead of the local physical clock is refused with
 * {@link ClockSkewException} and leaves the clock unchanged.
 */
public final class HybridLogicalClock {
  private final PhysicalClock physicalClock;
  private final long maxOffsetMicros;
  private final AtomicLong state = new AtomicLong();

  public HybridLogicalClock(PhysicalClock physicalClock, long maxOffsetMicros) {
    if (maxOffsetMicros <= 0) {
      throw new IllegalArgumentException("max offset must be positive: " + maxOffsetMicros + " µs");
    }
    this.physicalClock = physicalClock;
    this.maxOffsetMicros = maxOffsetMicros;
  }

  /** A clock with the max offset of {@code conf} ({@link TimeConfigKeys#MAX_OFFSET_KEY}). */
  public HybridLogicalClock(PhysicalClock physicalClock, Configuration conf) {
    this(physicalClock, TimeConfigKeys.maxOffsetMicros(conf));
  }

  /**
   * Stamps a local state change: {@code l = max(l, pt)}; the logical part counts up while {@code l} is unchanged
   * and restarts at 0 when the physical clock moved past it. Always strictly greater than every value this clock
   * has returned before.
   */
  public HlcTimestamp tick() {
    while (true) {
      long old = state.get();
      long physical = physicalClock.currentTimeMicros();
      long next = physical > HlcTimestamp.physicalOf(old) ? HlcTimestamp.pack(physical, 0) : old + 1;
      if (state.compareAndSet(old, next)) {
        return HlcTimestamp.valueOf(next);
      }
    }
  }

  /**
   * Merges a peer's timestamp as a receive event: {@code l = max(l, lm, pt)}; the logical part is one more than
   * the largest logical among the inputs whose physical part equals the new {@code l}, or 0 if only {@code pt}
   * does. The result is strictly greater than both the previous local value and {@code remote}.
   *
   * @throws ClockSkewException if {@code remote} is more than the max offset ahead of the local physical clock;
   *     the clock is then unchanged
   */
  public HlcTimestamp receive(HlcTimestamp remote) throws ClockSkewException {
    long remotePacked = remote.packed();
    while (true) {
      long old = state.get();
      long physical = checkSkew(remote);
      long larger = Math.max(old, remotePacked);
      long next = physical > HlcTimestamp.physicalOf(larger) ? HlcTimestamp.pack(physical, 0) : larger + 1;
      if (state.compareAndSet(old, next)) {
        return HlcTimestamp.valueOf(next);
      }
    }
  }

  /**
   * Takes the maximum of the local value and {@code seen} without creating an event. Clients use this to carry
   * the largest HLC they have seen from any server. No skew check: a client holds no state a wrong clock could
   * corrupt, and servers check the value when the client sends it on.
   */
  public HlcTimestamp observe(HlcTimestamp seen) {
    long seenPacked = seen.packed();
    while (true) {
      long old = state.get();
      if (old >= seenPacked) {
        return HlcTimestamp.valueOf(old);
      }
      if (state.compareAndSet(old, seenPacked)) {
        return seen;
      }
    }
  }

  /**
   * A server's merge of a peer's timestamp that causes no event of its own (a query, or a request whose state
   * change is stamped by a separate {@link #tick()}): the skew check of {@link #receive}, then {@link #observe}.
   * Any later tick is strictly greater than {@code remote}, which keeps causality.
   */
  public HlcTimestamp merge(HlcTimestamp remote) throws ClockSkewException {
    checkSkew(remote);
    return observe(remote);
  }

  /**
   * A server's merge for a request that changes nothing (a read): like {@link #merge}, but a timestamp too far
   * ahead is ignored instead of refused — a read needs no causal merge, and a reader with a bad clock should
   * still be served without dragging this clock along.
   *
   * @return whether {@code remote} was merged
   */
  public boolean mergeIfWithinOffset(HlcTimestamp remote) {
    if (remote.physicalMicros() - physicalClock.currentTimeMicros() > maxOffsetMicros) {
      return false;
    }
    observe(remote);
    return true;
  }

  /**
   * The clock's current value to piggyback on a message, without creating an event: {@code max(l, (pt, 0))}. The
   * state catches up with the physical clock (so values returned are monotonic), but the logical counter is not
   * advanced; the next {@link #tick()} is still strictly greater.
   */
  public HlcTimestamp now() {
    while (true) {
      long old = state.get();
      long floor = HlcTimestamp.pack(physicalClock.currentTimeMicros(), 0);
      if (old >= floor) {
        return HlcTimestamp.valueOf(old);
      }
      if (state.compareAndSet(old, floor)) {
        return HlcTimestamp.valueOf(floor);
      }
    }
  }

  /**
   * The wait-until-past rule (docs/design.md §1): returns once no event can ever again be stamped here with a physical
   * part at or below {@code micros}, so an answer about {@code micros} is final. That holds as soon as the physical
   * clock or the clock's own value is past {@code micros}. A time at most the max offset ahead is waited for; a
   * time further ahead, or one the physical clock fails to reach in that wait, is {@code TIME_IN_FUTURE}.
   *
   * @param subject what was asked about, for the message (e.g. the path)
   */
  public void awaitPast(long micros, String subject) throws FffsException, InterruptedException {
    long physical = physicalClock.currentTimeMicros();
    if (hasPassed(micros, physical)) {
      return;
    }
    long ahead = micros - physical;
    if (ahead < maxOffsetMicros) {
      long deadlineNanos = System.nanoTime() + (ahead + 1) * 1_000L;
      for (long left = ahead + 1; left > 0; left = (deadlineNanos - System.nanoTime()) / 1_000L) {
        TimeUnit.MICROSECONDS.sleep(left);
      }
      physical = physicalClock.currentTimeMicros();
      if (hasPassed(micros, physical)) {
        return;
      }
      ahead = micros - physical;
    }
    throw new FffsException(ErrorCode.TIME_IN_FUTURE, subject + " at " + TimeText.isoMicros(micros) + " is "
        + TimeText.duration(ahead) + " ahead of the cluster clock (" + TimeText.isoMicros(physical)
        + "); the future cannot be read yet — ask again later or for an earlier time");
  }

  private boolean hasPassed(long micros, long physical) {
    return physical > micros || HlcTimestamp.physicalOf(state.get()) > micros;
  }

  /** The last value this clock produced or took in; unlike {@link #now()} it does not look at the physical clock. */
  public HlcTimestamp last() {
    return HlcTimestamp.valueOf(state.get());
  }

  /**
   * Refuses a timestamp more than the max offset ahead of the local physical clock; returns that physical clock
   * reading otherwise.
   */
  public long checkSkew(HlcTimestamp remote) throws ClockSkewException {
    long physical = physicalClock.currentTimeMicros();
    if (remote.physicalMicros() - physical > maxOffsetMicros) {
      throw new ClockSkewException(remote, physical, maxOffsetMicros);
    }
    return physical;
  }

  public long maxOffsetMicros() {
    return maxOffsetMicros;
  }

  public PhysicalClock physicalClock() {
    return physicalClock;
  }

  @Override
  public String toString() {
    return "HLC " + last() + " on " + physicalClock;
  }
}
