package io.fffs.minicluster.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FileVersion;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.errors.CodedException;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.MultiLogBlockStore;
import io.fffs.datanode.store.StoreStats;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Garbage collection on both sides: the NameNode's pass, the DataNode's trim of its block logs from the retention
 * table it fetches, and the segment cleaner — then 1,000 reads at random moments: each kept moment (a pin, a
 * version the rule keeps) reads byte for byte what it read before, each other one is refused with HISTORY_EXPIRED,
 * and so again after both nodes restart.
 */
class HistoryCollectionEndToEndTest {
  @TempDir
  java.nio.file.Path base;
  MiniFffsCluster cluster;
  FreezeFrameFileSystem fs;
  final Random random = new Random(31);

  @BeforeEach
  void start() throws Exception {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", 1 << 20);
    conf.setLong("fffs.history.gc.interval", 0);
    conf.set("fffs.datanode.segment.file.size", "256k");
    conf.set("fffs.datanode.cleaner.interval", "1h");
    conf.set("fffs.datanode.retention.interval", "1h");
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(1).build();
    fs = cluster.getFileSystem();
  }

  @AfterEach
  void stop() throws Exception {
    if (fs != null) {
      fs.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  long pastMoment() throws IOException {
    HlcTimestamp now = fs.currentTime();
    while (PhysicalClock.system().currentTimeMicros() <= now.physicalMicros() + 1) {
      Thread.onSpinWait();
    }
    return now.physicalMicros();
  }

  /** The file at {@code micros}: its bytes, "none", or the error code. */
  String read(Path path, long micros) throws IOException {
    try (InputStream in = fs.open(path, TimeSpec.system(micros))) {
      return Arrays.toString(in.readAllBytes());
    } catch (IOException e) {
      if (e instanceof CodedException && ((CodedException) e).code() == ErrorCode.HISTORY_EXPIRED) {
        return "HISTORY_EXPIRED";
      }
      if (e.getMessage() != null && e.getMessage().startsWith("NOT_FOUND")) {
        return "none";
      }
      throw e;
    }
  }

  byte[] bytes(int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  @Test
  void keptMomentsReadTheSameBytesAfterCollectionOnBothSidesAndRestarts() throws Exception {
    Path file = new Path("/gc/data");
    List<Long> moments = new ArrayList<>();
    for (int round = 0; round < 4; round++) {
      try (FSDataOutputStream out = fs.create(file, true)) {
        out.write(bytes(200_000));
      }
      moments.add(pastMoment());
      try (FffsDataOutputStream out = fs.openForWrite(file)) {
        for (int i = 0; i < 12; i++) {
          out.seek(random.nextInt(190_000));
          out.write(bytes(1 + random.nextInt(8_000)));
          out.hflush();
          moments.add(pastMoment());
        }
      }
      moments.add(pastMoment());
    }
    long pinned = moments.get(7);
    fs.pin(new Path("/gc"), TimeSpec.system(pinned), "kept");

    long[] asked = new long[1000];
    List<String> before = new ArrayList<>();
    for (int i = 0; i < asked.length; i++) {
      asked[i] = i % 5 == 0 ? pinned : moments.get(random.nextInt(moments.size())) - random.nextInt(2);
      before.add(read(file, asked[i]));
    }

    fs.setRetention(new Path("/gc"), RetentionRule.parse("0s 2v"));
    Set<Long> kept = new HashSet<>();
    kept.add(pinned);
    for (FileVersion version : fs.listVersions(file)) {
      kept.add(version.time().micros());
    }
    fs.collectHistory();
    assertThat(cluster.getDataNode(0).pullRetention()).isGreaterThan(0);
    MultiLogBlockStore store = (MultiLogBlockStore) cluster.getDataNode(0).store();
    StoreStats stats = store.stats();
    assertThat(stats.blocksCollected.sum()).as("blocks of replaced files").isGreaterThan(0);
    assertThat(stats.entriesCollected.sum()).as("entries no kept moment reads").isGreaterThan(0);
    assertThat(store.cleanSegments()).isGreaterThan(0);
    assertThat(stats.cleanerBytesFreed.sum()).isGreaterThan(0);

    int expired = check(file, asked, before, kept);
    assertThat(expired).isGreaterThan(300);

    cluster.restartNameNode();
    cluster.restartDataNode(0);
    fs.close();
    fs = cluster.getFileSystem();
    assertThat(check(file, asked, before, kept)).isEqualTo(expired);
  }

  /** Checks every asked moment against what it read before; returns how many were refused. */
  private int check(Path file, long[] asked, List<String> before, Set<Long> kept) throws IOException {
    int expired = 0;
    for (int i = 0; i < asked.length; i++) {
      String now = read(file, asked[i]);
      if (kept.contains(asked[i])) {
        assertThat(now).as("kept moment %d", asked[i]).isEqualTo(before.get(i));
      } else {
        assertThat(now).as("moment %d", asked[i]).isEqualTo("HISTORY_EXPIRED");
        expired++;
      }
    }
    return expired;
  }
}
