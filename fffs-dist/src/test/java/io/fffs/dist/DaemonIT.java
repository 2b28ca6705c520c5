package io.fffs.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/fffs --daemon start|status|stop} from the unpacked tarball: a NameNode and a DataNode in the
 * background with their pid and log directories, generic options after the other arguments, and a stop that waits
 * for the node to exit.
 */
class DaemonIT {
  @TempDir
  Path work;

  private Path home;
  private final Map<String, String> nameNodeEnv = new HashMap<>();
  private final Map<String, String> dataNodeEnv = new HashMap<>();
  private final String memory = "/dev/shm/fffs-daemon-it-" + ProcessHandle.current().pid();

  private Tarball.Result fffs(Map<String, String> env, String... args) throws Exception {
    return Tarball.run(home, env, List.of(), 240, args);
  }

  @AfterEach
  void stopEverything() throws Exception {
    if (home != null) {
      fffs(dataNodeEnv, "--daemon", "stop", "datanode");
      fffs(nameNodeEnv, "--daemon", "stop", "namenode");
    }
    org.apache.hadoop.fs.FileUtil.fullyDelete(new java.io.File(memory));
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Test
  void daemonsStartReportAndStopWithGenericOptionsAnywhere() throws Exception {
    home = Tarball.unpack(work);
    nameNodeEnv.putAll(Map.of("FFFS_PID_DIR", work.resolve("pid-nn").toString(), "FFFS_LOG_DIR",
        work.resolve("log-nn").toString(), "FFFS_HEAPSIZE", "256m"));
    dataNodeEnv.putAll(Map.of("FFFS_PID_DIR", work.resolve("pid-dn").toString(), "FFFS_LOG_DIR",
        work.resolve("log-dn").toString(), "FFFS_DATANODE_OPTS", "-Xmx200m"));
    String nn = "127.0.0.1:" + freePort();
    assertThat(fffs(nameNodeEnv, "--daemon", "status", "namenode").exit()).as("not running: LSB 3").isEqualTo(3);

    Tarball.Result started = fffs(nameNodeEnv, "--daemon", "start", "namenode", "-D",
        "fffs.namenode.rpc-address=" + nn, "-Dfffs.namenode.http-address=127.0.0.1:0", "-D",
        "fffs.namenode.name.dir=" + work.resolve("name"));
    assertThat(started.exit()).as(started.output()).isZero();
    assertThat(started.output()).contains("started namenode as process");
    Tarball.Result again = fffs(nameNodeEnv, "--daemon", "start", "namenode");
    assertThat(again.exit()).as("a second start is refused").isEqualTo(1);
    assertThat(again.output()).contains("is running as process");
    Tarball.Result dataNode = fffs(dataNodeEnv, "--daemon", "start", "datanode",
        "-D", "fffs.namenode.rpc-address=" + nn, "-D", "fffs.datanode.data.dir=" + work.resolve("data"),
        "-D", "fffs.datanode.memory.dir=" + memory, "-D", "fffs.datanode.data-address=127.0.0.1:0",
        "-D", "fffs.datanode.memory.capacity=32m");
    assertThat(dataNode.exit()).as(dataNode.output()).isZero();

    // Generic options after the command's own arguments, in both forms.
    Map<String, String> client = Map.of();
    assertThat(fffs(client, "dfs", "-mkdir", "-p", "/daemons/dir", "-D", "fs.defaultFS=fffs://" + nn).exit())
        .isZero();
    Tarball.Result listing = fffs(client, "dfs", "-ls", "/daemons", "-Dfs.defaultFS=fffs://" + nn);
    assertThat(listing.output()).contains("/daemons/dir");

    Tarball.Result status = fffs(nameNodeEnv, "--daemon", "status", "namenode");
    assertThat(status.exit()).isZero();
    String pid = Files.readString(work.resolve("pid-nn/fffs-" + System.getProperty("user.name") + "-namenode.pid"))
        .trim();
    assertThat(status.output()).contains("running as process " + pid);

    Tarball.Result stopped = fffs(dataNodeEnv, "--daemon", "stop", "datanode");
    assertThat(stopped.output()).contains("stopped datanode");
    assertThat(fffs(dataNodeEnv, "--daemon", "status", "datanode").exit()).isEqualTo(3);
    try (var logs = Files.list(work.resolve("log-dn"))) {
      Path log = logs.filter(p -> p.toString().endsWith(".log")).findFirst().orElseThrow();
      // The DataNode's shutdown ran to its end before stop returned: the rolled log says so.
      assertThat(Files.readString(log)).contains("Registered DataNode").contains("stopped");
    }
    assertThat(fffs(nameNodeEnv, "--daemon", "stop", "namenode").output()).contains("stopped namenode");
    assertThat(ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false)).isFalse();
  }
}
