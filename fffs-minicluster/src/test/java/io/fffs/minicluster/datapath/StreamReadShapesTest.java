package io.fffs.minicluster.datapath;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read path with small pieces, so every shape of read crosses requests, buffers and blocks: 1 MiB blocks, a
 * 64 KiB stream buffer fetched as 4 KiB requests pipelined on one connection. Buffered reads, reads of a buffer's
 * worth or more (straight into the caller's array), ByteBuffer reads, seeks and positioned reads must all return
 * exactly the bytes written; a stream opened at a past time keeps returning that past while the file is
 * overwritten under it.
 */
class StreamReadShapesTest {
  private static final int BLOCK = 1 << 20;
  private static final int BUFFER = 64 << 10;

  @TempDir
  static Path base;
  private static MiniFffsCluster cluster;
  private static FreezeFrameFileSystem fs;

  @BeforeAll
  static void start() throws IOException {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", BLOCK);
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).build();
    Configuration client = new Configuration(cluster.getConfiguration());
    client.setInt("fffs.client.read.buffer-size", BUFFER);
    client.setInt("fffs.client.read.request-size", 4096);
    client.setInt("fffs.client.read.requests-in-flight", 5);
    client.setBoolean("fffs.client.read.shortcircuit", false);  // the data port's read streams
    fs = (FreezeFrameFileSystem) FileSystem.newInstance(cluster.getURI(), client);
  }

  @AfterAll
  static void stop() throws IOException {
    fs.close();
    cluster.close();
  }

  private static byte[] write(String name, int length, long seed) throws IOException {
    return RandomFiles.write(fs, name, length, seed);
  }

  @Test
  void sequentialReadsOfEveryShapeReturnTheBytesAcrossBlocks() throws IOException {
    byte[] data = write("/shapes/sequential", 3 * BLOCK + 12_345, 1);
    int[] sizes = {1, 777, BUFFER, 4096, 300_000, 513, 2 * BUFFER + 3, BUFFER - 1};
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/shapes/sequential"))) {
      byte[] read = new byte[data.length];
      int at = 0;
      for (int call = 0; at < data.length; call++) {
        int size = sizes[call % sizes.length];
        int n = call % 3 == 2 ? readByteBuffer(in, read, at, size, call % 2 == 0)
            : in.read(read, at, Math.min(size, data.length - at));
        assertThat(n).as("read %d of %d bytes at %d", call, size, at).isPositive();
        assertThat(in.getPos()).isEqualTo(at + n);
        at += n;
      }
      assertThat(read).isEqualTo(data);
      assertThat(in.read()).isEqualTo(-1);
      assertThat(in.read(new byte[BUFFER * 2], 0, BUFFER * 2)).isEqualTo(-1);
    }
  }

  /** A ByteBuffer read (heap or direct) of up to {@code size} bytes into {@code into} at {@code at}. */
  private static int readByteBuffer(FSDataInputStream in, byte[] into, int at, int size, boolean direct)
      throws IOException {
    int want = Math.min(size, into.length - at);
    ByteBuffer buffer = direct ? ByteBuffer.allocateDirect(want) : ByteBuffer.allocate(want);
    int n = in.read(buffer);
    buffer.flip();
    assertThat(buffer.remaining()).isEqualTo(n);
    buffer.get(into, at, n);
    return n;
  }

  @Test
  void seeksInsideAndOutsideTheBufferAndPositionedReadsReturnTheRightBytes() throws IOException {
    byte[] data = write("/shapes/random", 2 * BLOCK + 999, 2);
    Random random = new Random(3);
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/shapes/random"))) {
      for (int i = 0; i < 200; i++) {
        int at = random.nextInt(data.length);
        int size = 1 + random.nextInt(random.nextBoolean() ? 2000 : 3 * BUFFER);
        byte[] read = new byte[Math.min(size, data.length - at)];
        int kind = random.nextInt(6);
        if (kind == 0) {
          in.readFully(at, read);  // positioned: leaves the stream's position alone
        } else if (kind == 1) {
          long pos = in.getPos();
          ByteBuffer into = random.nextBoolean() ? ByteBuffer.allocateDirect(read.length + 7)
              : ByteBuffer.allocate(read.length + 7);
          into.position(7);
          in.readFully(at, into);  // positioned into a ByteBuffer, from its position
          assertThat(into.remaining()).isZero();
          assertThat(in.getPos()).isEqualTo(pos);
          into.position(7);
          into.get(read);
        } else {
          if (random.nextBoolean()) {
            // A short hop ahead usually lands inside what the stream already holds.
            at = (int) Math.min(data.length - read.length, in.getPos() + random.nextInt(3000));
          }
          in.seek(at);
          in.readFully(read);
          assertThat(in.getPos()).isEqualTo(at + read.length);
        }
        assertThat(read).as("%d bytes at %d", read.length, at)
            .isEqualTo(Arrays.copyOfRange(data, at, at + read.length));
      }
      assertThat(in.hasCapability("in:preadbytebuffer")).isTrue();
      ByteBuffer tail = ByteBuffer.allocate(100);
      assertThat(in.read(data.length - 40, tail)).as("what is left of the file").isEqualTo(40);
      assertThat(in.read(data.length, tail)).as("at the end").isEqualTo(-1);
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> in.readFully(data.length - 10, ByteBuffer.allocate(11)))
          .isInstanceOf(java.io.EOFException.class);
    }
  }

  @Test
  void seeksWhileAReadAheadIsUnderWayReadTheRightBytes() throws IOException {
    byte[] data = write("/shapes/ahead", 2 * BLOCK, 6);
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/shapes/ahead"))) {
      byte[] small = new byte[1000];
      // Sequential from the start: the buffer after this one is being read ahead.
      in.readFully(small);
      assertThat(small).isEqualTo(Arrays.copyOfRange(data, 0, 1000));
      // Away (the read-ahead is abandoned), then into the range it was fetching, then across the block boundary.
      for (int at : new int[] {BLOCK + 5, BUFFER + 10, BUFFER - 500, BLOCK - BUFFER / 2, 17}) {
        in.seek(at);
        byte[] read = new byte[BUFFER + 300];
        in.readFully(read);
        assertThat(read).as("at %d", at).isEqualTo(Arrays.copyOfRange(data, at, at + read.length));
      }
      in.unbuffer();
      in.readFully(small);
      int at = 17 + BUFFER + 300;
      assertThat(small).isEqualTo(Arrays.copyOfRange(data, at, at + 1000));
    }
  }

  @Test
  void aStreamOpenedAtAPastTimeKeepsReadingThePastWhileTheFileIsOverwritten() throws IOException {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/shapes/overwritten");
    byte[] before = write("/shapes/overwritten", BLOCK + BLOCK / 2, 4);
    long past = settle();
    byte[] after = before.clone();
    new Random(5).nextBytes(after);
    try (FSDataInputStream atPast = fs.open(file, TimeSpec.system(past))) {
      byte[] fromPast = new byte[before.length];
      atPast.readFully(fromPast, 0, 10_000);
      try (FffsDataOutputStream out = fs.openForWrite(file)) {
        for (int at = 0; at < after.length; at += 50_000) {
          out.seek(at);
          out.write(after, at, Math.min(50_000, after.length - at));
          out.hflush();
          if (at == 500_000) {
            // Halfway through the overwrite: read on, large and small, while the rest is written.
            atPast.readFully(fromPast, 10_000, 3 * BUFFER);
          }
        }
      }
      int from = 10_000 + 3 * BUFFER;
      atPast.readFully(fromPast, from, before.length - from);
      assertThat(fromPast).isEqualTo(before);
      byte[] positioned = new byte[300_000];
      atPast.readFully(BLOCK - 100_000, positioned);
      assertThat(positioned).isEqualTo(Arrays.copyOfRange(before, BLOCK - 100_000, BLOCK + 200_000));
    }
    try (FSDataInputStream now = fs.open(file)) {
      assertThat(now.readAllBytes()).isEqualTo(after);
    }
  }

  /** The NameNode's time now; returns once the physical clock is past it, so later changes are later. */
  private static long settle() throws IOException {
    HlcTimestamp now = fs.currentTime();
    while (PhysicalClock.system().currentTimeMicros() <= now.physicalMicros() + 1) {
      Thread.onSpinWait();
    }
    return now.physicalMicros();
  }
}
