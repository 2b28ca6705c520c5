package io.fffs.minicluster.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.errors.CodedException;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.StoreStats;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Restoring a file or a tree as it was: the DataNodes copy the blocks, the old state stays in history. */
class HistoryRestoreTest {
  @TempDir
  static java.nio.file.Path base;
  static MiniFffsCluster cluster;
  static FreezeFrameFileSystem fs;

  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", 1 << 20);
    conf.setLong("fffs.history.gc.interval", 0);
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(1).build();
    fs = cluster.getFileSystem();
  }

  @AfterAll
  static void stop() throws Exception {
    if (fs != null) {
      fs.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  static byte[] read(Path path) throws IOException {
    try (InputStream in = fs.open(path)) {
      return in.readAllBytes();
    }
  }

  static byte[] read(Path path, long micros) throws IOException {
    try (InputStream in = fs.open(path, TimeSpec.system(micros))) {
      return in.readAllBytes();
    }
  }

  static void write(Path path, byte[] bytes) throws IOException {
    try (FSDataOutputStream out = fs.create(path, true)) {
      out.write(bytes);
    }
  }

  static long pastMoment() throws IOException {
    HlcTimestamp now = fs.currentTime();
    while (PhysicalClock.system().currentTimeMicros() <= now.physicalMicros() + 1) {
      Thread.onSpinWait();
    }
    return now.physicalMicros();
  }

  @Test
  void aTreeComesBackAsItWasAndWhatReplacedItStaysInHistory() throws Exception {
    byte[] big = new byte[(3 << 20) / 2];
    new Random(7).nextBytes(big);
    write(new Path("/r/a"), "alpha one".getBytes(StandardCharsets.UTF_8));
    write(new Path("/r/sub/b"), big);
    long then = pastMoment();
    write(new Path("/r/a"), "alpha two".getBytes(StandardCharsets.UTF_8));
    fs.delete(new Path("/r/sub/b"), false);
    write(new Path("/r/c"), "new".getBytes(StandardCharsets.UTF_8));
    long before = pastMoment();
    StoreStats stats = cluster.getDataNode(0).store().stats();
    long bytesWrittenBefore = stats.bytesWritten.sum();

    long[] restored = fs.restore(new Path("/r@s" + then / 1000 + "." + String.format("%03d", then % 1000)), null);

    assertThat(restored).containsExactly(2, 2, 9 + big.length);
    assertThat(new String(read(new Path("/r/a")), StandardCharsets.UTF_8)).isEqualTo("alpha one");
    assertThat(read(new Path("/r/sub/b"))).isEqualTo(big);
    assertThat(fs.exists(new Path("/r/c"))).isFalse();
    assertThat(stats.bytesWritten.sum() - bytesWrittenBefore).as("the DataNode copied the blocks itself")
        .isEqualTo(9 + big.length);
    // The replaced tree stays readable in the past.
    assertThat(new String(read(new Path("/r/c"), before), StandardCharsets.UTF_8)).isEqualTo("new");
    assertThat(new String(read(new Path("/r/a"), before), StandardCharsets.UTF_8)).isEqualTo("alpha two");
    assertThat(fs.listVersions(new Path("/r/a"))).extracting(v -> v.change()).contains("restore");

    cluster.restartNameNode();  // the restore replays from the edit log
    try (FreezeFrameFileSystem again = cluster.getFileSystem(); InputStream in = again.open(new Path("/r/sub/b"))) {
      assertThat(in.readAllBytes()).isEqualTo(big);
    }
  }

  @Test
  void aFileIsRestoredToAnotherPathAndRefusalsSayWhy() throws Exception {
    write(new Path("/s/f"), "first".getBytes(StandardCharsets.UTF_8));
    long then = pastMoment();
    write(new Path("/s/f"), "second".getBytes(StandardCharsets.UTF_8));
    fs.mkdirs(new Path("/copies"));
    fs.restore(new Path("/s/f"), TimeSpec.system(then), new Path("/copies/f"));
    assertThat(new String(read(new Path("/copies/f")), StandardCharsets.UTF_8)).isEqualTo("first");
    assertThat(new String(read(new Path("/s/f")), StandardCharsets.UTF_8)).isEqualTo("second");

    assertThatThrownBy(() -> fs.restore(new Path("/s/f"), TimeSpec.latest(), null))
        .satisfies(e -> assertThat(((FffsException) e).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    assertThatThrownBy(() -> fs.restore(new Path("/s/f"), TimeSpec.system(then), new Path("/nowhere/f")))
        .isInstanceOf(java.io.FileNotFoundException.class);
    fs.setRetention(new Path("/s"), RetentionRule.parse("0s"));
    assertThatThrownBy(() -> fs.restore(new Path("/s/f"), TimeSpec.system(then), null))
        .satisfies(e -> assertThat(((CodedException) e).code()).isEqualTo(ErrorCode.HISTORY_EXPIRED));
  }
}
