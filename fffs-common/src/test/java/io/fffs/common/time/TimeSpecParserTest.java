package io.fffs.common.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TimeSpecParserTest {
  /** 2025-11-21T10:00:00Z, the instant of the examples. */
  private static final long NOV_21_2025_MICROS = 1_763_719_200_000_000L;

  @ParameterizedTest
  @ValueSource(strings = {"latest", "LATEST", "Latest"})
  void latestInAnyCase(String text) throws FffsException {
    assertThat(TimeSpec.parse(text)).isEqualTo(TimeSpec.latest());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "@s1763719200000             | SYSTEM | 1763719200000000",
      "s1763719200000              | SYSTEM | 1763719200000000",
      "@s1763719200000.2           | SYSTEM | 1763719200000200",
      "@s1763719200000.25          | SYSTEM | 1763719200000250",
      "@s1763719200000.250         | SYSTEM | 1763719200000250",
      "@s1763719200000.005         | SYSTEM | 1763719200000005",
      "@s0                         | SYSTEM | 0",
      "@s000123                    | SYSTEM | 123000",
      "@u1763719200000             | USER   | 1763719200000000",
      "u1763719200000.5            | USER   | 1763719200000500",
      "@20251121T100000Z           | SYSTEM | 1763719200000000",
      "20251121T100000.25Z         | SYSTEM | 1763719200250000",
      "@20251121T100000.000001Z    | SYSTEM | 1763719200000001",
      "@2025-11-21T10:00:00Z       | SYSTEM | 1763719200000000",
      "@2025-11-21T10:00:00.250Z   | SYSTEM | 1763719200250000",
      "@s20251121T100000Z          | SYSTEM | 1763719200000000",
      "@u20251121T100000.5Z        | USER   | 1763719200500000",
      "u2025-11-21T10:00:00.123456Z | USER  | 1763719200123456",
      "@19700101T000000Z           | SYSTEM | 0",
      "@20240229T235959Z           | SYSTEM | 1709251199000000",
  })
  void parsesEveryForm(String text, TimeSpec.Kind kind, long micros) throws FffsException {
    TimeSpec spec = TimeSpec.parse(text);
    assertThat(spec.kind()).isEqualTo(kind);
    assertThat(spec.micros()).isEqualTo(micros);
  }

  @Test
  void knownInstants() throws FffsException {
    assertThat(TimeSpec.parse("@20251121T100000Z").micros()).isEqualTo(NOV_21_2025_MICROS);
    // A year later: 365 days, no leap day between.
    assertThat(TimeSpec.parse("@20261121T100000Z").micros())
        .isEqualTo(1_795_255_200_000_000L)
        .isEqualTo(NOV_21_2025_MICROS + 365L * 86_400_000_000L);
  }

  @Test
  void isoAndMillisOfTheSameInstantAreEqual() throws FffsException {
    assertThat(TimeSpec.parse("@20251121T100000.250Z"))
        .isEqualTo(TimeSpec.parse("@s1763719200250"))
        .isEqualTo(TimeSpec.parse("@2025-11-21T10:00:00.25Z"))
        .isEqualTo(TimeSpec.parse("@s2025-11-21T10:00:00.250000Z"));
    assertThat(TimeSpec.parse("@u20251121T100000Z")).isEqualTo(TimeSpec.userMillis(1763719200000L));
  }

  @ParameterizedTest
  @ValueSource(strings = {"@s1763719200000", "@s1763719200000.250", "@u1763719200000.005", "@u1", "@s0"})
  void markerRoundTrip(String marker) throws FffsException {
    TimeSpec spec = TimeSpec.parse(marker);
    assertThat(spec.toMarker()).isEqualTo(marker);
    assertThat(TimeSpec.parse(spec.toMarker())).isEqualTo(spec);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "@                          | no time after the '@'",
      "s                          | no time after 's'",
      "@u                         | no time after 'u'",
      "@s12x4                     | expected <millis>[.<micros>] or an ISO instant after 's'",
      "@s1.2345                   | 1-3 digits",
      "@s1.                       | expected <millis>",
      "@20251321T100000Z          | MonthOfYear",
      "@s20251321T100000Z         | MonthOfYear",
      "@20251132T100000Z          | DayOfMonth",
      "@20250230T100000Z          | Invalid date 'FEBRUARY 30'",
      "@20251121T250000Z          | HourOfDay",
      "@20251121T106000Z          | MinuteOfHour",
      "@2025-11-21T10:00:60Z      | SecondOfMinute",
      "@20251121T100000           | must end in 'Z'",
      "@2025-11-21T10:00:00+01:00 | must end in 'Z'",
      "@20251121t100000Z          | is not a time",
      "@20251121T100000.1234567Z  | 1-6 digits",
      "@2025-11-21T10:00Z         | expected an ISO instant",
      "@19691231T235959Z          | before the epoch",
      "@1763719200000             | write @s1763719200000 for system time or @u1763719200000 for user time",
      "1763719200000.5            | a bare number is ambiguous",
      "@s99999999999999999999999  | out of range",
      "@u9223372036854775807      | out of range",
      "@latest                    | is not a time",
      "yesterday                  | is not a time",
      "' s1'                      | is not a time",
      "@S1                        | is not a time",
      "''                         | no time after the '@'",
  })
  void rejectsMalformedTimes(String text, String reason) {
    assertThatThrownBy(() -> TimeSpec.parse(text))
        .isInstanceOf(FffsException.class)
        .hasFieldOrPropertyWithValue("code", ErrorCode.MALFORMED_TIME)
        .hasMessageContaining("'" + text + "'")
        .hasMessageContaining(reason)
        .hasMessageContaining("accepted forms: @s1763719200000, @s1763719200000.250");
  }

  @Test
  void messageSaysWhatIsWrongAndHowToWriteIt() {
    assertThatThrownBy(() -> TimeSpec.parse("@s20251321T100000Z"))
        .hasMessageStartingWith("MALFORMED_TIME: malformed time '@s20251321T100000Z': ")
        .hasMessageContaining("Invalid value for MonthOfYear (valid values 1 - 12): 13")
        .hasMessageContaining("@u1763719200000")
        .hasMessageContaining("@20251121T100000Z")
        .hasMessageContaining("@2025-11-21T10:00:00.250Z");
  }

  @ParameterizedTest
  @ValueSource(strings = {"s", "u", "s1", "u0x", "s12x4", "2025-", "20251121T", "123", "1.5", "1.5000",
      "2025", "20251121"})
  void looksLikeTime(String body) {
    assertThat(TimeSpecParser.looksLikeTime(body)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "example.com", "sales", "b", "v2", "S1", "U1", "latest", "s-1", "1.2.3", "1a",
      "u_1", "20251121t100000Z", "\u0661"})
  void doesNotLookLikeTime(String body) {
    assertThat(TimeSpecParser.looksLikeTime(body)).isFalse();
  }

  @Test
  void parseSuffixClassifiesNameTimeAndNearMiss() throws FffsException {
    assertThat(TimeSpecParser.parseSuffix("example.com", "in x")).isEmpty();
    assertThat(TimeSpecParser.parseSuffix("u5", "in x")).contains(TimeSpec.userMillis(5));
    assertThatThrownBy(() -> TimeSpecParser.parseSuffix("s5x", "in component 'a@s5x'"))
        .isInstanceOf(FffsException.class)
        .hasMessageStartingWith("MALFORMED_TIME: malformed time in component 'a@s5x': ");
  }
}
