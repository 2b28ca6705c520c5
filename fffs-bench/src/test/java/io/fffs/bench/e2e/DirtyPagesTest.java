package io.fffs.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sync} runs between measured phases (NaN would mean it could not run). */
class DirtyPagesTest {
  @TempDir
  Path dir;

  @Test
  void syncRunsWithDirtyPagesAround() throws Exception {
    Files.write(dir.resolve("dirty"), new byte[4 << 20]);
    assertThat(DirtyPages.writeOut()).isNotNaN();
  }
}
