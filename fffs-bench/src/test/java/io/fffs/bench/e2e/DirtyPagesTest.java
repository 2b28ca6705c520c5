package io.fffs.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sync} runs between measured phases and reports how long it took. */
class DirtyPagesTest {
  @TempDir
  Path dir;

  @Test
  void writesDirtyPagesOutAndSaysHowLong() throws Exception {
    Files.write(dir.resolve("dirty"), new byte[4 << 20]);
    double seconds = DirtyPages.writeOut();
    assertThat(seconds).isBetween(0.0, 120.0);
  }
}
