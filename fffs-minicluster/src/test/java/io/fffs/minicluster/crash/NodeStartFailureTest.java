package io.fffs.minicluster.crash;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.minicluster.NodeProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A NameNode or DataNode process that cannot start — a port it is to bind taken (as another process on the host may
 * take a port a crash loop picked), a directory it is to write unusable — exits with a typed error naming the
 * setting instead of lingering half-started, which left the crash loop waiting for it. Each case has a timeout: a
 * lingering process would keep {@link NodeProcess} waiting for READY.
 */
class NodeStartFailureTest {
  private static final String NAMENODE = "io.fffs.namenode.NameNodeMain";
  private static final String DATANODE = "io.fffs.datanode.DataNodeMain";

  @TempDir
  Path base;

  @Test
  @Timeout(120)
  void aNameNodeWhoseHttpPortIsTakenExits() throws Exception {
    try (ServerSocket taken = listening()) {
      assertExits(NAMENODE, "fffs.namenode.http-address=127.0.0.1:" + taken.getLocalPort(),
          "fffs.namenode.name.dir=" + base.resolve("name"), "fffs.namenode.rpc-address=127.0.0.1:" + freePort(),
          "fffs.namenode.http-address=127.0.0.1:" + taken.getLocalPort())
          .hasMessageContaining("BindException");  // the end of its log says why
    }
  }

  @Test
  @Timeout(120)
  void aNameNodeWhoseIpcPortIsTakenExits() throws Exception {
    try (ServerSocket taken = listening()) {
      assertExits(NAMENODE, "fffs.namenode.rpc-address=127.0.0.1:" + taken.getLocalPort(),
          "fffs.namenode.name.dir=" + base.resolve("name"),
          "fffs.namenode.rpc-address=127.0.0.1:" + taken.getLocalPort(), "fffs.namenode.http-address=127.0.0.1:0");
    }
  }

  @Test
  @Timeout(120)
  void aNameNodeWhoseNameDirectoryCannotBeWrittenExits() throws Exception {
    Path file = Files.writeString(base.resolve("not-a-directory"), "a file where the directory should be");
    assertExits(NAMENODE, "fffs.namenode.name.dir=" + file, "fffs.namenode.name.dir=" + file,
        "fffs.namenode.rpc-address=127.0.0.1:0", "fffs.namenode.http-address=127.0.0.1:0");
  }

  @Test
  @Timeout(120)
  void aDataNodeWhoseDataPortIsTakenExits() throws Exception {
    try (ServerSocket taken = listening()) {
      assertExits(DATANODE, "fffs.datanode.data-address=127.0.0.1:" + taken.getLocalPort(),
          dataNode(base.resolve("data"), "127.0.0.1:" + taken.getLocalPort(), "127.0.0.1:0"));
    }
  }

  @Test
  @Timeout(120)
  void aDataNodeWhoseHttpPortIsTakenExits() throws Exception {
    try (ServerSocket taken = listening()) {
      assertExits(DATANODE, "fffs.datanode.http-address=127.0.0.1:" + taken.getLocalPort(),
          dataNode(base.resolve("data"), "127.0.0.1:0", "127.0.0.1:" + taken.getLocalPort()));
    }
  }

  @Test
  @Timeout(120)
  void aDataNodeWhoseDataDirectoryCannotBeWrittenExits() throws Exception {
    Path file = Files.writeString(base.resolve("not-a-directory"), "a file where the directory should be");
    assertExits(DATANODE, "fffs.datanode.data.dir=" + file, dataNode(file, "127.0.0.1:0", "127.0.0.1:0"));
  }

  /** Starts {@code mainClass}; asserts it exits 1 with {@code SETTING_UNUSABLE} naming {@code setting}. */
  private org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertExits(String mainClass,
      String setting, String... options) {
    return assertThatThrownBy(() -> NodeProcess.start(mainClass, base.resolve("node.log"), options))
        .isInstanceOf(IOException.class).hasMessageContaining("exited before READY (exit 1)")
        .hasMessageContaining("SETTING_UNUSABLE: " + setting);
  }

  /**
   * A DataNode's settings: its own directories (the memory one beside the data one, not the user's default under
   * /dev/shm) and ports, no NameNode to register with.
   */
  private static String[] dataNode(Path dataDir, String dataAddress, String httpAddress) {
    return new String[] {"fffs.datanode.data.dir=" + dataDir, "fffs.datanode.data-address=" + dataAddress,
        "fffs.datanode.http-address=" + httpAddress, "fffs.datanode.namenode.enabled=false",
        "fffs.datanode.memory.dir=" + dataDir.resolveSibling("memory"), "fffs.datanode.memory.capacity=16m"};
  }

  private static ServerSocket listening() throws IOException {
    return new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
  }

  private static int freePort() throws IOException {
    try (ServerSocket free = listening()) {
      return free.getLocalPort();
    }
  }
}
