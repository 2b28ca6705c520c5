package io.fffs.datanode.store;

import io.fffs.common.error.FffsException;
import io.fffs.datanode.store.persist.DirectIo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.UUID;

/**
 * How a test store writes its segment files ({@code fffs.datanode.persistence.direct-io}). The persistence suites
 * run once per mode: O_DIRECT in the suite itself, the page cache in its {@code …PageCacheTest} subclass.
 */
enum PersistMode {
  DIRECT("true"),
  PAGE_CACHE("false");

  final String configValue;

  PersistMode(String configValue) {
    this.configValue = configValue;
  }

  /**
   * The data directory to use instead of the test's temporary {@code tempDir}: the same one, unless this mode is
   * O_DIRECT and its file system refuses it (tmpfs before Linux 6.6, some CI temp dirs) — then a fresh directory
   * under the module's {@code target/}, which is on the build's disk.
   */
  Path dataDir(Path tempDir) {
    if (this != DIRECT || takesDirectIo(tempDir)) {
      return tempDir;
    }
    try {
      Path dir = Files.createDirectories(Paths.get("target", "direct-io-tests", UUID.randomUUID().toString()))
          .toAbsolutePath();
      if (!takesDirectIo(dir)) {
        throw new AssertionError("neither " + tempDir + " nor " + dir + " takes O_DIRECT; the O_DIRECT suites need"
            + " a directory on a disk file system (ext4, xfs)");
      }
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean takesDirectIo(Path dir) {
    try {
      return DirectIo.choose(DirectIo.Mode.AUTO, dir, DataNodeConfigKeys.PERSISTENCE_DIRECT_IO_KEY) > 0;
    } catch (FffsException e) {
      throw new AssertionError(e);
    }
  }
}
