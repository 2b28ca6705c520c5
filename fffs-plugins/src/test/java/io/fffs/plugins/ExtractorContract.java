package io.fffs.plugins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.usertime.UserTimeExtractor;
import io.fffs.common.usertime.UserTimeExtractors;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every plug-in must do, written once and run per plug-in (and per configuration): good records, a record split
 * across two writes at every byte, a bad record named by its byte offset, and the times the store refuses.
 */
abstract class ExtractorContract {
  /** The plug-in name a file would carry, parameters included. */
  abstract String pluginName();

  /** A good record whose user time is {@code micros} (a whole number of ms); {@code i} varies its payload. */
  abstract byte[] record(long micros, int i);

  /** A record the plug-in must refuse. */
  abstract byte[] badRecord();

  /** Part of the message naming what is wrong with {@link #badRecord()}. */
  abstract String badRecordProblem();

  UserTimeExtractor.Stream newStream() throws FffsException {
    return UserTimeExtractors.load(pluginName()).newStream();
  }

  @Test
  void isFoundThroughServiceLoaderByItsName() throws Exception {
    UserTimeExtractor extractor = UserTimeExtractors.load(pluginName());

    assertThat(pluginName()).startsWith(extractor.name());
    assertThat(UserTimeExtractors.load(pluginName())).isSameAs(extractor);
  }

  @Test
  void goodRecordsGiveTheirTimesInOrder() throws Exception {
    byte[] bytes = concat(record(1_000_000, 0), record(2_000_000, 1), record(2_000_000, 2), record(5_000, 3));

    assertThat(extract(newStream(), bytes)).containsExactly(1_000_000L, 2_000_000L, 2_000_000L, 5_000L);
  }

  @Test
  void aRecordSplitAcrossTwoWritesIsReportedByTheWriteThatEndsIt() throws Exception {
    byte[][] records = {record(1_000, 0), record(2_000, 1), record(3_000, 2)};
    List<Long> times = List.of(1_000L, 2_000L, 3_000L);
    byte[] bytes = concat(records);
    for (int split = 0; split <= bytes.length; split++) {
      UserTimeExtractor.Stream stream = newStream();
      List<Long> before = extract(stream, Arrays.copyOfRange(bytes, 0, split));
      List<Long> after = extract(stream, Arrays.copyOfRange(bytes, split, bytes.length));

      int ended = 0;
      int end = 0;
      for (byte[] record : records) {
        end += record.length;
        ended += end <= split ? 1 : 0;
      }
      assertThat(before).as("split at byte %d", split).isEqualTo(times.subList(0, ended));
      assertThat(after).as("split at byte %d", split).isEqualTo(times.subList(ended, times.size()));
    }
  }

  @Test
  void aBadRecordIsAnInvalidArgumentNamingItsByteOffset() throws Exception {
    byte[] good = concat(record(1_000, 0), record(2_000, 1));
    byte[] bytes = concat(good, badRecord(), record(3_000, 2));

    assertThatThrownBy(() -> extract(newStream(), bytes))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining(pluginName())
        .hasMessageContaining("at byte offset " + good.length + " of the block (byte " + good.length
            + " of this write)")
        .hasMessageContaining(badRecordProblem());
  }

  @Test
  void aBadRecordBegunInAnEarlierWriteIsNamedByItsOffsetInTheBlock() throws Exception {
    byte[] good = record(1_000, 0);
    UserTimeExtractor.Stream stream = newStream();
    byte[] bad = badRecord();
    extract(stream, concat(good, Arrays.copyOf(bad, 1)));

    assertThatThrownBy(() -> extract(stream, Arrays.copyOfRange(bad, 1, bad.length)))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("at byte offset " + good.length + " of the block (begun 1 bytes before this write)")
        .hasMessageContaining(badRecordProblem());
  }

  @Test
  void aRegressingWriteIsOneTheStoreRefusesAndItsTrialLeavesTheStreamAsItWas() throws Exception {
    byte[] second = record(2_000_000, 1);
    int half = second.length / 2;
    UserTimeExtractor.Stream stream = newStream();
    List<Long> committed = extract(stream, concat(record(1_000_000, 0), Arrays.copyOf(second, half)));

    UserTimeExtractor.Stream trial = stream.copy();
    List<Long> regressing = extract(trial, concat(Arrays.copyOfRange(second, half, second.length),
        record(1_500_000, 2)));
    assertThat(regressing).containsExactly(2_000_000L, 1_500_000L);
    assertThat(storeWouldRefuse(committed, regressing)).isTrue();

    List<Long> fixed = extract(stream.copy(), concat(Arrays.copyOfRange(second, half, second.length),
        record(2_000_000, 3), record(2_500_000, 4)));
    assertThat(fixed).containsExactly(2_000_000L, 2_000_000L, 2_500_000L);
    assertThat(storeWouldRefuse(committed, fixed)).isFalse();
    assertThat(storeWouldRefuse(List.of(3_000_000L), fixed)).isTrue();
  }

  /**
   * The store's rule (BlockWriter.checkUserTimes): a write is refused if a record's time is earlier than the latest
   * time before it, in the block or in the write.
   */
  static boolean storeWouldRefuse(List<Long> earlier, List<Long> write) {
    long latest = earlier.stream().mapToLong(Long::longValue).max().orElse(0);
    for (long time : write) {
      if (time < latest) {
        return true;
      }
      latest = time;
    }
    return false;
  }

  static List<Long> extract(UserTimeExtractor.Stream stream, byte[] write) throws FffsException {
    List<Long> times = new ArrayList<>();
    // Padding around the write checks that only position..limit is read and that the buffer is not moved.
    ByteBuffer padded = ByteBuffer.allocate(write.length + 6).put(new byte[] {'\n', 9, 9}).put(write)
        .put(new byte[] {'\n', 9, 9});
    ByteBuffer data = padded.position(3).limit(3 + write.length);
    stream.extract(data, times::add);
    assertThat(data.position()).isEqualTo(3);
    return times;
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }
}
