package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.usertime.FixedRecordUserTimeExtractor;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replication 3 on 3 DataNodes: every replica holds the same log, entry by entry, and answers every past system
 * and user time with the same bytes as the others and as the file system's own read.
 */
class ReplicatedHistoryTest {
  private static final int BLOCK = 256 * 1024;
  private static final String FILE = "/replicated/history.bin";

  @TempDir
  Path base;

  static Configuration conf(int replication) {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", BLOCK);
    conf.setInt("fffs.replication", replication);
    return conf;
  }

  /**
   * Writes {@code path}'s history: {@code rounds} appends and overwrites in place of up to {@code maxBytes} each,
   * hflushing each round and hsyncing every tenth; checks the latest bytes and returns the time window it spans.
   */
  static long[] writeHistory(FreezeFrameFileSystem fs, String path, Random random, int rounds, int maxBytes)
      throws IOException {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(path);
    byte[] model = new byte[0];
    fs.create(file, true).close();
    long start = settle(fs);
    try (FffsDataOutputStream out = fs.openForWrite(file)) {
      for (int round = 0; round < rounds; round++) {
        int offset = random.nextInt(3) == 0 ? random.nextInt(model.length + 1) : model.length;
        byte[] bytes = new byte[1 + random.nextInt(maxBytes)];
        random.nextBytes(bytes);
        out.seek(offset);
        out.write(bytes);
        model = Arrays.copyOf(model, Math.max(model.length, offset + bytes.length));
        System.arraycopy(bytes, 0, model, offset, bytes.length);
        out.hflush();
        if (round % 10 == 9) {
          out.hsync();
        }
      }
    }
    long end = settle(fs);
    try (FSDataInputStream in = fs.open(file)) {
      assertThat(in.readAllBytes()).isEqualTo(model);
    }
    return new long[] {start, end};
  }

  static MiniFffsCluster cluster(Path base, Configuration conf, int dataNodes) throws IOException {
    return MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(dataNodes).memoryCapacity(64L << 20)
        .build();
  }

  /** The NameNode's time after an op; returns once the physical clock is past it, so the next op is later. */
  static long settle(FreezeFrameFileSystem fs) throws IOException {
    HlcTimestamp now = fs.currentTime();
    while (PhysicalClock.system().currentTimeMicros() <= now.physicalMicros() + 1) {
      Thread.onSpinWait();
    }
    return now.physicalMicros();
  }

