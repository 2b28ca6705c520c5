package io.fffs.plugins;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.usertime.UserTimeExtractors;
import java.time.Instant;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TextUserTimeExtractorTest {
  private static final long T = 1_763_719_200_000_000L;  // 2025-11-21T10:00:00Z in µs

  @Nested
  class EpochMillisAndCommas extends ExtractorContract {
    @Override
    String pluginName() {
      return "text";
    }

    @Override
    byte[] record(long micros, int i) {
      return (micros / 1000 + ",sensor-" + i + ",0.5\n").getBytes(UTF_8);
    }

    @Override
    byte[] badRecord() {
      return "time,sensor,value\n".getBytes(UTF_8);
    }

    @Override
    String badRecordProblem() {
      return "has first field 'time' is not epoch millis";
    }
  }

  @Nested
  class IsoAndSemicolons extends ExtractorContract {
    @Override
    String pluginName() {
      return "text:sep=;";
    }

    @Override
    byte[] record(long micros, int i) {
      return (Instant.ofEpochSecond(0, micros * 1000) + ";" + i + ",5\r\n").getBytes(UTF_8);
    }

    @Override
    byte[] badRecord() {
      return "2026-11-21T10:00:00;no zone\n".getBytes(UTF_8);
    }

    @Override
    String badRecordProblem() {
      return "'2026-11-21T10:00:00' has no zone; add Z or an offset such as +01:00";
    }
  }

  @Test
  void readsEveryTimestampForm() throws Exception {
    String lines = String.join("\n",
        "1763719200000,a",
        "1763719200000.25,a",
        "2025-11-21T10:00:00Z,a",
        "2025-11-21T10:00:00.000250Z,a",
        "2025-11-21 11:00:00+01:00,a",
        "20251121T100000.5Z,a",
        " \"1763719200000\" ,quoted and spaced",
        "1763719200000",
        "") + "\n";

    assertThat(ExtractorContract.extract(UserTimeExtractors.load("text").newStream(), lines.getBytes(UTF_8)))
        .containsExactly(T, T + 250, T, T + 250, T, T + 500_000, T, T);
  }

  @Test
  void emptyLinesAreSkippedAndALastLineWithoutItsNewlineWaits() throws Exception {
    byte[] bytes = "\n\r\n1763719200000,a\n\n1763719200001,b".getBytes(UTF_8);

    assertThat(ExtractorContract.extract(UserTimeExtractors.load("text").newStream(), bytes)).containsExactly(T);
  }

  @Test
  void tabsAreNamedOrEscaped() throws Exception {
    byte[] bytes = "1763719200000\tx,y\n".getBytes(UTF_8);

    assertThat(ExtractorContract.extract(UserTimeExtractors.load("text:sep=tab").newStream(), bytes))
        .containsExactly(T);
    assertThat(ExtractorContract.extract(UserTimeExtractors.load("text:sep=\\t").newStream(), bytes))
        .containsExactly(T);
    assertThat(((TextUserTimeExtractor) UserTimeExtractors.load("text:sep=space")).separator()).isEqualTo(' ');
  }

  @Test
  void aFirstFieldTooLongToBeATimeIsRefusedWithoutWaitingForTheLineEnd() throws Exception {
    byte[] bytes = ("1763719200000;a\n" + "x".repeat(100)).getBytes(UTF_8);

    assertThatThrownBy(() -> ExtractorContract.extract(UserTimeExtractors.load("text:sep=;").newStream(), bytes))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("at byte offset 16 of the block")
        .hasMessageContaining("longer than 64 bytes")
        .hasMessageContaining("is the separator ';' right?");
  }

  @Test
  void anEmptyFirstFieldIsBad() {
    assertThatThrownBy(() -> ExtractorContract.extract(UserTimeExtractors.load("text").newStream(),
        ",a\n".getBytes(UTF_8))).hasMessageContaining("has an empty first field");
  }

  @ParameterizedTest
  @ValueSource(strings = {"text:sep=", "text:sep=ab", "text:sep=\u00a7", "text:separator=,", "text:"})
  void badParametersAreAnInvalidArgument(String name) {
    assertThatThrownBy(() -> UserTimeExtractors.load(name))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("text");
  }
}
