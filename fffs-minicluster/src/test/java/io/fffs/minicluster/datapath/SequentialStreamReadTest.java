package io.fffs.minicluster.datapath;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.datanode.server.DataServerStats;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.RandomFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sequential reads go through a block read stream: requests of {@code fffs.client.read.request-size} kept in flight
 * on one connection, each answer checked and copied straight into the caller's buffer. Whatever the size of the
 * read calls, every byte of the file is asked of the DataNode exactly once, in request-size pieces per block; a
 * stream abandoned in the middle of a block (a seek away, with answers still to come) leaves the client able to
 * read on, and its connection goes back to the pool once those answers are in.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SequentialStreamReadTest {
  private static final int BLOCK = 1 << 20;
  private static final int REQUEST = 16 << 10;

  @TempDir
  static Path base;
  private static MiniFffsCluster cluster;
  private static FileSystem fs;

  @BeforeAll
  static void start() throws IOException {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", BLOCK);
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).build();
    Configuration client = new Configuration(cluster.getConfiguration());
    client.setInt("fffs.client.read.request-size", REQUEST);
    client.setInt("fffs.client.read.stream-request-size", REQUEST);  // requests that do not grow: counted below
    client.setInt("fffs.client.read.requests-in-flight", 4);
    client.setBoolean("fffs.client.read.shortcircuit", false);  // counts the data port's READs
    fs = FileSystem.newInstance(cluster.getURI(), client);
  }

  @AfterAll
  static void stop() throws IOException {
    fs.close();
    cluster.close();
  }

  private static byte[] write(String name, int length, long seed) throws IOException {
    return RandomFiles.write(fs, name, length, seed);
  }

  private static DataServerStats stats() {
    return cluster.getDataNode(0).serverStats();
  }

  @Test
  @Order(1)  // first: answers to requests an abandoned stream left behind would be counted too
  void everyByteIsAskedOnceInRequestSizePiecesWhateverTheCallSize() throws IOException {
    int length = 2 * BLOCK + 100_000;
    byte[] data = write("/stream/once", length, 1);
    int requests = 2 * (BLOCK / REQUEST) + (100_000 + REQUEST - 1) / REQUEST;
    for (int call : new int[] {1, 100, 4096, REQUEST + 7, 3 * BLOCK}) {
      long readsBefore = stats().reads.sum();
      long bytesBefore = stats().readBytes.sum();
      byte[] back = new byte[length];
      try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/stream/once"))) {
        int at = 0;
        while (at < length) {
          int n = call == 1 ? oneByte(in, back, at) : in.read(back, at, Math.min(call, length - at));
          assertThat(n).as("read of %d bytes at %d", call, at).isPositive();
          at += n;
        }
        assertThat(in.read()).isEqualTo(-1);
      }
      assertThat(back).as("read in calls of %d bytes", call).isEqualTo(data);
      assertThat(stats().readBytes.sum() - bytesBefore).as("bytes served, calls of %d", call).isEqualTo(length);
      assertThat(stats().reads.sum() - readsBefore).as("READs served, calls of %d", call).isEqualTo(requests);
    }
  }

  private static int oneByte(FSDataInputStream in, byte[] into, int at) throws IOException {
    int b = in.read();
    if (b < 0) {
      return -1;
    }
    into[at] = (byte) b;
    return 1;
  }

  @Test
  @Order(2)
  void streamsAbandonedMidBlockLeaveTheClientReadingTheRightBytes() throws IOException {
    byte[] data = write("/stream/abandoned", 2 * BLOCK, 2);
    Random random = new Random(7);
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/stream/abandoned"))) {
      for (int i = 0; i < 40; i++) {
        // Sequential for a while (a stream with answers in flight), then a jump to anywhere.
        int at = random.nextInt(data.length - 1);
        in.seek(at);
        for (int k = 0; k < 3 && at < data.length; k++) {
          int size = Math.min(1 + random.nextInt(3 * REQUEST), data.length - at);
          ByteBuffer buffer = k == 1 ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
          while (buffer.hasRemaining()) {
            assertThat(in.read(buffer)).isPositive();
          }
          buffer.flip();
          byte[] read = new byte[size];
          buffer.get(read);
          assertThat(read).as("%d bytes at %d", size, at).isEqualTo(Arrays.copyOfRange(data, at, at + size));
          at += size;
          assertThat(in.getPos()).isEqualTo(at);
        }
      }
    }
    // Other readers on the same client still read whole files.
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/stream/abandoned"))) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
  }

  /**
   * A stream left with answers still to come (its reader closed after the first byte of a block, with three
   * 256 KiB requests in flight) gives its connection back to the pool once those answers are in, instead of closing
   * it: 40 such readers reuse the pool's connections, where closing each would open a new one nearly every time.
   */
  @Test
  @Order(3)
  void aConnectionLeftWithAnswersToComeRejoinsThePool() throws IOException {
    byte[] data = write("/stream/left", BLOCK, 3);
    Configuration conf = new Configuration(cluster.getConfiguration());
    conf.setInt("fffs.client.read.request-size", BLOCK / 4);
    conf.setInt("fffs.client.read.requests-in-flight", 4);
    try (FileSystem client = FileSystem.newInstance(cluster.getURI(), conf)) {
      long connectionsBefore = stats().connections.sum();
      for (int i = 0; i < 40; i++) {
        try (FSDataInputStream in = client.open(new org.apache.hadoop.fs.Path("/stream/left"))) {
          assertThat(in.read()).isEqualTo(data[0] & 0xff);  // from the start: a stream, 4 requests in flight
        }
      }
      long opened = stats().connections.sum() - connectionsBefore;
      assertThat(opened).as("connections opened by 40 readers that left answers behind").isLessThan(10);
    }
  }
}
