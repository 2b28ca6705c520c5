package io.fffs.common.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

class TemporalPathPinTest {
  @Test
  void aPinMarkerOnAnyComponentNamesThePinForTheWholePath() throws Exception {
    TemporalPath path = TemporalPath.parse("/data@pin-nightly.2/part-0");
    assertThat(path.pinName()).isEqualTo("nightly.2");
    assertThat(path.isTemporal()).isTrue();
    assertThat(path.plainPath()).isEqualTo(new Path("/data/part-0"));
    assertThat(path.markerText()).isEqualTo("@pin-nightly.2");
    assertThat(path.child("x")).isEqualTo(new Path("/data@pin-nightly.2/part-0/x"));
  }

  @Test
  void anUnresolvedPinHasNoTimeUntilResolved() throws Exception {
    TemporalPath path = TemporalPath.parse("/data/f@pin-q3");
    assertThatThrownBy(path::timeSpec).isInstanceOf(IllegalStateException.class).hasMessageContaining("q3");
    TemporalPath resolved = path.resolvePin(1_763_719_200_000_000L);
    assertThat(resolved.timeSpec()).isEqualTo(TimeSpec.system(1_763_719_200_000_000L));
    assertThat(resolved.pinName()).isEqualTo("q3");
    assertThat(resolved.originalPath()).isEqualTo(path.originalPath());
  }

  @Test
  void badPinNamesAndTwoMarkersAreMalformed() {
    assertThatThrownBy(() -> TemporalPath.parse("/a@pin-")).satisfies(
        e -> assertThat(((FffsException) e).code()).isEqualTo(ErrorCode.MALFORMED_TIME));
    assertThatThrownBy(() -> TemporalPath.parse("/a@pin-x y")).hasMessageContaining("not a pin name");
    assertThatThrownBy(() -> TemporalPath.parse("/a@pin-x/b@s1000")).hasMessageContaining("two time markers");
    assertThatThrownBy(() -> TemporalPath.checkPinName("-x")).hasMessageContaining("MALFORMED_TIME");
  }

  @Test
  void otherSuffixesStayNames() throws Exception {
    assertThat(TemporalPath.parse("/a/me@pinned").isTemporal()).isFalse();
    assertThat(TemporalPath.pinMarker("nightly")).isEqualTo("@pin-nightly");
  }
}
