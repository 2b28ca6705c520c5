package io.fffs.minicluster.ha;

import io.fffs.common.ha.HaConfigKeys;
import io.fffs.common.net.FreePorts;
import io.fffs.minicluster.NodeProcess;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;

/**
 * The NameNodes of a highly available cluster {@code mycluster}, each in a JVM of its own, that a test kills with
 * SIGKILL and restarts on the same directories and ports; and, if asked for, DataNode processes that follow the
 * leader.
 */
final class HaProcessCluster implements AutoCloseable {
  static final String NAMESERVICE = "mycluster";
  private static final Pattern LAST_TXID = Pattern.compile("\"lastTxid\"\\s*:\\s*(\\d+)");

  private final Path base;
  private final Path log;
  private final int[] rpcPorts;
  private final int[] ratisPorts;
  private final int[] httpPorts;
  private final NodeProcess[] nameNodes;
  private final NodeProcess[] dataNodes;
  private final Path[] arenas;

  HaProcessCluster(Path base, int count) throws IOException {
    this(base, count, 0);
  }

  HaProcessCluster(Path base, int count, int dataNodeCount) throws IOException {
    this.base = base;
    this.log = Path.of("target", "ha-nodes-" + ProcessHandle.current().pid() + ".log").toAbsolutePath();
    this.rpcPorts = new int[count];
    this.ratisPorts = new int[count];
    this.httpPorts = new int[count];
    this.nameNodes = new NodeProcess[count];
    this.dataNodes = new NodeProcess[dataNodeCount];
    this.arenas = new Path[dataNodeCount];
    int[] ports = FreePorts.pick(3 * count);
    for (int i = 0; i < count; i++) {
      rpcPorts[i] = ports[3 * i];
      ratisPorts[i] = ports[3 * i + 1];
      httpPorts[i] = ports[3 * i + 2];
    }
    List<CompletableFuture<Void>> starts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int n = i;
      starts.add(CompletableFuture.runAsync(() -> {
        try {
          nameNodes[n] = startNameNode(n);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }));
    }
    try {
      CompletableFuture.allOf(starts.toArray(new CompletableFuture<?>[0])).join();
      for (int i = 0; i < dataNodeCount; i++) {
        arenas[i] = Path.of("/dev/shm", "fffs-ha-" + ProcessHandle.current().pid() + "-" + i);
        dataNodes[i] = startDataNode(i);
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private NodeProcess startDataNode(int i) throws IOException {
    List<String> options = sharedOptions();
    options.add("fffs.datanode.data.dir=" + base.resolve("data-" + i));
    options.add("fffs.datanode.memory.dir=" + arenas[i]);
    options.add("fffs.datanode.memory.capacity=" + (64 << 20));
    options.add("fffs.datanode.data-address=127.0.0.1:" + FreePorts.pick());
    options.add("fffs.datanode.heartbeat.interval=200ms");
    return NodeProcess.start("io.fffs.datanode.DataNodeMain", "-Xmx256m", log, options.toArray(new String[0]));
  }

  private String id(int i) {
    return "nn" + (i + 1);
  }

  /** The keys every NameNode and client of the cluster shares. */
  private List<String> sharedOptions() {
    List<String> options = new ArrayList<>();
    options.add(HaConfigKeys.NAMESERVICES_KEY + "=" + NAMESERVICE);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < nameNodes.length; i++) {
      ids.add(id(i));
      options.add(HaConfigKeys.RPC_ADDRESS_PREFIX + NAMESERVICE + "." + id(i) + "=127.0.0.1:" + rpcPorts[i]);
      options.add(HaConfigKeys.RATIS_ADDRESS_PREFIX + NAMESERVICE + "." + id(i) + "=127.0.0.1:" + ratisPorts[i]);
      options.add(HaConfigKeys.HTTP_ADDRESS_PREFIX + NAMESERVICE + "." + id(i) + "=127.0.0.1:" + httpPorts[i]);
    }
    options.add(HaConfigKeys.NAMENODES_PREFIX + NAMESERVICE + "=" + String.join(",", ids));
    return options;
  }

  private NodeProcess startNameNode(int i) throws IOException {
    List<String> options = sharedOptions();
    options.add(HaConfigKeys.NAMENODE_ID_KEY + "=" + id(i));
    options.add("fffs.namenode.name.dir=" + base.resolve(id(i)));
    options.add(HaConfigKeys.ELECTION_TIMEOUT_KEY + "=700ms");
    options.add(HaConfigKeys.SNAPSHOT_ENTRIES_KEY + "=400");
    options.add("fffs.namenode.safemode.timeout=5s");
    options.add("fffs.datanode.heartbeat.interval=200ms");
    return NodeProcess.start("io.fffs.namenode.NameNodeMain", "-Xmx256m", log, options.toArray(new String[0]));
  }

  /** A client configuration for {@code fffs://mycluster}. */
  Configuration clientConf() {
    Configuration conf = new Configuration();
    for (String option : sharedOptions()) {
      int eq = option.indexOf('=');
      conf.set(option.substring(0, eq), option.substring(eq + 1));
    }
    conf.set("fs.defaultFS", "fffs://" + NAMESERVICE);
    return conf;
  }

  /** The /status document of NameNode {@code i}, or null if it does not answer. */
  String status(int i) {
    if (nameNodes[i] == null) {
      return null;
    }
    try (InputStream in = new URL("http://127.0.0.1:" + httpPorts[i] + "/status").openStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return null;
    }
  }

  /** The NameNode that says it leads, waiting up to {@code timeoutMs} for one. */
  int awaitLeader(long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < nameNodes.length; i++) {
        String status = status(i);
        if (status != null && status.matches("(?s).*\"haRole\"\\s*:\\s*\"leader\".*")) {
          return i;
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no NameNode leads after " + timeoutMs + " ms:\n" + logTail());
  }

  /** The last txid NameNode {@code i} applied, or -1. */
  long lastTxid(int i) {
    String status = status(i);
    Matcher m = status == null ? null : LAST_TXID.matcher(status);
    return m != null && m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  void kill(int i) throws InterruptedException {
    nameNodes[i].kill();
    nameNodes[i] = null;
  }

  void restart(int i) throws IOException {
    nameNodes[i] = startNameNode(i);
  }

  String logTail() {
    try {
      List<String> lines = java.nio.file.Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    for (NodeProcess dataNode : dataNodes) {
      if (dataNode != null) {
        dataNode.close();
      }
    }
    for (NodeProcess nameNode : nameNodes) {
      if (nameNode != null) {
        nameNode.close();
      }
    }
    for (Path arena : arenas) {
      if (arena != null && java.nio.file.Files.exists(arena)) {
        try (var paths = java.nio.file.Files.walk(arena)) {
          paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
          // best effort: the directory is named after this JVM's pid
        }
      }
    }
  }
}
