package io.fffs.datanode.nn;

/**
 * This DataNode's clock offset from the NameNode, estimated as NTP's clock filter does: of the last
 * {@value #SAMPLES} NTP-style samples (sent at t0, the NameNode's time t1 in the answer, received at t2: offset
 * = (t0 + t2) / 2 - t1, error at most (t2 - t0) / 2), the one with the smallest round trip. A slow round trip — the
 * first call sets up a connection, a loaded host delays one direction — is where asymmetric delay biases a sample;
 * the fastest one is the closest to the truth and bounds its own error most tightly. A real change of offset (a
 * step of the clock) wins within {@value #SAMPLES} samples, as the older fast samples leave the window.
 */
public final class ClockOffsetFilter {
  /** How many recent samples the minimum is taken over (NTP keeps eight). */
  static final int SAMPLES = 8;

  /** One estimate: DataNode minus NameNode (µs) and the round trip that bounds its error to half of it. */
  public record Estimate(long offsetMicros, long roundTripMicros) {
    /** The most the true offset may differ from {@link #offsetMicros}. */
    public long errorMicros() {
      return roundTripMicros / 2;
    }
  }

  private final long[] offsets = new long[SAMPLES];
  private final long[] roundTrips = new long[SAMPLES];
  private int count;
  private int next;

  /** Adds the sample of one call: sent at {@code t0}, the NameNode's time {@code t1}, received at {@code t2}. */
  public synchronized void add(long t0, long t1, long t2) {
    offsets[next] = Math.floorDiv(t0 + t2, 2) - t1;
    roundTrips[next] = Math.max(0, t2 - t0);
    next = (next + 1) % SAMPLES;
    count = Math.min(SAMPLES, count + 1);
  }

  /** The sample with the smallest round trip among the recent ones, or null before the first. */
  public synchronized Estimate best() {
    if (count == 0) {
      return null;
    }
    int best = 0;
    for (int i = 1; i < count; i++) {
      if (roundTrips[i] < roundTrips[best]) {
        best = i;
      }
    }
    return new Estimate(offsets[best], roundTrips[best]);
  }
}
