package io.fffs.common.time;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when told to: for tests that need exact HLC values (the paper's Figure 4) or a clock
 * that jumps backwards. Thread-safe.
 */
public final class ManualPhysicalClock implements PhysicalClock {
  private final AtomicLong micros;

  public ManualPhysicalClock(long initialMicros) {
    this.micros = new AtomicLong(initialMicros);
  }

  @Override
  public long currentTimeMicros() {
    return micros.get();
  }

  /** Sets the time; it may go backwards. */
  public void set(long newMicros) {
    micros.set(newMicros);
  }

  /** Moves the time by {@code deltaMicros} (negative: backwards) and returns the new time. */
  public long advance(long deltaMicros) {
    return micros.addAndGet(deltaMicros);
  }

  @Override
  public String toString() {
    return "manual clock at " + micros.get() + " µs";
  }
}
