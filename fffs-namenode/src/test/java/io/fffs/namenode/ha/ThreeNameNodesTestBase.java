package io.fffs.namenode.ha;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** A test of {@link ThreeNameNodes} in a directory of its own, stopped after each test. */
abstract class ThreeNameNodesTestBase {
  @TempDir
  Path dir;

  ThreeNameNodes cluster;

  @AfterEach
  void stopCluster() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }
}
