package io.fffs.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
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
 * Random in-place writes and appends mirrored in a reference model; reads at 300 random past times match the
 * model byte for byte — before and after restarting the DataNode, the NameNode, and the whole cluster.
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

      cluster.restartDataNode(0);
      try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
        checkPast(fs, file, history, new Random(2));
      }
      cluster.restartNameNode();
      try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
        checkPast(fs, file, history, new Random(3));
      }
    } finally {
      cluster.close();
    }
    MiniFffsCluster again = builder.build();
    try (FreezeFrameFileSystem fs = again.getFileSystem()) {
      checkPast(fs, file, history, new Random(4));
    } finally {
      again.close();
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
