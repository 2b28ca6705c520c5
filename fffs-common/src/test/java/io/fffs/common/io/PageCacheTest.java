package io.fffs.common.io;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PageCacheTest {
  private static final int PAGE = 4096;
  private static final int FILE_BYTES = 1024 * PAGE;
  private static final int RANGE = 256 * PAGE;

  @TempDir
  Path dir;

  /** A file written with O_DIRECT, so that none of its pages is in the page cache; the test aborts where it cannot. */
  private FileChannel coldFile(String name) throws IOException {
    Path file = dir.resolve(name);
    ByteBuffer image = ByteBuffer.allocateDirect(FILE_BYTES + PAGE).alignedSlice(PAGE).limit(FILE_BYTES);
    byte[] bytes = new byte[FILE_BYTES];
    new Random(3).nextBytes(bytes);
    image.put(bytes).flip();
    try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
        ExtendedOpenOption.DIRECT)) {
      assertThat(out.write(image, 0)).isEqualTo(FILE_BYTES);
    } catch (IOException | UnsupportedOperationException e) {
      Assumptions.abort("the temporary directory's file system refuses O_DIRECT: " + e);
    }
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    Assumptions.assumeFalse(PageCache.resident(channel, 0, FILE_BYTES),
        "the temporary directory's file system keeps O_DIRECT writes in the page cache (tmpfs, say)");
    return channel;
  }

  @Test
  void warmBringsAColdRangeInOnceAndOnlyThatRange() throws IOException {
    try (FileChannel channel = coldFile("cold")) {
      assertThat(PageCache.warm(channel, 8 * PAGE + 100, RANGE, true)).isEqualTo(RANGE);
      assertThat(PageCache.resident(channel, 8 * PAGE + 100, RANGE)).isTrue();
      assertThat(PageCache.resident(channel, 900 * PAGE, 4 * PAGE)).as("pages far from the range").isFalse();
      assertThat(PageCache.warm(channel, 8 * PAGE + 100, RANGE, true)).as("already resident").isZero();
      assertThat(PageCache.warm(channel, 8 * PAGE + 100, RANGE, false)).as("residency not asked").isEqualTo(RANGE);
    }
  }

  @Test
  void rangesBelowTheMinimumAreLeftToTheirReads() throws IOException {
    try (FileChannel channel = coldFile("small")) {
      assertThat(PageCache.warm(channel, 600 * PAGE, PageCache.MIN_BYTES - 1, true)).isZero();
      assertThat(PageCache.resident(channel, 600 * PAGE, PAGE)).isFalse();
    }
  }

  @Test
  void warmStopsAtTheFileEnd() throws IOException {
    try (FileChannel channel = coldFile("short")) {
      assertThat(PageCache.warm(channel, FILE_BYTES - RANGE, 2L * RANGE, true)).isEqualTo(RANGE);
      assertThat(PageCache.resident(channel, FILE_BYTES - RANGE, RANGE)).isTrue();
      assertThat(PageCache.warm(channel, FILE_BYTES, RANGE, true)).isZero();
      assertThat(PageCache.warm(channel, FILE_BYTES + 10 * PAGE, RANGE, true)).isZero();
    }
  }
}
