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
 * The mappings a held segment file keeps for data-port answers: a window is mapped once the file holds all of it and
 * serves every stretch inside it (the bytes of the file); a stretch across two windows, or in a window the file does
 * not hold whole yet, gets none; closing the file unmaps them.
 */
class SegmentFileWindowsTest {
  private static final int WINDOW = 8192;

  @TempDir
  Path dir;

  @Test
  void windowsAreMappedWhenWholeServeTheirStretchesAndGoWithTheFile() throws Exception {
    Path file = SegmentFormat.path(dir, 1);
    byte[] bytes = new byte[3 * WINDOW];
    new Random(5).nextBytes(bytes);
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
      assertThat(mappingsOf(file)).isZero();
      assertThat(handle.mapped(100, 1000)).as("a closed file").isNull();
    }
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
