package io.fffs.common.time;

import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/**
 * Configuration of clocks: each key beside its default and its typed getter. (The time-marker switch lives with
 * its parser: {@link TemporalPath#TEMPORAL_PATHS_KEY}.)
 */
public final class TimeConfigKeys {
  /**
   * The largest clock offset tolerated between nodes. A message whose HLC is further ahead than this is refused
   * ({@code CLOCK_SKEW}); it also bounds how long a read at a near-future time waits. Units as Hadoop time
   * durations ({@code 250ms}, {@code 1s}); a bare number is milliseconds.
   */
  public static final String MAX_OFFSET_KEY = "fffs.clock.max-offset";
  public static final long MAX_OFFSET_DEFAULT_MILLIS = 250;

  private TimeConfigKeys() {}

  /** {@link #MAX_OFFSET_KEY} in microseconds. */
  public static long maxOffsetMicros(Configuration conf) {
    long micros = conf.getTimeDuration(MAX_OFFSET_KEY, MAX_OFFSET_DEFAULT_MILLIS, TimeUnit.MILLISECONDS,
        TimeUnit.MICROSECONDS);
    if (micros <= 0) {
      throw new IllegalArgumentException(MAX_OFFSET_KEY + " must be positive, got " + conf.get(MAX_OFFSET_KEY));
    }
    return micros;
  }
}
