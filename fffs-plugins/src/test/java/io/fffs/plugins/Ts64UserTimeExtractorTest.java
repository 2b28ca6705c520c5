package io.fffs.plugins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.usertime.UserTimeExtractors;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Ts64UserTimeExtractorTest {
  @Nested
  class Fixed extends ExtractorContract {
    @Override
    String pluginName() {
      return "ts64:fixed=24";
    }

    @Override
    byte[] record(long micros, int i) {
      byte[] payload = new byte[16];
      Arrays.fill(payload, (byte) i);
      return ByteBuffer.allocate(24).putLong(micros).put(payload).array();
    }

    @Override
    byte[] badRecord() {
      return ByteBuffer.allocate(24).putLong(-5).array();
    }

    @Override
    String badRecordProblem() {
      return "has a negative user time (-5 µs since the epoch)";
    }

    @Test
    void aRecordOfJustTheTimeWorks() throws Exception {
      byte[] bytes = ByteBuffer.allocate(16).putLong(7_000).putLong(8_000).array();

      assertThat(extract(UserTimeExtractors.load("ts64:fixed=8").newStream(), bytes)).containsExactly(7_000L, 8_000L);
    }
  }

  @Nested
  class Prefixed extends ExtractorContract {
    @Override
    String pluginName() {
      return "ts64:prefixed";
    }

    @Override
    byte[] record(long micros, int i) {
      return prefixed(micros, new byte[i * 3]);
    }

    @Override
    byte[] badRecord() {
      return ByteBuffer.allocate(16).putInt(7).putLong(1_000).array();
    }

    @Override
    String badRecordProblem() {
      return "has length prefix 7, but a length must count the 8-byte time and the payload";
    }

    @Test
    void plainTs64IsLengthPrefixed() throws Exception {
      byte[] bytes = ExtractorContract.concat(prefixed(1_000, new byte[0]), prefixed(2_000, new byte[100]));

      assertThat(extract(UserTimeExtractors.load("ts64").newStream(), bytes)).containsExactly(1_000L, 2_000L);
    }

    @Test
    void aPrefixAbove2To31IsBad() {
      byte[] bytes = ByteBuffer.allocate(12).putInt(0x8000_0000).putLong(1_000).array();

      assertThatThrownBy(() -> extract(newStream(), bytes)).hasMessageContaining("has length prefix 2147483648");
    }
  }

  static byte[] prefixed(long micros, byte[] payload) {
    return ByteBuffer.allocate(12 + payload.length).putInt(8 + payload.length).putLong(micros).put(payload).array();
  }

  @ParameterizedTest
  @ValueSource(strings = {"ts64:fixed=7", "ts64:fixed=", "ts64:fixed=x", "ts64:fixed=99999999999", "ts64:fixd=8",
      "ts64:"})
  void badParametersAreAnInvalidArgument(String name) {
    assertThatThrownBy(() -> UserTimeExtractors.load(name))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("ts64");
  }

  @Test
  void theParametersChooseTheFraming() throws Exception {
    assertThat(((Ts64UserTimeExtractor) UserTimeExtractors.load("ts64:fixed=32")).fixedLength()).isEqualTo(32);
    assertThat(((Ts64UserTimeExtractor) UserTimeExtractors.load("ts64:prefixed")).fixedLength()).isZero();
    assertThat(((Ts64UserTimeExtractor) UserTimeExtractors.load("ts64")).fixedLength()).isZero();
  }
}
