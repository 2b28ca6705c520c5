package io.fffs.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The throughput benchmark's systems, each in a JVM of its own, driven over its stdin and stdout. */
class FileSidesTest {
  private static final long FILE = 4L << 20;

  @TempDir
  Path tmp;

  @Test
  void fffsInItsOwnJvmWritesReadsAndPersists() throws IOException {
    try (FileSide fffs = ChildFileSide.start("FFFS", tmp.resolve("fffs"), 64L << 20)) {
      assertEquals("FFFS", fffs.name());
      JitWarmUp.Result warm = fffs.warmUp(new int[] {4 << 10, 64 << 10}, 1L << 20, 2, 3);
      assertTrue(warm.passes() >= 2 && warm.passes() <= 3, warm.describe());
      assertEquals(warm.passes() * (1L << 20) * 2, warm.bytesWritten(), warm.describe());
      assertTrue(warm.lastCompileShare() >= 0, warm.describe());
      long before = fffs.persistedBytes();
      assertTrue(fffs.write("/f", FILE, 64 << 10) > 0);
      fffs.awaitQuiet();
      assertTrue(fffs.persistedBytes() - before >= FILE, "the file's bytes were persisted");
      assertTrue(fffs.read("/f", FILE, 64 << 10, 0) > 0);
      assertTrue(fffs.read("/f", FILE, 1 << 20, 256 << 10) > 0);
      IOException tooShort = assertThrows(IOException.class, () -> fffs.read("/f", 2 * FILE, 64 << 10, 0));
      assertTrue(tooShort.getMessage().contains("expected " + 2 * FILE), tooShort.getMessage());
    }
  }

  @Test
  void hdfsInItsOwnJvmWritesAndReadsAndHasNothingToPersist() throws IOException {
    try (FileSide hdfs = ChildFileSide.start("HDFS", tmp.resolve("hdfs"), 0)) {
      JitWarmUp.Result warm = hdfs.warmUp(new int[] {1 << 10}, 1L << 20, 1, 1);
      assertEquals(new JitWarmUp.Result(1, 1L << 20, warm.lastCompileShare()), warm, "one pass of 1 MiB");
      assertTrue(hdfs.write("/f", FILE, 64 << 10) > 0);
      assertTrue(hdfs.read("/f", FILE, 64 << 10, 0) > 0);
      assertEquals(0, hdfs.persistedBytes());
      assertEquals(0.0, hdfs.awaitQuiet());
    }
  }

  @Test
  void anUnknownSystemIsRefusedByTheChild() {
    IOException e = assertThrows(IOException.class, () -> ChildFileSide.start("GFS", tmp.resolve("gfs"), 0).close());
    assertTrue(e.getMessage().contains("unknown system GFS"), e.getMessage());
  }
}
