package io.fffs.minicluster.crash;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.minicluster.NodeProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A NameNode process that cannot start (its HTTP port taken, as another process on the host may take a port a crash
 * loop picked) exits with an error instead of lingering half-started, which left the crash loop waiting for it.
 */
class NodeStartFailureTest {
  @TempDir
  Path base;

  @Test
  @Timeout(120)  // a lingering process would keep NodeProcess waiting for READY
  void aNameNodeWhoseHttpPortIsTakenExits() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int rpcPort = free.getLocalPort();
      free.close();
      assertThatThrownBy(() -> NodeProcess.start("io.fffs.namenode.NameNodeMain", base.resolve("nodes.log"),
          "fffs.namenode.name.dir=" + base.resolve("name"),
          "fffs.namenode.rpc-address=127.0.0.1:" + rpcPort,
          "fffs.namenode.http-address=127.0.0.1:" + taken.getLocalPort()))
          .isInstanceOf(IOException.class).hasMessageContaining("exited before READY (exit 1)")
          .hasMessageContaining("BindException");  // the end of its log says why
    }
  }
}
