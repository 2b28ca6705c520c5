package io.fffs.bench.wave;

import java.util.SplittableRandom;

/**
 * The one-way delay the network adds between a sensor taking a sample and its collector writing it: a fixed
 * latency plus a uniformly random jitter, drawn from a seeded generator per stream so runs are repeatable. A
 * stream's records stay in order (one TCP connection per stream): a record never overtakes the one before it.
 *
 * @param latencyMicros the least delay
 * @param jitterMicros the delay varies in [latency, latency + jitter]
 * @param seed the experiment's seed
 */
record NetworkDelay(long latencyMicros, long jitterMicros, long seed) {
  NetworkDelay {
    if (latencyMicros < 0 || jitterMicros < 0) {
      throw new IllegalArgumentException("latency and jitter must not be negative");
    }
  }

  /** The delays of one stream's records, in order. */
  SplittableRandom stream(int cell) {
    return new SplittableRandom(seed * 1_000_003L + cell);
  }

  long next(SplittableRandom random) {
    return latencyMicros + (jitterMicros == 0 ? 0 : random.nextLong(jitterMicros + 1));
  }
}
