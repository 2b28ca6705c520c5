package io.fffs.common.time;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/** How times and durations are written in messages a user reads. */
public final class TimeText {
  private static final DateTimeFormatter ISO_MICROS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private TimeText() {}

  /** An instant given in µs since the epoch, as ISO-8601 UTC with six fraction digits. */
  public static String isoMicros(long epochMicros) {
    return ISO_MICROS.format(Instant.EPOCH.plus(epochMicros, ChronoUnit.MICROS));
  }

  /** A duration in µs, in the unit a person would use: {@code 250 ms}, {@code 1.234 s}, {@code 17 µs}. */
  public static String duration(long micros) {
    long abs = Math.abs(micros);
    if (abs < 1_000) {
      return micros + " µs";
    }
    if (abs < 1_000_000) {
      return trim(micros / 1_000.0) + " ms";
    }
    return trim(micros / 1_000_000.0) + " s";
  }

  private static String trim(double value) {
    String text = String.format(java.util.Locale.ROOT, "%.3f", value);
    text = text.replaceAll("0+$", "");
    return text.endsWith(".") ? text.substring(0, text.length() - 1) : text;
  }
}
