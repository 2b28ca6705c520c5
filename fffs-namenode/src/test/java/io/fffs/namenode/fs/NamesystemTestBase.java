package io.fffs.namenode.fs;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A {@link NamesystemFixture} per test, in a directory of its own, on the fixture's manual clock. */
abstract class NamesystemTestBase {
  @TempDir
  Path dir;
  NamesystemFixture nn;

  @BeforeEach
  void start() throws Exception {
    nn = new NamesystemFixture(dir, NamesystemFixture.conf());
  }

  @AfterEach
  void stop() throws Exception {
    nn.close();
  }
}
