package io.fffs.plugins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.usertime.UserTimeExtractors;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WaveUserTimeExtractorTest {
  @Nested
  class Contract extends ExtractorContract {
    @Override
    String pluginName() {
      return "wave";
    }

    @Override
    byte[] record(long micros, int i) {
      return WaveRecord.encode(i, micros, 0.25f * i);
    }

    @Override
    byte[] badRecord() {
      byte[] bytes = WaveRecord.encode(3, 1_000, 1f);
      bytes[0] = 'X';
      return bytes;
    }

    @Override
    String badRecordProblem() {
      return "starts with 0x5856, not the magic 0x5756 (\"WV\")";
    }
  }

  @Test
  void theLayoutIsTheDocumentedOne() {
    ByteBuffer bytes = ByteBuffer.wrap(WaveRecord.encode(42, 1_763_719_200_050_000L, -0.5f));

    assertThat(bytes.capacity()).isEqualTo(WaveRecord.BYTES).isEqualTo(20);
    assertThat(new String(bytes.array(), 0, 2, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("WV");
    assertThat(bytes.get(2)).isEqualTo((byte) 1);
    assertThat(bytes.get(3)).isZero();
    assertThat(bytes.getInt(4)).isEqualTo(42);
    assertThat(bytes.getLong(8)).isEqualTo(1_763_719_200_050_000L);
    assertThat(bytes.getFloat(16)).isEqualTo(-0.5f);
  }

  @Test
  void recordsRoundTripWhateverTheBufferOrder() {
    WaveRecord sample = new WaveRecord(99, 123_456_789L, 3.5f);
    ByteBuffer buffer = ByteBuffer.allocate(45).order(ByteOrder.LITTLE_ENDIAN).position(5);
    sample.writeTo(buffer.order(ByteOrder.BIG_ENDIAN));

    assertThat(buffer.position()).isEqualTo(25);
    assertThat(WaveRecord.valueOf(buffer.order(ByteOrder.LITTLE_ENDIAN), 5)).isEqualTo(sample);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "2  | 7  | has version 7, but only version 1 is known",
      "3  | 1  | has 1 in its reserved byte 3, which must be 0",
      "4  | -1 | has negative cell id",
      "8  | -1 | has a negative sample time",
      "16 | -1 | has height -Infinity, which is not a finite number"})
  void badFieldsAreNamed(int offset, byte value, String problem) {
    byte[] bytes = WaveRecord.encode(3, 1_000, 1f);
    bytes[offset] = value;

    assertThatThrownBy(() -> ExtractorContract.extract(UserTimeExtractors.load("wave").newStream(), bytes))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("wave: the record at byte offset 0 of the block (byte 0 of this write) " + problem);
  }

  @Test
  void takesNoParameters() {
    assertThatThrownBy(() -> UserTimeExtractors.load("wave:cells=100"))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("takes no parameters");
  }

  @Test
  void theEncoderRefusesWhatTheExtractorWould() {
    assertThatThrownBy(() -> WaveRecord.encode(-1, 0, 0f)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WaveRecord.encode(0, -1, 0f)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WaveRecord.encode(0, 0, Float.POSITIVE_INFINITY))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
