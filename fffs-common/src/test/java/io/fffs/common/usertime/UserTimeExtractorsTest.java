package io.fffs.common.usertime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UserTimeExtractorsTest {
  @Test
  void findsAnExtractorByItsName() throws Exception {
    UserTimeExtractor extractor = UserTimeExtractors.load(FixedRecordUserTimeExtractor.NAME);

    assertThat(extractor).isInstanceOf(FixedRecordUserTimeExtractor.class);
    assertThat(UserTimeExtractors.load(FixedRecordUserTimeExtractor.NAME)).isSameAs(extractor);
  }

  @Test
  void anUnknownNameIsAnInvalidArgumentThatListsTheKnownOnes() {
    assertThatThrownBy(() -> UserTimeExtractors.load("no-such-plugin"))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("'no-such-plugin'")
        .hasMessageContaining(FixedRecordUserTimeExtractor.NAME);
  }

  @Test
  void parametersForAnExtractorThatTakesNoneAreAnInvalidArgument() {
    assertThatThrownBy(() -> UserTimeExtractors.load(FixedRecordUserTimeExtractor.NAME + ":size=32"))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("takes no parameters")
        .hasMessageContaining(FixedRecordUserTimeExtractor.NAME + ":size=32");
  }

  @Test
  void aStreamCarriesARecordSplitAcrossWritesAndACopyIsIndependent() throws Exception {
    UserTimeExtractor.Stream stream = UserTimeExtractors.load(FixedRecordUserTimeExtractor.NAME).newStream();
    ByteBuffer bytes = ByteBuffer.allocate(48)
        .put(FixedRecordUserTimeExtractor.record(100, (byte) 1))
        .put(FixedRecordUserTimeExtractor.record(200, (byte) 2))
        .put(FixedRecordUserTimeExtractor.record(300, (byte) 3))
        .flip();
    List<Long> times = new ArrayList<>();

    stream.extract(bytes.duplicate().limit(20), times::add);
    assertThat(times).containsExactly(100L);

    UserTimeExtractor.Stream trial = stream.copy();
    List<Long> trialTimes = new ArrayList<>();
    trial.extract(bytes.duplicate().position(20).limit(48), trialTimes::add);
    assertThat(trialTimes).containsExactly(200L, 300L);

    stream.extract(bytes.duplicate().position(20).limit(40), times::add);
    assertThat(times).containsExactly(100L, 200L);
    assertThat(bytes.position()).isZero();
  }
}
