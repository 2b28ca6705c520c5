package io.fffs.common.time;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the time texts of docs/design.md §2 into {@link TimeSpec}s: {@code latest}, and the marker forms with or
 * without the {@code @}. Also decides, for {@link TemporalPath}, whether the text after an {@code @} in a path
 * component is a time, a near miss (an error) or simply part of a name.
 *
 * <p>Parsing is by hand and regex rather than {@code DateTimeFormatter} so that every failure can say which part
 * is wrong, and so that only the documented forms are accepted (no offsets, no lower-case {@code z}).
 */
final class TimeSpecParser {
  /** Every marker form, all the same instant, so that a user sees how they line up. */
  static final String MARKER_FORMS =
      "@s1763719200000, @s1763719200000.250 (millis and microseconds), @u1763719200000 (user time),"
          + " @20251121T100000Z, @20251121T100000.250Z, @s20251121T100000Z, @u20251121T100000Z,"
          + " @2025-11-21T10:00:00.250Z (absolute paths and the Java API only), @pin-<name> (a pinned moment)";

  /** What starts the text after the {@code @} of a pin marker ({@code @pin-nightly}). */
  static final String PIN_PREFIX = "pin-";
  private static final Pattern PIN_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  private static final String LATEST = "latest";
  private static final int MAX_MICROS_DIGITS = 3;
  private static final int MAX_SECOND_FRACTION_DIGITS = 6;

  // Fractions are matched with any length so that a too-long one gets its own message.
  private static final Pattern MILLIS = Pattern.compile("(\\d+)(?:\\.(\\d+))?");
  private static final Pattern ISO_BASIC =
      Pattern.compile("(\\d{4})(\\d{2})(\\d{2})T(\\d{2})(\\d{2})(\\d{2})(?:\\.(\\d+))?Z");
  private static final Pattern ISO_EXTENDED =
      Pattern.compile("(\\d{4})-(\\d{2})-(\\d{2})T(\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d+))?Z");

  private TimeSpecParser() {}

  /**
   * Parses {@code latest} (any case) or a marker with or without its {@code @}.
   *
   * @throws FffsException {@code MALFORMED_TIME} quoting {@code text} and listing the accepted forms
   */
  static TimeSpec parse(String text) throws FffsException {
    Objects.requireNonNull(text, "text");
    if (text.equalsIgnoreCase(LATEST)) {
      return TimeSpec.latest();
    }
    String body = text.startsWith("@") ? text.substring(1) : text;
    return parseMarker(body, "'" + text + "'");
  }

  /**
   * Classifies the text after the last {@code @} of a path component.
   *
   * @param body the text after the {@code @}
   * @param subject how an error names the text, e.g. {@code "in path component 'b@s1x' of /a/b@s1x"}
   * @return the time, or empty when {@code body} is not meant as a time and so is part of a name
   * @throws FffsException {@code MALFORMED_TIME} when {@code body} is clearly meant as a time but does not parse
   */
  static Optional<TimeSpec> parseSuffix(String body, String subject) throws FffsException {
    return looksLikeTime(body) ? Optional.of(parseMarker(body, subject)) : Optional.empty();
  }

  /**
   * Whether the text after an {@code @} is meant as a time: {@code s} or {@code u} alone or followed by a digit,
   * the start of an ISO date, or a bare number. Anything else ({@code example.com}, {@code sales}, {@code v2},
   * the empty text) is part of a name, so that such names keep working with temporal paths on.
   */
  static boolean looksLikeTime(String body) {
    if (body.isEmpty()) {
      return false;
    }
    char first = body.charAt(0);
    if (first == 's' || first == 'u') {
      return body.length() == 1 || isDigit(body.charAt(1));
    }
    return startsLikeIsoDate(body) || MILLIS.matcher(body).matches();
  }

  /** Whether the text after an {@code @} is a pin marker ({@code pin-<name>}), well formed or not. */
  static boolean looksLikePin(String body) {
    return body.startsWith(PIN_PREFIX);
  }

  /**
   * The pin name of the text after an {@code @} that {@link #looksLikePin}.
   *
   * @throws FffsException {@code MALFORMED_TIME} when the name is empty or holds other characters than letters,
   *     digits, '.', '_' and '-' (or starts with one of the last three)
   */
  static String parsePin(String body, String subject) throws FffsException {
    String name = body.substring(PIN_PREFIX.length());
    if (!PIN_NAME.matcher(name).matches()) {
      throw malformed(subject, "'" + name + "' is not a pin name: 1-128 letters, digits, '.', '_' or '-',"
          + " starting with a letter or digit");
    }
    return name;
  }

  /** The error for a time that does not parse; {@link TemporalPath} uses it for its own path errors too. */
  static FffsException malformed(String subject, String reason) {
    return new FffsException(
        ErrorCode.MALFORMED_TIME,
        "malformed time " + subject + ": " + reason + "; accepted forms: " + MARKER_FORMS);
  }

