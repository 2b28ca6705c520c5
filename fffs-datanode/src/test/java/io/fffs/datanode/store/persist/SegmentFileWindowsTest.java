package io.fffs.datanode.store.persist;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.datanode.store.StoreStats;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mappings open segment files keep for data-port answers: a window is mapped once the file holds all of it and
 * serves every stretch inside it (the bytes of the file); a stretch across two windows, or in a window the file does
 * not hold whole yet, gets none; closing the file unmaps them, but never while a reader holds it; and when the
 * bound on all files' windows is reached, files no reader holds give theirs up, files readers hold never do.
 */
class SegmentFileWindowsTest {
  private static final int WINDOW = 8192;

  @TempDir
  Path dir;

  @Test
  void windowsAreMappedWhenWholeServeTheirStretchesAndGoWithTheFile() throws Exception {
    byte[] bytes = bytes(3 * WINDOW, 5);
    Path file = SegmentFormat.path(dir, 1);
    Files.write(file, Arrays.copyOf(bytes, WINDOW + 3000));
    try (SegmentPageReader reader = new SegmentPageReader(dir, 512, new StoreStats(), 4, WINDOW)) {
      SegmentPageReader.Handle handle = reader.acquire(SegmentFormat.location(1, 0));
      assertThat(content(handle.mapped(100, 1000))).isEqualTo(Arrays.copyOfRange(bytes, 100, 1100));
      assertThat(content(handle.mapped(0, WINDOW))).isEqualTo(Arrays.copyOfRange(bytes, 0, WINDOW));
      assertThat(handle.mapped(WINDOW - 500, 1000)).as("across two windows").isNull();
      assertThat(handle.mapped(WINDOW + 10, 100)).as("a window the file does not hold whole").isNull();
      assertThat(handle.windowsMapped()).isEqualTo(1);

      Files.write(file, Arrays.copyOfRange(bytes, WINDOW + 3000, 3 * WINDOW), StandardOpenOption.APPEND);
      assertThat(content(handle.mapped(WINDOW + 10, 100))).isEqualTo(Arrays.copyOfRange(bytes, WINDOW + 10,
          WINDOW + 110));
      assertThat(content(handle.mapped(2 * WINDOW + 4096, 4096))).isEqualTo(Arrays.copyOfRange(bytes,
          2 * WINDOW + 4096, 3 * WINDOW));
      assertThat(handle.windowsMapped()).isEqualTo(3);
      assertThat(mappingsOf(file)).isPositive();

      reader.release(handle);
      reader.retire(1);
      assertThat(handle.channel().isOpen()).isFalse();
      assertThat(handle.windowsMapped()).isZero();
      assertThat(reader.windowsMapped()).isZero();
      assertThat(mappingsOf(file)).isZero();
      assertThat(handle.mapped(100, 1000)).as("a closed file").isNull();
    }
  }

  @Test
  void atTheBoundIdleFilesGiveUpTheirWindowsAndHeldOnesKeepThem() throws Exception {
    byte[] a = bytes(2 * WINDOW, 6);
    byte[] b = bytes(2 * WINDOW, 7);
    Files.write(SegmentFormat.path(dir, 1), a);
    Files.write(SegmentFormat.path(dir, 2), b);
    try (SegmentPageReader reader = new SegmentPageReader(dir, 512, new StoreStats(), 4, WINDOW, 2L * WINDOW)) {
      SegmentPageReader.Handle fileA = reader.acquire(SegmentFormat.location(1, 0));
      assertThat(content(fileA.mapped(0, 512))).isEqualTo(Arrays.copyOf(a, 512));
      assertThat(content(fileA.mapped(WINDOW, 512))).isEqualTo(Arrays.copyOfRange(a, WINDOW, WINDOW + 512));
      reader.release(fileA);  // idle, still open, still mapped
      assertThat(fileA.windowsMapped()).isEqualTo(2);

      SegmentPageReader.Handle fileB = reader.acquire(SegmentFormat.location(2, 0));
      assertThat(content(fileB.mapped(0, 512))).isEqualTo(Arrays.copyOf(b, 512));
      assertThat(fileA.windowsMapped()).as("the idle file's windows, reclaimed").isZero();
      assertThat(fileA.channel().isOpen()).isTrue();

      assertThat(reader.acquire(SegmentFormat.location(1, 0))).isSameAs(fileA);
      assertThat(content(fileA.mapped(WINDOW, 512))).isEqualTo(Arrays.copyOfRange(a, WINDOW, WINDOW + 512));
      assertThat(fileB.mapped(WINDOW, 512)).as("the bound, spent on held files").isNull();
      assertThat(fileA.windowsMapped()).isEqualTo(1);
      assertThat(fileB.windowsMapped()).isEqualTo(1);
      assertThat(reader.windowsMapped()).isEqualTo(2);
      reader.release(fileA);
      reader.release(fileB);
    }
  }

  @Test
  void closingTheReaderLeavesAHeldFileMappedUntilItsLastRelease() throws Exception {
    byte[] bytes = bytes(WINDOW, 8);
    Path file = SegmentFormat.path(dir, 1);
    Files.write(file, bytes);
    SegmentPageReader reader = new SegmentPageReader(dir, 512, new StoreStats(), 4, WINDOW);
    SegmentPageReader.Handle handle = reader.acquire(SegmentFormat.location(1, 0));
    ByteBuffer sent = handle.mapped(0, WINDOW);
    reader.close();
    assertThat(handle.channel().isOpen()).isTrue();
    assertThat(content(sent)).isEqualTo(bytes);
    reader.release(handle);
    assertThat(handle.channel().isOpen()).isFalse();
    assertThat(mappingsOf(file)).isZero();
  }

  private static byte[] bytes(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static byte[] content(ByteBuffer buffer) {
    assertThat(buffer).isNotNull();
    assertThat(buffer.isReadOnly()).isTrue();
    byte[] out = new byte[buffer.remaining()];
    buffer.duplicate().get(out);
    return out;
  }

  private static long mappingsOf(Path file) throws IOException {
    String name = file.toAbsolutePath().toString();
    return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.endsWith(name)).count();
  }
}
