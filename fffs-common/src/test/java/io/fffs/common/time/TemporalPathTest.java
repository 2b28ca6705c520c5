package io.fffs.common.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TemporalPathTest {
  private static final long NOV_21_2025_MICROS = 1_763_719_200_000_000L;

  @ParameterizedTest
  @ValueSource(strings = {"/a/me@example.com", "/x@sales", "/a@b", "/report@v2", "/x@", "/@foo", "/a/b@c@d",
      "/x@S123", "/x@latest", "/x@s-1", "/x@1.2.3", "/a@s1@foo/b", "rel/me@example.com", "/a/b/c"})
  void suffixThatIsNoTimeIsPartOfTheName(String text) throws FffsException {
    TemporalPath path = TemporalPath.parse(text);
    assertThat(path.plainPath()).isEqualTo(new Path(text));
    assertThat(path.originalPath()).isEqualTo(new Path(text));
    assertThat(path.timeSpec()).isEqualTo(TimeSpec.latest());
    assertThat(path.isTemporal()).isFalse();
    assertThat(path.markerText()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "/t@s1763719200000              | /t     | @s1763719200000             | SYSTEM | 1763719200000000",
      "/t@s1763719200000.2            | /t     | @s1763719200000.2           | SYSTEM | 1763719200000200",
      "/t@s1763719200000.25           | /t     | @s1763719200000.25          | SYSTEM | 1763719200000250",
      "/t@s1763719200000.250          | /t     | @s1763719200000.250         | SYSTEM | 1763719200000250",
      "/t@s1763719200000.005          | /t     | @s1763719200000.005         | SYSTEM | 1763719200000005",
      "/t@u1763719200000              | /t     | @u1763719200000             | USER   | 1763719200000000",
      "/t@u1763719200000.75           | /t     | @u1763719200000.75          | USER   | 1763719200000750",
      "/t@20251121T100000Z            | /t     | @20251121T100000Z           | SYSTEM | 1763719200000000",
      "/t@20251121T100000.250Z        | /t     | @20251121T100000.250Z       | SYSTEM | 1763719200250000",
      "/t@20251121T100000.000001Z     | /t     | @20251121T100000.000001Z    | SYSTEM | 1763719200000001",
      "/t@2025-11-21T10:00:00Z        | /t     | @2025-11-21T10:00:00Z       | SYSTEM | 1763719200000000",
      "/t@2025-11-21T10:00:00.5Z      | /t     | @2025-11-21T10:00:00.5Z     | SYSTEM | 1763719200500000",
      "/t@s20251121T100000Z           | /t     | @s20251121T100000Z          | SYSTEM | 1763719200000000",
      "/t@u20251121T100000Z           | /t     | @u20251121T100000Z          | USER   | 1763719200000000",
      "/t@u2025-11-21T10:00:00.25Z    | /t     | @u2025-11-21T10:00:00.25Z   | USER   | 1763719200250000",
      "/a/b@s123/c                    | /a/b/c | @s123                       | SYSTEM | 123000",
      "/a@u5/b/c                      | /a/b/c | @u5                         | USER   | 5000",
      "/@s123/a/b                     | /a/b   | @s123                       | SYSTEM | 123000",
      "/@s123                         | /      | @s123                       | SYSTEM | 123000",
      "/a/me@example.com@s1           | /a/me@example.com | @s1              | SYSTEM | 1000",
      "/a@b@u2                        | /a@b   | @u2                         | USER   | 2000",
      "/t@s0                          | /t     | @s0                         | SYSTEM | 0",
      "a/b@s1                         | a/b    | @s1                         | SYSTEM | 1000",
      "a@s1/b                         | a/b    | @s1                         | SYSTEM | 1000",
      "/a/b@s1/                       | /a/b   | @s1                         | SYSTEM | 1000",
  })
  void parsesEveryMarkerForm(String text, String plain, String marker, TimeSpec.Kind kind, long micros)
      throws FffsException {
    TemporalPath path = TemporalPath.parse(text);
    assertThat(path.plainPath()).isEqualTo(new Path(plain));
    assertThat(path.markerText()).isEqualTo(marker);
    assertThat(path.timeSpec().kind()).isEqualTo(kind);
    assertThat(path.timeSpec().micros()).isEqualTo(micros);
    assertThat(path.isTemporal()).isTrue();
    assertThat(path.originalPath()).isEqualTo(new Path(text));
  }

  @Test
  void knownInstant() throws FffsException {
    assertThat(TemporalPath.parse("/t@20251121T100000Z").timeSpec()).isEqualTo(TimeSpec.system(NOV_21_2025_MICROS));
    assertThat(TemporalPath.parse("/t@20261121T100000Z").timeSpec().micros()).isEqualTo(1_795_255_200_000_000L);
  }

  @Test
  void isoAndMillisFormsOfOneInstantReadTheSame() throws FffsException {
    // An ISO fraction is of a second, a millis fraction of a millisecond: .250 s is 250 ms.
    TimeSpec millis = TemporalPath.parse("/t@s1763719200250").timeSpec();
    assertThat(TemporalPath.parse("/t@20251121T100000.25Z").timeSpec()).isEqualTo(millis);
    assertThat(TemporalPath.parse("/t@2025-11-21T10:00:00.250000Z").timeSpec()).isEqualTo(millis);
    assertThat(TemporalPath.parse("/t@s20251121T100000.250Z").timeSpec()).isEqualTo(millis);
    assertThat(TemporalPath.parse("/t@u20251121T100000.250Z").timeSpec())
        .isEqualTo(TemporalPath.parse("/t@u1763719200250").timeSpec());
    assertThat(TemporalPath.parse("/t@s1763719200000.250").timeSpec())
        .isEqualTo(TemporalPath.parse("/t@20251121T100000.00025Z").timeSpec());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "/a/b@s                       | 'b@s'                 | no time after 's'",
      "/a/b@u                       | 'b@u'                 | no time after 'u'",
      "/t@s12x4                     | 't@s12x4'             | expected <millis>[.<micros>]",
      "/t@s1.2345                   | 't@s1.2345'           | 1-3 digits",
      "/t@s20251321T100000Z         | 't@s20251321T100000Z' | MonthOfYear",
      "/t@20251321T100000Z          | 't@20251321T100000Z'  | MonthOfYear",
      "/t@20251132T100000Z          | 't@20251132T100000Z'  | DayOfMonth",
      "/t@20251121T250000Z          | 't@20251121T250000Z'  | HourOfDay",
      "/t@20251121T100000           | 't@20251121T100000'   | must end in 'Z'",
      "/t@2025-11-21T10:00:00       | 't@2025-11-21T10:00:00' | must end in 'Z'",
      "/t@20251121T100000.1234567Z  | 't@20251121T100000.1234567Z' | 1-6 digits",
      "/t@1763719200000             | 't@1763719200000'     | write @s1763719200000 for system time",
      "/t@12.5                      | 't@12.5'              | a bare number is ambiguous",
      "/t@s99999999999999999999     | 't@s99999999999999999999' | out of range",
      "/a@s1/b@s2                   | '@s1' and '@s2'       | two time markers",
      "/a@s1/b/c@u2                 | '@s1' and '@u2'       | two time markers",
      "/a/b@s1@s2                   | '@s1' and '@s2'       | two time markers",
      "/a@s1x@s2                    | '@s1x' and '@s2'      | two time markers",
      "/@s1/a@s2                    | '@s1' and '@s2'       | two time markers",
      "/a/@s1/b                     | '@s1' has no name     | must come first in an absolute path",
      "/a/@s1                       | '@s1' has no name     | must come first in an absolute path",
      "@s1/a                        | '@s1' has no name     | must come first in an absolute path",
      "/a@s1/b@s2x                  | 'b@s2x'               | expected <millis>",
  })
  void rejectsNearMisses(String text, String quoted, String reason) {
    assertThatThrownBy(() -> TemporalPath.parse(text))
        .isInstanceOf(FffsException.class)
        .hasFieldOrPropertyWithValue("code", ErrorCode.MALFORMED_TIME)
        .hasMessageContaining(quoted)
        .hasMessageContaining(reason)
        .hasMessageContaining(new Path(text).toString())
        .hasMessageContaining("accepted forms: @s1763719200000");
  }

  @Test
  void nearMissMessageQuotesComponentAndPath() {
    assertThatThrownBy(() -> TemporalPath.parse("/data/t@s12x4/part-0"))
        .hasMessage("MALFORMED_TIME: malformed time in path component 't@s12x4' of /data/t@s12x4/part-0: "
            + "expected <millis>[.<micros>] or an ISO instant after 's', found '12x4'; accepted forms: "
            + TimeSpecParser.MARKER_FORMS);
  }

  @Test
  void disabledSwitchLeavesEveryPathPlain() throws FffsException {
    for (String text : new String[] {"/a@s1", "/a@s12x4", "/a@s1/b@s2", "/a/@s1/b", "/t@1763719200000"}) {
      TemporalPath path = TemporalPath.parse(new Path(text), false);
      assertThat(path.plainPath()).isEqualTo(new Path(text));
      assertThat(path.timeSpec()).isEqualTo(TimeSpec.latest());
      assertThat(path.markerText()).isEmpty();
    }
  }

  @Test
  void switchIsReadFromConfigurationAndOnByDefault() throws FffsException {
    Configuration conf = new Configuration(false);
    assertThat(TemporalPath.temporalPathsEnabled(conf)).isTrue();
    assertThat(TemporalPath.parse(new Path("/a@s1"), conf).isTemporal()).isTrue();
    conf.setBoolean(TemporalPath.TEMPORAL_PATHS_KEY, false);
    assertThat(TemporalPath.parse(new Path("/a@s1"), conf).plainPath()).isEqualTo(new Path("/a@s1"));
    assertThat(TemporalPath.TEMPORAL_PATHS_KEY).isEqualTo("fs.fffs.temporal-paths");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/t@s1763719200000.250", "/a@s1/b", "/@s1/a", "/t@2025-11-21T10:00:00Z",
      "fffs://nn:8020/t@u5/x", "/a/me@example.com"})
  void survivesRoundTripThroughUri(String text) throws FffsException {
    Path original = new Path(text);
    URI uri = original.toUri();
    Path back = new Path(URI.create(uri.toString()));
    assertThat(back).isEqualTo(original);
    assertThat(TemporalPath.parse(back)).isEqualTo(TemporalPath.parse(original));
    assertThat(TemporalPath.parse(new Path(back.toString()))).isEqualTo(TemporalPath.parse(text));
  }

  @Test
  void fullyQualifiedPathKeepsSchemeAndAuthority() throws FffsException {
    TemporalPath path = TemporalPath.parse("fffs://nn:8020/a/b@s123");
    assertThat(path.plainPath()).isEqualTo(new Path("fffs://nn:8020/a/b"));
    assertThat(path.plainPath().toUri().getScheme()).isEqualTo("fffs");
    assertThat(path.plainPath().toUri().getAuthority()).isEqualTo("nn:8020");
    assertThat(path.timeSpec()).isEqualTo(TimeSpec.system(123_000));
    assertThat(TemporalPath.parse("fffs://nn:8020/@s1").plainPath()).isEqualTo(new Path("fffs://nn:8020/"));
    assertThat(TemporalPath.parse("fffs://nn:8020/t@2025-11-21T10:00:00Z").timeSpec())
        .isEqualTo(TimeSpec.system(NOV_21_2025_MICROS));
  }

  @Test
  void atSignInAuthorityIsNotAMarker() throws FffsException {
    TemporalPath path = TemporalPath.parse("fffs://s1@nn:8020/a");
    assertThat(path.isTemporal()).isFalse();
    assertThat(path.plainPath().toUri().getAuthority()).isEqualTo("s1@nn:8020");
    assertThat(TemporalPath.parse("fffs://s1@nn:8020/a@s2").plainPath()).isEqualTo(new Path("fffs://s1@nn:8020/a"));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "/t@s1763719200000               | /t@s1763719200000/part-0",
      "/t@s1763719200000.25            | /t@s1763719200000.25/part-0",
      "/a@s1/b                         | /a@s1/b/part-0",
      "/@s1                            | /@s1/part-0",
      "/@s1/a                          | /@s1/a/part-0",
      "/t@2025-11-21T10:00:00Z         | /t@2025-11-21T10:00:00Z/part-0",
      "/plain/dir                      | /plain/dir/part-0",
      "/                               | /part-0",
      "fffs://nn:8020/t@u5             | fffs://nn:8020/t@u5/part-0",
  })
  void childKeepsTheMarkerWhereTheUserWroteIt(String parent, String child) throws FffsException {
    TemporalPath dir = TemporalPath.parse(parent);
    assertThat(dir.child("part-0")).isEqualTo(new Path(child));
    TemporalPath reparsed = TemporalPath.parse(dir.child("part-0"));
    assertThat(reparsed.timeSpec()).isEqualTo(dir.timeSpec());
    assertThat(reparsed.plainPath()).isEqualTo(new Path(dir.plainPath(), "part-0"));
  }

  @Test
  void childRejectsMoreThanOneComponent() throws FffsException {
    TemporalPath dir = TemporalPath.parse("/t@s1");
    assertThatThrownBy(() -> dir.child("a/b")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> dir.child("")).isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "/a/b                    | @s1763719200000.250 | /a/b@s1763719200000.250",
      "/                       | @s1                 | /@s1",
      "/a/me@example.com       | @u7                 | /a/me@example.com@u7",
      "rel/x                   | @s2                 | rel/x@s2",
      "fffs://nn:8020/a        | @u1763719200000     | fffs://nn:8020/a@u1763719200000",
      "fffs://nn:8020/         | @s5                 | fffs://nn:8020/@s5",
  })
  void withTimeRoundTrips(String plain, String marker, String expected) throws FffsException {
    TimeSpec spec = TimeSpec.parse(marker);
    Path timed = TemporalPath.withTime(new Path(plain), spec);
    assertThat(timed).isEqualTo(new Path(expected));
    TemporalPath parsed = TemporalPath.parse(timed);
    assertThat(parsed.plainPath()).isEqualTo(new Path(plain));
    assertThat(parsed.timeSpec()).isEqualTo(spec);
    assertThat(parsed.markerText()).isEqualTo(marker);
  }

  /** "." and ".." name no component: a marker on them is refused, saying where it goes instead. */
  @ParameterizedTest
  @ValueSource(strings = {"/a/.@s1763719200000", "a/..@s1763719200000/b", ".@s1763719200000", "@/.@s1"})
  void aMarkerOnDotOrDotDotIsMalformed(String path) {
    assertThatThrownBy(() -> TemporalPath.parse(path)).isInstanceOfSatisfying(FffsException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_TIME);
      assertThat(e.detail()).contains("put it on a named component");
    });
  }

  /** What Hadoop leaves of "a/." ends in "/": the marker still goes on the last named component. */
  @Test
  void withTimeOfAPathEndingInASlashPutsTheMarkerOnItsLastName() throws FffsException {
    TimeSpec at = TimeSpec.system(1_763_719_200_000_000L);
    Path written = TemporalPath.withTime(new Path("/a/b/"), at);
    assertThat(written).isEqualTo(new Path("/a/b@s1763719200000"));
    assertThat(TemporalPath.parse(written).plainPath()).isEqualTo(new Path("/a/b"));
  }

  @Test
  void withTimeOfLatestIsThePlainPathAndRefusesASecondMarker() {
    Path plain = new Path("/a/b");
    assertThat(TemporalPath.withTime(plain, TimeSpec.latest())).isSameAs(plain);
    assertThatThrownBy(() -> TemporalPath.withTime(new Path("/a@s1/b"), TimeSpec.system(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a@s1");
  }

  @Test
  void equalityFollowsHowThePathIsWrittenAndRead() throws FffsException {
    assertThat(TemporalPath.parse("/a/b@s1")).isEqualTo(TemporalPath.parse(new Path("/a/b@s1")))
        .hasSameHashCodeAs(TemporalPath.parse("/a/b@s1"));
    assertThat(TemporalPath.parse("/a/b@s1")).isNotEqualTo(TemporalPath.parse("/a@s1/b"));
    assertThat(TemporalPath.parse(new Path("/a@s1"), true)).isNotEqualTo(TemporalPath.parse(new Path("/a@s1"), false));
    assertThat(TemporalPath.parse("/a/b@s1")).hasToString("/a/b@s1 (/a/b at @s1)");
    assertThat(TemporalPath.parse("/a/b")).hasToString("/a/b");
  }
}