  private static TimeSpec parseMarker(String body, String subject) throws FffsException {
    if (body.isEmpty()) {
      throw malformed(subject, "no time after the '@'");
    }
    char first = body.charAt(0);
    if (first == 's' || first == 'u') {
      long micros = parseTime(first, body.substring(1), subject);
      return first == 's' ? TimeSpec.system(micros) : TimeSpec.user(micros);
    }
    if (startsLikeIsoDate(body)) {
      return TimeSpec.system(parseIso(body, subject));
    }
    if (MILLIS.matcher(body).matches()) {
      throw malformed(
          subject,
          "a bare number is ambiguous; write @s" + body + " for system time or @u" + body + " for user time");
    }
    throw malformed(subject, "'" + body + "' is not a time");
  }

  /** The time after {@code s} or {@code u}: milliseconds with an optional microsecond fraction, or ISO. */
  private static long parseTime(char kind, String time, String subject) throws FffsException {
    if (time.isEmpty()) {
      throw malformed(subject, "no time after '" + kind + "'");
    }
    Matcher millis = MILLIS.matcher(time);
    if (millis.matches()) {
      return parseMillis(millis, subject);
    }
    if (startsLikeIsoDate(time)) {
      return parseIso(time, subject);
    }
    throw malformed(
        subject, "expected <millis>[.<micros>] or an ISO instant after '" + kind + "', found '" + time + "'");
  }

  private static long parseMillis(Matcher millis, String subject) throws FffsException {
    String fraction = millis.group(2) == null ? "" : millis.group(2);
    if (fraction.length() > MAX_MICROS_DIGITS) {
      throw malformed(subject, "the fraction of a millisecond has 1-3 digits (microseconds), found '"
          + fraction + "'");
    }
    try {
      long whole = Long.parseLong(millis.group(1));
      return Math.addExact(Math.multiplyExact(whole, 1000L), scaledFraction(fraction, MAX_MICROS_DIGITS));
    } catch (NumberFormatException | ArithmeticException e) {
      // Long.parseLong only fails here on overflow: the pattern admits digits only.
      throw malformed(subject, "milliseconds '" + millis.group(1) + "' are out of range");
    }
  }

  /** Microseconds since the epoch of a UTC ISO instant in basic or extended form. */
  private static long parseIso(String iso, String subject) throws FffsException {
    if (!iso.endsWith("Z")) {
      throw malformed(subject, "an ISO time is UTC and must end in 'Z', found '" + iso + "'");
    }
    Matcher m = ISO_BASIC.matcher(iso);
    if (!m.matches()) {
      m = ISO_EXTENDED.matcher(iso);
    }
    if (!m.matches()) {
      throw malformed(subject,
          "expected an ISO instant yyyyMMddTHHmmss[.ffffff]Z or yyyy-MM-ddTHH:mm:ss[.ffffff]Z, found '" + iso + "'");
    }
    String fraction = m.group(7) == null ? "" : m.group(7);
    if (fraction.length() > MAX_SECOND_FRACTION_DIGITS) {
      throw malformed(subject, "the fraction of a second has 1-6 digits, found '" + fraction + "'");
    }
    LocalDateTime dateTime;
    try {
      dateTime = LocalDateTime.of(
          number(m, 1), number(m, 2), number(m, 3), number(m, 4), number(m, 5), number(m, 6));
    } catch (DateTimeException e) {
      // java.time names the field and its range, e.g. "Invalid value for MonthOfYear (valid values 1 - 12): 13".
      throw malformed(subject, e.getMessage() + " in '" + iso + "'");
    }
    long seconds = dateTime.toEpochSecond(ZoneOffset.UTC);
    if (seconds < 0) {
      throw malformed(subject, "'" + iso + "' is before the epoch (1970-01-01T00:00:00Z)");
    }
    // At most year 9999, about 2.5e17 microseconds: no overflow possible.
    return seconds * 1_000_000L + scaledFraction(fraction, MAX_SECOND_FRACTION_DIGITS);
  }

  /** "4 digits then '-'" or "8 digits then 'T'": the text can only be an attempt at an ISO date. */
  private static boolean startsLikeIsoDate(String text) {
    return (text.length() > 4 && allDigits(text, 4) && text.charAt(4) == '-')
        || (text.length() > 8 && allDigits(text, 8) && text.charAt(8) == 'T');
  }

  /** A fraction's digits as a count of units of 10^-places, so ".25" with 3 places is 250. */
  private static long scaledFraction(String digits, int places) {
    long value = 0;
    for (int i = 0; i < places; i++) {
      value = value * 10 + (i < digits.length() ? digits.charAt(i) - '0' : 0);
    }
    return value;
  }

  private static int number(Matcher m, int group) {
    return Integer.parseInt(m.group(group));
  }

  private static boolean allDigits(String text, int count) {
    for (int i = 0; i < count; i++) {
      if (!isDigit(text.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  // Character.isDigit would admit non-ASCII digits, which the regexes do not.
  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
