package io.fffs.minicluster.crash;

import io.fffs.common.fault.SyncJournal;
import io.fffs.minicluster.NodeProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * A NameNode and several DataNodes, each in a JVM of its own, that a test kills with SIGKILL and restarts on the
 * same directories and ports. Replicas of a DataNode silent for 3 s are copied elsewhere, so re-replication runs
 * while a killed DataNode is down and drops the extra replicas once it is back. History is collected every 300 ms
 * where a rule says so, and the segment cleaner copies slowly out of small segment files, so both are often in
 * flight at a kill.
 */
final class ProcessCluster implements AutoCloseable {
  private final Path base;
  private final Path log;
  private final int rpcPort;
  private final int httpPort;
  private final int[] dataPorts;
  private final Path[] arenas;
  private NodeProcess nameNode;
  private final NodeProcess[] dataNodes;
  /** With power loss: a kill also drops what the node had not fsync'd (its arena, its logs' unsynced tails). */
  private final Random powerLoss;
  private int filesCut;

  ProcessCluster(Path base, int dataNodeCount) throws IOException {
    this(base, dataNodeCount, null);
  }

  /** {@code powerLoss} non-null: every kill is a power loss of the killed node, torn writes drawn from it. */
  ProcessCluster(Path base, int dataNodeCount, Random powerLoss) throws IOException {
    this.base = base;
    this.powerLoss = powerLoss;
    // Kept after the run (the temporary directory is not), for reading what the nodes did before a failure.
    this.log = Path.of("target", "crash-nodes-" + ProcessHandle.current().pid() + ".log").toAbsolutePath();
    java.util.Set<Integer> picked = new java.util.HashSet<>();
    this.rpcPort = freePort(picked);
    this.httpPort = freePort(picked);
    this.dataPorts = new int[dataNodeCount];
    this.arenas = new Path[dataNodeCount];
    this.dataNodes = new NodeProcess[dataNodeCount];
    for (int i = 0; i < dataNodeCount; i++) {
      dataPorts[i] = freePort(picked);
      arenas[i] = Path.of("/dev/shm", "fffs-inflight-" + ProcessHandle.current().pid() + "-" + i);
    }
    try {
      nameNode = startNameNode();
      for (int i = 0; i < dataNodeCount; i++) {
        dataNodes[i] = startDataNode(i);
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  String defaultFs() {
    return "fffs://127.0.0.1:" + rpcPort;
  }

  int dataNodeCount() {
    return dataNodes.length;
  }

  void killNameNode() throws InterruptedException, IOException {
    nameNode.kill();
    nameNode = null;
    if (powerLoss != null) {
      filesCut += PowerLoss.apply(journal("name"), base.resolve("name"), powerLoss);
    }
  }

  void restartNameNode() throws IOException {
    nameNode = startNameNode();
  }

  void killDataNode(int i) throws InterruptedException, IOException {
    dataNodes[i].kill();
    dataNodes[i] = null;
    if (powerLoss != null) {
      filesCut += PowerLoss.apply(journal("data-" + i), base.resolve("data-" + i), powerLoss);
      deleteArena(i);  // memory does not survive a power loss
    }
  }

  /** Log files a power loss cut back so far. */
  int filesCut() {
    return filesCut;
  }

  private Path journal(String node) {
    return base.resolve("sync-journal-" + node);
  }

  /** JVM options of a node: its heap, and with power loss the journal of what it fsync'd. */
  private List<String> jvm(String heap, String node) {
    return powerLoss == null ? List.of(heap)
        : List.of(heap, "-D" + SyncJournal.PROPERTY + "=" + journal(node));
  }

  void restartDataNode(int i) throws IOException {
    dataNodes[i] = startDataNode(i);
  }

  private NodeProcess startNameNode() throws IOException {
    return NodeProcess.start("io.fffs.namenode.NameNodeMain", jvm("-Xmx384m", "name"), log,
        "fffs.namenode.name.dir=" + base.resolve("name"),
        "fffs.namenode.rpc-address=127.0.0.1:" + rpcPort,
        "fffs.namenode.http-address=127.0.0.1:" + httpPort,
        "fffs.namenode.safemode.timeout=20s",
        "fffs.datanode.heartbeat.interval=200ms",
        "fffs.namenode.datanode.dead-interval=2s",
        "fffs.namenode.replication.dead-interval=3s",
        "fffs.namenode.replication.interval=200ms",
        "fffs.history.gc.interval=300ms");
  }

  private NodeProcess startDataNode(int i) throws IOException {
    return NodeProcess.start("io.fffs.datanode.DataNodeMain", jvm("-Xmx256m", "data-" + i), log,
        "fffs.namenode.rpc-address=127.0.0.1:" + rpcPort,
        "fffs.datanode.data.dir=" + base.resolve("data-" + i),
        "fffs.datanode.memory.dir=" + arenas[i],
        "fffs.datanode.memory.capacity=" + (64 << 20),
        "fffs.datanode.data-address=127.0.0.1:" + dataPorts[i],
        "fffs.datanode.heartbeat.interval=200ms",
        "fffs.datanode.retention.interval=300ms",
        "fffs.datanode.cleaner.interval=300ms",
        "fffs.datanode.segment.file.size=128k",
        "fffs.datanode.cleaner.bytes-per-second=1m");
  }

  /** Ports below Linux's ephemeral range (32768-60999) that no outgoing connection can take while a node is down. */
  private static final int LOW_PORTS = 12_000;
  private static final int LOW_PORTS_END = 32_768;

  /**
   * A free port below the ephemeral range: a killed node restarts on its ports, and a port of the ephemeral range
   * may meanwhile be taken by any process's outgoing connection or {@code bind(0)} (the restart then exits 1).
   * Not one of {@code picked} (probed and closed one at a time, two picks could be one port); it is added to them.
   */
  private static int freePort(java.util.Set<Integer> picked) throws IOException {
    java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
    for (int attempt = 0; attempt < 100; attempt++) {
      int port = LOW_PORTS + random.nextInt(LOW_PORTS_END - LOW_PORTS);
      if (picked.contains(port)) {
        continue;
      }
      try (ServerSocket socket = new ServerSocket(port)) {
        picked.add(port);
        return port;
      } catch (java.net.BindException taken) {
        // another process listens there: try another
      }
    }
    throw new IOException("no free port in [" + LOW_PORTS + ", " + LOW_PORTS_END + ") after 100 tries");
  }

  Path logPath() {
    return log;
  }

  /** How many lines of the nodes' log contain {@code text} but not {@code unless}: how often a task did work. */
  long logged(String text, String unless) throws IOException {
    try (var lines = Files.lines(log)) {
      return lines.filter(line -> line.contains(text) && !line.contains(unless)).count();
    }
  }

  /** The nodes' stderr, for a failure message. */
  String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    List<NodeProcess> running = new ArrayList<>();
    for (NodeProcess dataNode : dataNodes) {
      if (dataNode != null) {
        running.add(dataNode);
      }
    }
    if (nameNode != null) {
      running.add(nameNode);
    }
    running.forEach(NodeProcess::close);
    for (int i = 0; i < arenas.length; i++) {
      deleteArena(i);
    }
  }

  private void deleteArena(int i) {
    Path arena = arenas[i];
    if (arena != null && Files.exists(arena)) {
      try (var paths = Files.walk(arena)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        // best effort: /dev/shm is cleaned by the next run's pid-named directories anyway
      }
    }
  }
}
