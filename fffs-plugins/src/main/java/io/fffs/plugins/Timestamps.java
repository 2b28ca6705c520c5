package io.fffs.plugins;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a textual timestamp as µs since the epoch: epoch milliseconds with an optional fraction of up to three
 * digits ({@code 1763719200000}, {@code 1763719200000.250}), or an ISO-8601 date-time with a zone, extended
 * ({@code 2026-11-21T10:00:00.25Z}, {@code 2026-11-21T11:00:00+01:00}, a space allowed for the {@code T}) or basic
 * ({@code 20261121T100000.25Z}). Times before the epoch are refused.
 */
final class Timestamps {
  private static final Pattern MILLIS = Pattern.compile("(\\d{1,15})(?:\\.(\\d{1,3}))?");
  private static final DateTimeFormatter BASIC = new DateTimeFormatterBuilder()
      .appendPattern("uuuuMMdd'T'HHmmss")
      .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true).optionalEnd()
      .appendOffset("+HHmm", "Z")
      .toFormatter();
  static final String FORMS = "epoch millis (1763719200000[.250]) or an ISO-8601 time with a zone"
      + " (2026-11-21T10:00:00.250Z)";

  private Timestamps() {}

  /**
   * µs since the epoch of {@code text}.
   *
   * @throws IllegalArgumentException saying why {@code text} is not a timestamp
   */
  static long parseMicros(String text) {
    Matcher millis = MILLIS.matcher(text);
    if (millis.matches()) {
      long micros = Long.parseLong(millis.group(1)) * 1000;
      String fraction = millis.group(2);
      if (fraction != null) {
        micros += Long.parseLong((fraction + "00").substring(0, 3));
      }
      return micros;
    }
    String iso = text.length() > 10 && text.charAt(10) == ' ' ? text.substring(0, 10) + 'T' + text.substring(11)
        : text;
    OffsetDateTime time;
    try {
      time = OffsetDateTime.parse(iso, iso.indexOf('-') > 0 ? DateTimeFormatter.ISO_OFFSET_DATE_TIME : BASIC);
    } catch (DateTimeException e) {
      if (isLocal(iso)) {
        throw new IllegalArgumentException("'" + text + "' has no zone; add Z or an offset such as +01:00");
      }
      throw new IllegalArgumentException("'" + text + "' is not " + FORMS);
    }
    Instant instant = time.toInstant();
    if (instant.isBefore(Instant.EPOCH)) {
      throw new IllegalArgumentException("'" + text + "' is before the epoch (1970-01-01T00:00:00Z)");
    }
    try {
      return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("'" + text + "' is too far in the future");
    }
  }

  private static boolean isLocal(String iso) {
    try {
      LocalDateTime.parse(iso).atOffset(ZoneOffset.UTC);
      return true;
    } catch (DateTimeException e) {
      return false;
    }
  }
}
