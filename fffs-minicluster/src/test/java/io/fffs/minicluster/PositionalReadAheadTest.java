package io.fffs.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.datanode.server.DataServerStats;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Positioned reads that each begin where the last ended are read ahead through a block stream (client
 * PositionalReadAhead): few large READs instead of one per call, across block boundaries, with every byte right;
 * positioned reads elsewhere fetch only what they ask for.
 */
class PositionalReadAheadTest {
  private static final int BLOCK = 1 << 20;
  private static final byte[] DATA = new byte[5 * BLOCK + 12_345];
  private static final org.apache.hadoop.fs.Path FILE = new org.apache.hadoop.fs.Path("/pread/file");

  // Each test reads to the end of every stream it starts, so no READ of one test is still in flight in the next.
  @TempDir
  static Path base;
  private static MiniFffsCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", BLOCK);
    conf.setBoolean("fffs.client.read.shortcircuit", false);  // counts the data port's READs
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).build();
    new Random(3).nextBytes(DATA);
    try (FileSystem fs = cluster.getFileSystem(); FSDataOutputStream out = fs.create(FILE, true)) {
      out.write(DATA);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
  }

  private static long reads() {
    DataServerStats stats = cluster.getDataNode(0).serverStats();
    return stats.reads.sum();
  }

  @Test
  void sequentialPositionedReadsAreReadAheadAcrossBlocks() throws Exception {
    int size = 64 * 1024 + 1;
    int calls = 0;
    try (FileSystem fs = FileSystem.newInstance(cluster.getURI(), cluster.getConfiguration());
        FSDataInputStream in = fs.open(FILE)) {
      long before = reads();
      byte[] got = new byte[DATA.length];
      for (int at = 0; at < DATA.length; at += size) {
        in.readFully(at, got, at, Math.min(size, DATA.length - at));
        calls++;
      }
      assertThat(got).isEqualTo(DATA);
      // One READ for the first call, then about one 1 MiB request per block: far fewer than one per call.
      assertThat(reads() - before).isLessThanOrEqualTo(2L * 6 + 2).isLessThan(calls / 4);
      assertThat(in.getPos()).isZero();  // positioned reads leave the stream's position alone
    }
  }

  @Test
  void positionedReadsElsewhereFetchOnlyWhatTheyAskFor() throws Exception {
    int size = 32 * 1024;
    try (FileSystem fs = FileSystem.newInstance(cluster.getURI(), cluster.getConfiguration());
        FSDataInputStream in = fs.open(FILE)) {
      long before = reads();
      byte[] got = new byte[size];
      int asked = 0;
      for (int at = DATA.length - size; at >= 0; at -= 3 * size) {  // backwards, with gaps
        in.readFully(at, got);
        assertThat(got).isEqualTo(Arrays.copyOfRange(DATA, at, at + size));
        asked += at / BLOCK == (at + size - 1) / BLOCK ? 1 : 2;  // one READ per block the range touches
      }
      assertThat(reads() - before).isEqualTo(asked);
    }
  }

  @Test
  void vectoredReadsOfSortedRangesComeBackRight() throws Exception {
    try (FileSystem fs = FileSystem.newInstance(cluster.getURI(), cluster.getConfiguration());
        FSDataInputStream in = fs.open(FILE)) {
      List<FileRange> ranges = new ArrayList<>();
      for (int at = 0; at < DATA.length; at += 100_000) {  // to the end: no request left in flight
        ranges.add(FileRange.createFileRange(at, Math.min(100_000, DATA.length - at)));
      }
      in.readVectored(ranges, ByteBuffer::allocate);
      for (FileRange range : ranges) {
        ByteBuffer bytes = range.getData().get();
        byte[] got = new byte[bytes.remaining()];
        bytes.get(got);
        int at = (int) range.getOffset();
        assertThat(got).isEqualTo(Arrays.copyOfRange(DATA, at, at + range.getLength()));
      }
      CompletableFuture.allOf(ranges.stream().map(FileRange::getData).toArray(CompletableFuture[]::new)).get();
    }
  }
}
