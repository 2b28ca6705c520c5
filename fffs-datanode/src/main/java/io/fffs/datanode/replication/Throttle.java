package io.fffs.datanode.replication;

import java.util.function.LongSupplier;

/**
 * Paces bytes sent to a rate shared by every stream that holds it: {@link #acquire} returns at once while the
 * streams are under the rate, and otherwise says how long the caller must wait first. At most one second's worth of
 * unused rate is saved up, so an idle spell does not buy a burst. Thread-safe.
 */
final class Throttle {
  private final long bytesPerSecond;
  private final LongSupplier nanoTime;
  private long nextFreeNanos;

  /** @param bytesPerSecond 0: no limit */
  Throttle(long bytesPerSecond, LongSupplier nanoTime) {
    this.bytesPerSecond = bytesPerSecond;
    this.nanoTime = nanoTime;
    this.nextFreeNanos = nanoTime.getAsLong();
  }

  /** Books {@code bytes} and returns the nanoseconds to wait before sending them (0: send now). */
  synchronized long acquire(long bytes) {
    if (bytesPerSecond == 0) {
      return 0;
    }
    long now = nanoTime.getAsLong();
    long start = Math.max(nextFreeNanos, now - 1_000_000_000L);
    nextFreeNanos = start + (long) (bytes * 1e9 / bytesPerSecond);
    return Math.max(0, start - now);
  }

  /** {@link #acquire}, sleeping as long as it says. */
  void pace(long bytes) throws InterruptedException {
    long wait = acquire(bytes);
    if (wait > 0) {
      Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
    }
  }
}
