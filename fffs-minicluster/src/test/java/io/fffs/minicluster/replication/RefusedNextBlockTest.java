package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fffs.client.FileWrite;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.safemode.SafeMode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NameNode refuses a stream's next block (an administrator entered safe mode) part-way through a packet that
 * crosses into it: the flush fails typed, and the stream fails for good — once safe mode is left, a later write,
 * flush or close throws the same failure — as it can no longer tell where its next byte goes. The file holds exactly
 * the bytes the DataNodes acknowledged before the refusal, each written once, and an append goes on from there.
 */
class RefusedNextBlockTest {
  @TempDir
  Path base;

  @Test
  void aNextBlockRefusedPartWayThroughAPacketFailsTheStreamAndKeepsWhatWasAcknowledged() throws Exception {
    Configuration conf = ReplicatedHistoryTest.conf(2);
    int blockSize = (int) conf.getLong("fffs.blocksize", 0);
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 2);
        FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      byte[] data = new byte[blockSize + 30_000];
      new Random(29).nextBytes(data);
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/refused-next-block");
      FSDataOutputStream out = fs.create(file, true);
      int flushed = blockSize - 10_000;
      out.write(data, 0, flushed);
      out.hflush();
      SafeMode safeMode = cluster.getNameNode().namesystem().safeMode();
      safeMode.enter("a test refuses the next block");
      FffsException failure;
      try {
        // One packet of 20,000 bytes: its first half ends the first block, then the second block is refused.
        out.write(data, flushed, 20_000);
        failure = catchThrowableOfType(out::hflush, FffsException.class);
      } finally {
        safeMode.leave("the test goes on");
      }
      assertThat(failure).as("the flush crossing into the refused block failed typed").isNotNull();
      assertThat(failure.code()).isEqualTo(ErrorCode.SAFE_MODE);
      assertThat(failure).hasMessageContaining("stopped at byte " + blockSize)
          .hasMessageContaining("open /refused-next-block for append");

      for (ThrowingCall call : List.<ThrowingCall>of(() -> out.write(data, blockSize + 10_000, 100), out::hflush,
          out::hsync, out::close)) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(FffsException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.SAFE_MODE)).hasMessageContaining("cannot be written on");
      }
      assertThat(read(fs, file)).as("what the DataNodes acknowledged: the first block, nothing after it")
          .isEqualTo(java.util.Arrays.copyOf(data, blockSize));

      try (FSDataOutputStream more = fs.append(file)) {
        more.write(data, blockSize, data.length - blockSize);
      }
      assertThat(read(fs, file)).isEqualTo(data);
      long written = 0;
      for (FileWrite write : fs.listWrites(file, Long.MIN_VALUE, Long.MAX_VALUE).writes()) {
        assertThat(write.offset()).as("each byte written once, in order").isEqualTo(written);
        written += write.length();
      }
      assertThat(written).isEqualTo(data.length);
    }
  }

  private interface ThrowingCall {
    void run() throws IOException;
  }

  private static byte[] read(FreezeFrameFileSystem fs, org.apache.hadoop.fs.Path file) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (FSDataInputStream in = fs.open(file)) {
      in.transferTo(bytes);
    }
    return bytes.toByteArray();
  }
}
