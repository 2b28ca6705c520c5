package io.fffs.common.time;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import org.apache.hadoop.fs.Path;

/**
 * Any path a user types either parses — and then the plain path and time it gave write back to a path that parses
 * to the same two — or is refused with {@code MALFORMED_TIME}, a typed error quoting the text; nothing else escapes.
 * (Strings Hadoop's {@link Path} itself rejects never reach the parser.) Fuzzed by {@code dev-support/fuzz.sh}.
 */
class TemporalPathFuzzTest {
  @FuzzTest(maxDuration = "5m")
  void anyPathParsesAndRoundTripsOrIsMalformedTime(FuzzedDataProvider data) {
    String text = data.consumeRemainingAsString();
    Path path;
    try {
      path = new Path(text);
    } catch (IllegalArgumentException notAHadoopPath) {
      return;
    }
    TemporalPath parsed;
    try {
      parsed = TemporalPath.parse(path);
    } catch (FffsException e) {
      assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_TIME);
      assertThat(e.detail()).isNotBlank();
      return;
    }
    assertThat(parsed.plainPath()).isNotNull();
    if (parsed.pinName() != null) {
      // A pin has no moment until the NameNode's is looked up; the name it carries is a valid one.
      try {
        assertThat(TemporalPath.checkPinName(parsed.pinName())).isEqualTo(parsed.pinName());
      } catch (FffsException e) {
        throw new AssertionError(text + " parsed to pin '" + parsed.pinName() + "', which is not a valid name", e);
      }
      assertThat(parsed.resolvePin(1_763_719_200_000_000L).timeSpec())
          .isEqualTo(TimeSpec.system(1_763_719_200_000_000L));
      return;
    }
    if (parsed.timeSpec().isLatest()) {
      return;
    }
    Path written;
    try {
      written = TemporalPath.withTime(parsed.plainPath(), parsed.timeSpec());
    } catch (IllegalArgumentException plainLooksTimed) {
      return;  // documented: a plain path whose last component already reads as a time has no marked form
    }
    TemporalPath again;
    try {
      again = TemporalPath.parse(written);
    } catch (FffsException e) {
      throw new AssertionError(written + ", written back from " + text + ", does not parse: " + e.getMessage(), e);
    }
    assertThat(again.plainPath()).isEqualTo(parsed.plainPath());
    assertThat(again.timeSpec()).isEqualTo(parsed.timeSpec());
  }
}
