package io.fffs.bench.wave;

import io.fffs.common.time.PhysicalClock;
import java.util.concurrent.locks.LockSupport;

/** Waiting on an injected {@link PhysicalClock}. */
final class Clocks {
  private Clocks() {}

  /** Returns once {@code clock} has reached {@code micros}. */
  static void sleepUntil(PhysicalClock clock, long micros) throws InterruptedException {
    for (long left = micros - clock.currentTimeMicros(); left > 0; left = micros - clock.currentTimeMicros()) {
      LockSupport.parkNanos(left * 1000);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }
}
