package io.fffs.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BareDiskWriterTest {
  private static final int BATCH = BareDiskWriter.BATCH_BYTES;

  @TempDir
  Path dir;

  @ParameterizedTest(name = "direct={0}")
  @ValueSource(booleans = {true, false})
  void writesTheSourceInWholeBatchesOverAndOverUntilStopped(boolean direct) throws Exception {
    ByteBuffer source = mappedSource(2);
    Path file = dir.resolve("bare-disk-writer.dat");
    long written;
    try (BareDiskWriter writer = new BareDiskWriter(dir, source, direct)) {
      long deadline = System.nanoTime() + 60_000_000_000L;
      while ((!Files.exists(file) || Files.size(file) < 3L * BATCH) && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      written = writer.stop();
      assertTrue(written >= 3L * BATCH, "wrote only " + written + " bytes");
      assertEquals(0, written % BATCH);
      assertEquals(written, Files.size(file));
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
        for (int batch = 0; batch < 3; batch++) {
          ByteBuffer read = ByteBuffer.allocate(BATCH);
          channel.read(read, (long) batch * BATCH);
          int from = batch % 2 * BATCH;
          assertEquals(source.slice(from, BATCH), read.flip(), "batch " + batch);
        }
      }
    }
    assertFalse(Files.exists(file), "the file outlived close()");
  }

  @Test
  void refusesASourceSmallerThanOneBatch() {
    assertThrows(IllegalArgumentException.class,
        () -> new BareDiskWriter(dir, ByteBuffer.allocateDirect(4096), false));
  }

  /** {@code batches} batches of a tmp file, mapped (so page-aligned), each batch filled with its own bytes. */
  private ByteBuffer mappedSource(int batches) throws IOException {
    Path path = dir.resolve("source");
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_WRITE, 0, (long) batches * BATCH);
      for (int i = 0; i < map.capacity(); i++) {
        map.put(i, (byte) (i / 4096 * 31 + i / BATCH));
      }
      return map;
    }
  }
}
