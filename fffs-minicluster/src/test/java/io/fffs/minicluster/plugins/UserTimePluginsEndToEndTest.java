package io.fffs.minicluster.plugins;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.errors.CodedException;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.function.LongFunction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each shipped plug-in through a real NameNode and DataNode: files written with it read back by user time
 * ({@code @u}), a record split across two flushed writes, a regressing record refused with USER_TIME_REGRESSION and
 * a bad one with INVALID_ARGUMENT naming its byte offset. The records are encoded here from the documented layouts,
 * not with the plug-ins' helpers, which this module sees only at run time.
 */
class UserTimePluginsEndToEndTest {
  private static final long T0_MILLIS = 1_763_719_200_000L;
  private static final int RECORDS = 8;

  /** A plug-in name and how to encode a record (with some payload) whose user time is the given epoch millis. */
  enum Plugin {
    TS64("ts64:fixed=24", millis -> ByteBuffer.allocate(24).putLong(millis * 1000).putLong(millis).putLong(-1)
        .array()),
    TS64_PREFIXED("ts64", millis -> ByteBuffer.allocate(4 + 8 + 5).putInt(8 + 5).putLong(millis * 1000)
        .put("hello".getBytes(UTF_8)).array()),
    TEXT("text:sep=;", millis -> (Instant.ofEpochMilli(millis) + ";sensor-7;12.5\n").getBytes(UTF_8)),
    JSON("json:field=t", millis -> ("{\"ts\": \"not this\", \"t\": " + millis + ", \"v\": [1, 2]}\n").getBytes(UTF_8)),
    WAVE("wave", millis -> ByteBuffer.allocate(20).putShort((short) 0x5756).put((byte) 1).put((byte) 0).putInt(42)
        .putLong(millis * 1000).putFloat(0.75f).array());

    final String name;
    final LongFunction<byte[]> record;

    Plugin(String name, LongFunction<byte[]> record) {
      this.name = name;
      this.record = record;
    }

    /** The bytes of a record the plug-in must refuse: a good one with its first byte changed. */
    byte[] badRecord() {
      byte[] bytes = record.apply(T0_MILLIS);
      bytes[0] = (byte) (this == JSON ? '[' : this == TEXT ? 'x' : 0xff);
      return bytes;
    }
  }

  @org.junit.jupiter.api.io.TempDir
  static Path base;
  static MiniFffsCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", 1 << 20);
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(1).build();
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  static FileSystem fileSystemWith(Plugin plugin) throws IOException {
    Configuration conf = new Configuration(cluster.getConfiguration());
    conf.set("fffs.usertime.plugin", plugin.name);
    return FileSystem.newInstance(cluster.getURI(), conf);
  }

  static ErrorCode codeOf(Throwable e) {
    return e instanceof CodedException coded ? coded.code() : e instanceof FffsException f ? f.code() : null;
  }

  @ParameterizedTest
  @EnumSource(Plugin.class)
  void readsBackByUserTimeAndRefusesARegression(Plugin plugin) throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/plugins/" + plugin + ".good");
    ByteArrayOutputStream written = new ByteArrayOutputStream();
    int[] endOfRecord = new int[RECORDS];
    try (FileSystem fs = fileSystemWith(plugin)) {
      try (FSDataOutputStream out = fs.create(file, true)) {
        for (int i = 0; i < RECORDS; i++) {
          byte[] record = plugin.record.apply(T0_MILLIS + 100L * i);
          int split = i == 3 ? record.length / 2 : record.length;  // record 3 goes in two writes
          out.write(record, 0, split);
          out.hflush();
          if (split < record.length) {
            out.write(record, split, record.length - split);
            out.hflush();
          }
          written.writeBytes(record);
          endOfRecord[i] = written.size();
        }
        assertThatThrownBy(() -> {
          out.write(plugin.record.apply(T0_MILLIS + 50));
          out.hflush();
        }).satisfies(e -> assertThat(codeOf(e)).isEqualTo(ErrorCode.USER_TIME_REGRESSION));
      } catch (IOException refusedAgainOnClose) {
        assertThat(codeOf(refusedAgainOnClose)).isEqualTo(ErrorCode.USER_TIME_REGRESSION);
      }
      for (int k : new int[] {0, 3, RECORDS - 1}) {
        byte[] asOf = readAll(fs, new org.apache.hadoop.fs.Path(file + "@u" + (T0_MILLIS + 100L * k)));
        assertThat(asOf).as("%s@u(record %d)", plugin, k)
            .isEqualTo(Arrays.copyOf(written.toByteArray(), endOfRecord[k]));
      }
      assertThat(readAll(fs, file)).isEqualTo(written.toByteArray());
    }
  }

  @ParameterizedTest
  @EnumSource(Plugin.class)
  void aBadRecordIsAnInvalidArgumentNamingItsByteOffset(Plugin plugin) throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/plugins/" + plugin + ".bad");
    byte[] good = plugin.record.apply(T0_MILLIS);
    try (FileSystem fs = fileSystemWith(plugin)) {
      try (FSDataOutputStream out = fs.create(file, true)) {
        out.write(good);
        out.hflush();
        assertThatThrownBy(() -> {
          out.write(plugin.badRecord());
          out.hflush();
        }).satisfies(e -> {
          assertThat(codeOf(e)).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("at byte offset " + good.length + " of the block");
        });
      } catch (IOException refusedAgainOnClose) {
        assertThat(codeOf(refusedAgainOnClose)).isEqualTo(ErrorCode.INVALID_ARGUMENT);
      }
      assertThat(readAll(fs, file)).isEqualTo(good);
    }
  }

  static byte[] readAll(FileSystem fs, org.apache.hadoop.fs.Path path) throws IOException {
    try (FSDataInputStream in = fs.open(path)) {
      return in.readAllBytes();
    }
  }
}
