package io.fffs.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.usertime.FixedRecordUserTimeExtractor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random in-place writes and appends mirrored in a reference model; reads at 300 random past system times match
 * the model byte for byte, and reads of a user-time stream at 300 random user times return exactly the records
 * stamped up to then — before and after restarting the DataNode, the NameNode, and the whole cluster.
 */
class RandomWriteHistoryTest {
  private static final int OPS = 150;
  private static final int READS = 300;

  @TempDir
  Path base;

  /** A state of the file and the system time at which it was the current one. */
  private static final class Snapshot {
    final long micros;
    final byte[] content;

    Snapshot(long micros, byte[] content) {
      this.micros = micros;
      this.content = content;
    }
  }

  @Test
  void pastReadsMatchTheModelAcrossRestarts() throws Exception {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", 256 * 1024);
    Path memory = Path.of("/dev/shm", "fffs-history-" + ProcessHandle.current().pid());
    MiniFffsCluster.Builder builder = MiniFffsCluster.builder().baseDir(base).memoryDir(memory).conf(conf);
    Random random = new Random(42);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/history/random.bin");
    List<Snapshot> history = new ArrayList<>();
    long[] userTimes;
    MiniFffsCluster cluster = builder.build();
    try {
      try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
        byte[] model = new byte[0];
        fs.create(file, true).close();
        history.add(new Snapshot(settle(fs), model));
        try (FffsDataOutputStream out = fs.openForWrite(file)) {
          for (int op = 0; op < OPS; op++) {
            int offset = random.nextInt(4) == 0 ? model.length : random.nextInt(model.length + 1);
            byte[] bytes = new byte[1 + random.nextInt(random.nextInt(8) == 0 ? 200_000 : 20_000)];
            random.nextBytes(bytes);
            out.seek(offset);
            out.write(bytes);
            out.hflush();
            if (offset + bytes.length > model.length) {
              model = Arrays.copyOf(model, offset + bytes.length);
            }
            model = model.clone();
            System.arraycopy(bytes, 0, model, offset, bytes.length);
            history.add(new Snapshot(settle(fs), model));
          }
        }
        assertThat(readLatest(fs, file)).isEqualTo(history.get(history.size() - 1).content);
        checkPast(fs, file, history, new Random(1));
      }
      userTimes = writeUserTimeStream(cluster, random);
      checkUserTime(cluster, userTimes, new Random(11));

      cluster.restartDataNode(0);
      try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
        checkPast(fs, file, history, new Random(2));
      }
      checkUserTime(cluster, userTimes, new Random(12));
      cluster.restartNameNode();
      try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
        checkPast(fs, file, history, new Random(3));
      }
      checkUserTime(cluster, userTimes, new Random(13));
    } finally {
      cluster.close();
    }
    MiniFffsCluster again = builder.build();
    try (FreezeFrameFileSystem fs = again.getFileSystem()) {
      checkPast(fs, file, history, new Random(4));
      checkUserTime(again, userTimes, new Random(14));
    } finally {
      again.close();
      // The arena directory is this test's own (a cluster removes only one it chose): hundreds of MiB of tmpfs.
      org.apache.hadoop.fs.FileUtil.fullyDelete(memory.toFile());
    }
  }

  private static final org.apache.hadoop.fs.Path USER_FILE = new org.apache.hadoop.fs.Path("/history/sensor.ts");

  /** Appends 2,000 records with increasing user times (hflush now and then); returns their user times. */
  private static long[] writeUserTimeStream(MiniFffsCluster cluster, Random random) throws IOException {
    Configuration conf = cluster.getConfiguration();
    conf.set("fffs.usertime.plugin", FixedRecordUserTimeExtractor.NAME);
    // Each write call is one block-log entry stamped with its record's user time.
    conf.setBoolean("fffs.client.latency-mode", true);
    long[] times = new long[2000];
    long time = 1_700_000_000_000_000L;
    try (org.apache.hadoop.fs.FileSystem fs = org.apache.hadoop.fs.FileSystem.newInstance(cluster.getURI(), conf);
        org.apache.hadoop.fs.FSDataOutputStream out = fs.create(USER_FILE, true)) {
      for (int i = 0; i < times.length; i++) {
        time += random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(5_000);
        times[i] = time;
        out.write(FixedRecordUserTimeExtractor.record(time, (byte) i));
        if (random.nextInt(50) == 0) {
          out.hflush();
        }
      }
    }
    return times;
  }

  /** Reads the user-time file at 75 random user times: exactly the records stamped at or before each. */
  private static void checkUserTime(MiniFffsCluster cluster, long[] times, Random random) throws IOException {
    try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      for (int i = 0; i < READS / 4; i++) {
        long at = times[0] - 10 + (long) (random.nextDouble() * (times[times.length - 1] - times[0] + 20));
        int expected = 0;
        while (expected < times.length && times[expected] <= at) {
          expected++;
        }
        byte[] read;
        try (FSDataInputStream in = fs.open(USER_FILE, TimeSpec.user(at))) {
          read = in.readAllBytes();
        }
        assertThat(read.length).as("bytes at user time %d", at)
            .isEqualTo(expected * FixedRecordUserTimeExtractor.RECORD_LENGTH);
        for (int r = 0; r < expected; r++) {
          assertThat(java.nio.ByteBuffer.wrap(read, r * FixedRecordUserTimeExtractor.RECORD_LENGTH, 8).getLong())
              .isEqualTo(times[r]);
        }
      }
    }
  }

  /** The NameNode's time after an op; returns once the physical clock is past it, so the next op is later. */
  private static long settle(FreezeFrameFileSystem fs) throws IOException {
    HlcTimestamp now = fs.currentTime();
    while (PhysicalClock.system().currentTimeMicros() <= now.physicalMicros() + 1) {
      Thread.onSpinWait();
    }
    return now.physicalMicros();
  }

  private static byte[] readLatest(FreezeFrameFileSystem fs, org.apache.hadoop.fs.Path file) throws IOException {
    try (FSDataInputStream in = fs.open(file)) {
      return in.readAllBytes();
    }
  }

  private static void checkPast(FreezeFrameFileSystem fs, org.apache.hadoop.fs.Path file, List<Snapshot> history,
      Random random) throws IOException {
    for (int i = 0; i < READS / 4; i++) {
      Snapshot snapshot = history.get(random.nextInt(history.size()));
      TimeSpec at = TimeSpec.system(snapshot.micros);
      byte[] read;
      if (random.nextBoolean()) {
        try (FSDataInputStream in = fs.open(file, at)) {
          read = in.readAllBytes();
        }
      } else {
        try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(file + at.toMarker()))) {
          read = in.readAllBytes();
        }
      }
      assertThat(read).as("content at %s", at).isEqualTo(snapshot.content);
      assertThat(fs.getFileStatus(file, at).getLen()).isEqualTo(snapshot.content.length);
    }
  }
}