  @Test
  void everyReplicaServesTheSameHistory() throws Exception {
    try (MiniFffsCluster cluster = cluster(base, conf(3), 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(FILE);
      Random random = new Random(29);
      long[] window = writeHistory(fs, FILE, random, 60, 300 * 1024);
      long start = window[0];
      long end = window[1];

      LocatedBlocksProto blocks = replicas.awaitListed(FILE, 3);
      for (LocatedBlockProto block : blocks.getBlocksList()) {
        assertThat(new HashSet<>(block.getLocationsList().stream().map(DatanodeIdProto::getDatanodeUuid).toList()))
            .hasSize(3);
        assertThat(replicas.assertSameLogs(block)).isGreaterThan(1);
      }
      for (int i = 0; i < 200; i++) {
        long micros = start + (long) (random.nextDouble() * (end - start));
        assertSameAt(fs, replicas, file, TimeSpec.system(micros), random);
      }
    }
  }

  /**
   * The file as of {@code time}, read by the file system, and in up to 4 random blocks a random range read directly
   * from each replica: the same bytes and the same resolved entry everywhere (over 200 times every block is read
   * many times; the logs are compared entry by entry besides).
   */
  static void assertSameAt(FreezeFrameFileSystem fs, Replicas replicas, org.apache.hadoop.fs.Path file,
      TimeSpec time, Random random) throws IOException {
    long fileLength = fs.getFileStatus(file, time).getLen();
    LocatedBlocksProto blocks = replicas.blocks(file.toString(), time);
    try (FSDataInputStream in = fs.open(file, time)) {
      for (int pick = 0; pick < Math.min(4, blocks.getBlocksCount()); pick++) {
        int b = random.nextInt(blocks.getBlocksCount());
        LocatedBlockProto block = blocks.getBlocks(b);
        long blockStart = (long) b * BLOCK;
        int blockLength = (int) Math.min(BLOCK, fileLength - blockStart);
        if (blockLength <= 0) {
          continue;
        }
        int length = Math.min(blockLength, 4096 + random.nextInt(60 * 1024));
        int offset = random.nextInt(blockLength - length + 1);
        byte[] expected = new byte[length];
        in.readFully(blockStart + offset, expected);
        Replicas.Answer first = null;
        for (DatanodeIdProto replica : block.getLocationsList()) {
          Replicas.Answer answer = replicas.read(block, replica, offset, length, time);
          assertThat(answer.bytes()).as("block %d [%d, +%d) at %s from %s", b, offset, length, time,
              replica.getDatanodeUuid()).isEqualTo(expected);
          if (first == null) {
            first = answer;
          } else {
            assertThat(answer.resolvedHlc()).as("resolved entry of block %d at %s", b, time)
                .isEqualTo(first.resolvedHlc());
          }
        }
      }
    }
  }

  @Test
  void aReadFailsOverWhenADataNodeIsDown() throws Exception {
    try (MiniFffsCluster cluster = cluster(base, conf(3), 3);
        Replicas replicas = new Replicas(cluster)) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/replicated/failover.bin");
      byte[] content = new byte[3 * BLOCK + 1000];
      new Random(31).nextBytes(content);
      long written;
      try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
        try (FSDataOutputStream out = fs.create(file, true)) {
          out.write(content);
        }
        written = settle(fs);
      }
      LocatedBlocksProto blocks = replicas.awaitListed(file.toString(), 3);
      String first = blocks.getBlocks(0).getLocations(0).getDatanodeUuid();
      try (FreezeFrameFileSystem fs = cluster.getFileSystem();
          FSDataInputStream latest = fs.open(file);
          FSDataInputStream past = fs.open(file, TimeSpec.system(written))) {
        // Both streams hold the locations listed now, the DataNode about to stop among them (first for block 0).
        for (int i = 0; i < cluster.getNumDataNodes(); i++) {
          if (cluster.getDataNode(i).uuid().equals(first)) {
            cluster.stopDataNode(i);
          }
        }
        assertThat(latest.readAllBytes()).as("a sequential read").isEqualTo(content);
        byte[] part = new byte[50_000];
        past.readFully(BLOCK - 20_000, part);
        assertThat(part).as("a positioned read across a block end").isEqualTo(
            Arrays.copyOfRange(content, BLOCK - 20_000, BLOCK + 30_000));
        past.seek(2 * BLOCK + 7);
        byte[] next = new byte[100];
        past.readFully(next);
        assertThat(next).isEqualTo(Arrays.copyOfRange(content, 2 * BLOCK + 7, 2 * BLOCK + 107));
      }
    }
  }

  @Test
  void everyReplicaAnswersUserTimesAlike() throws Exception {
    Configuration conf = conf(3);
    conf.set("fffs.usertime.plugin", FixedRecordUserTimeExtractor.NAME);
    conf.setBoolean("fffs.client.latency-mode", true);
    try (MiniFffsCluster cluster = cluster(base, conf, 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/replicated/sensor.ts");
      Random random = new Random(30);
      long[] times = new long[600];
      long time = 1_700_000_000_000_000L;
      try (FSDataOutputStream out = fs.create(file, true)) {
        for (int i = 0; i < times.length; i++) {
          time += random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(5_000);
          times[i] = time;
          out.write(FixedRecordUserTimeExtractor.record(time, (byte) i));
          if (random.nextInt(50) == 0) {
            out.hflush();
          }
        }
      }
      replicas.awaitListed(file.toString(), 3);
      for (int i = 0; i < 50; i++) {
        long at = times[0] + (long) (random.nextDouble() * (times[times.length - 1] - times[0] + 10));
        int expected = 0;
        while (expected < times.length && times[expected] <= at) {
          expected++;
        }
        try (FSDataInputStream in = fs.open(file, TimeSpec.user(at))) {
          assertThat(in.readAllBytes().length).isEqualTo(expected * FixedRecordUserTimeExtractor.RECORD_LENGTH);
        }
        LocatedBlocksProto blocks = replicas.blocks(file.toString(), TimeSpec.latest());
        for (LocatedBlockProto block : blocks.getBlocksList()) {
          List<DatanodeIdProto> locations = block.getLocationsList();
          Replicas.Answer first = replicas.read(block, locations.get(0), 0, BLOCK, TimeSpec.user(at));
          for (DatanodeIdProto other : locations.subList(1, locations.size())) {
            Replicas.Answer answer = replicas.read(block, other, 0, BLOCK, TimeSpec.user(at));
            assertThat(answer.bytes()).as("block at user time %d from %s", at, other.getDatanodeUuid())
                .isEqualTo(first.bytes());
            assertThat(answer.resolvedHlc()).isEqualTo(first.resolvedHlc());
          }
        }
      }
    }
  }
}
