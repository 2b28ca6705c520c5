package io.fffs.dist;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * A NameNode (or the NameNodes of an HA cluster {@code mycluster}) and DataNodes, each in a Linux network namespace
 * of its own on one bridge with its own address, process, pid and log directories, arena and data directory,
 * started with {@code bin/fffs --daemon} from an unpacked tarball. Nodes {@code 0 .. nameNodes-1} are the NameNodes,
 * the DataNodes follow. The host namespace reaches them through the bridge (address .1). Names carry a random suffix
 * so parallel runs do not clash; {@link #close} removes every namespace, the bridge and the arenas, also on failure
 * (a shutdown hook runs it if the JVM ends first).
 */
final class NetnsCluster implements AutoCloseable {
  static final int NN_PORT = 8020;
  static final int DN_PORT = 50010;
  static final int HTTP_PORT = 9864;
  static final int NN_HTTP_PORT = 9870;
  static final int RATIS_PORT = 9872;
  static final String NAMESERVICE = "mycluster";

  private final Path home;
  private final Path work;
  private final String suffix;
  private final String subnet;
  private final int nameNodes;
  private final int datanodes;
  private final List<String> namespaces = new ArrayList<>();
  private final Thread hook = new Thread(this::cleanUp, "netns-cluster-cleanup");
  private final long createdMillis = System.currentTimeMillis();
  private boolean closed;

  private NetnsCluster(Path home, Path work, int nameNodes, int datanodes) {
    this.home = home;
    this.work = work;
    this.nameNodes = nameNodes;
    this.datanodes = datanodes;
    Random random = new Random(System.nanoTime() ^ ProcessHandle.current().pid());
    this.suffix = String.format("%04x", random.nextInt(0x10000));
    this.subnet = "10." + (100 + random.nextInt(150)) + "." + random.nextInt(250);
  }

  /** Why namespaces cannot be used here, or null when they can (root, {@code ip netns}, a bridge). */
  static String unavailableReason() {
    try {
      if (!"0".equals(output("id", "-u").trim())) {
        return "not root: network namespaces need root";
      }
      String probe = "fffs-probe-" + ProcessHandle.current().pid();
      if (exec(List.of("ip", "netns", "add", probe)) != 0) {
        return "`ip netns add` failed: no iproute2 or no permission";
      }
      exec(List.of("ip", "netns", "del", probe));
      return null;
    } catch (IOException | InterruptedException e) {
      return "cannot run `ip`: " + e.getMessage();
    }
  }

  /** Builds the bridge and {@code datanodes + 1} namespaces: one NameNode without HA. */
  static NetnsCluster create(Path home, Path work, int datanodes) throws IOException, InterruptedException {
    return create(home, work, 1, datanodes);
  }

  /**
   * Builds the bridge and {@code nameNodes + datanodes} namespaces; more than one NameNode makes them the HA cluster
   * {@code fffs://mycluster}.
   */
  static NetnsCluster create(Path home, Path work, int nameNodes, int datanodes)
      throws IOException, InterruptedException {
    NetnsCluster cluster = new NetnsCluster(home, work, nameNodes, datanodes);
    Runtime.getRuntime().addShutdownHook(cluster.hook);
    try {
      cluster.build();
    } catch (IOException | InterruptedException | RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  private void build() throws IOException, InterruptedException {
    run("ip", "link", "add", bridge(), "type", "bridge");
    run("ip", "addr", "add", subnet + ".1/24", "dev", bridge());
    run("ip", "link", "set", bridge(), "up");
    for (int node = 0; node < nameNodes + datanodes; node++) {
      String ns = namespace(node);
      run("ip", "netns", "add", ns);
      namespaces.add(ns);
      run("ip", "link", "add", hostLink(node), "type", "veth", "peer", "name", "fn" + suffix + node);
      run("ip", "link", "set", "fn" + suffix + node, "netns", ns);
      run("ip", "link", "set", hostLink(node), "master", bridge(), "up");
      run("ip", "-n", ns, "addr", "add", ip(node) + "/24", "dev", "fn" + suffix + node);
      run("ip", "-n", ns, "link", "set", "fn" + suffix + node, "up");
      run("ip", "-n", ns, "link", "set", "lo", "up");
      Files.createDirectories(nodeDir(node));
    }
  }

  private String bridge() {
    return "fbr" + suffix;
  }

  /** The host side of node's link: taking it down cuts the node off. */
  String hostLink(int node) {
    return "fh" + suffix + node;
  }

  boolean isNameNode(int node) {
    return node < nameNodes;
  }

  private boolean ha() {
    return nameNodes > 1;
  }

  /** {@code nn} for the one NameNode, {@code nn1..} for HA NameNodes, {@code dnN} for DataNode node N. */
  private String nodeName(int node) {
    return isNameNode(node) ? (ha() ? "nn" + (node + 1) : "nn") : "dn" + node;
  }

  String namespace(int node) {
    return "fffs-" + suffix + "-" + nodeName(node);
  }

  String ip(int node) {
    return subnet + "." + (10 + node);
  }

  /** What clients use: the NameNode's address, or {@code fffs://mycluster}. */
  String nameNodeUri() {
    return ha() ? "fffs://" + NAMESERVICE : nameNodeUri(0);
  }

  /** NameNode {@code node} by its own address, not the logical name. */
  String nameNodeUri(int node) {
    return "fffs://" + ip(node) + ":" + NN_PORT;
  }

  /**
   * The settings every node and client of the HA cluster shares (the logical name, each NameNode's RPC, Raft and
   * HTTP address, a short call timeout), as {@code key=value}; none without HA.
   */
  List<String> haSettings() {
    List<String> settings = new ArrayList<>();
    if (!ha()) {
      return settings;
    }
    List<String> ids = new ArrayList<>();
    settings.add("fffs.nameservices=" + NAMESERVICE);
    for (int node = 0; node < nameNodes; node++) {
      String id = NAMESERVICE + "." + nodeName(node);
      ids.add(nodeName(node));
      settings.add("fffs.namenode.rpc-address." + id + "=" + ip(node) + ":" + NN_PORT);
      settings.add("fffs.namenode.ratis-address." + id + "=" + ip(node) + ":" + RATIS_PORT);
      settings.add("fffs.namenode.http-address." + id + "=" + ip(node) + ":" + NN_HTTP_PORT);
    }
    settings.add("fffs.ha.namenodes." + NAMESERVICE + "=" + String.join(",", ids));
    // How soon a client's or DataNode's call to a leader whose link is cut gives up on it and tries the others.
    settings.add("fffs.ha.call-timeout=4s");
    return settings;
  }

  /** {@code -D key=value} for each of {@code settings}. */
  static List<String> defines(List<String> settings) {
    List<String> args = new ArrayList<>();
    for (String setting : settings) {
      args.addAll(List.of("-D", setting));
    }
    return args;
  }

  String arena(int node) {
    return "/dev/shm/fffs-" + suffix + "-dn" + node;
  }

  Path nodeDir(int node) {
    return work.resolve(nodeName(node));
  }

  /**
   * The last {@code lines} lines of every node's daemon logs, headed by their file names: printed by a test that
   * failed, so the report says what the daemons saw (their directories go with the test's).
   */
  String logTails(int lines) {
    StringBuilder tails = new StringBuilder();
    for (int node = 0; node < nameNodes + datanodes; node++) {
      Path logs = nodeDir(node).resolve("log");
      if (!Files.isDirectory(logs)) {
        continue;
      }
      try (var files = Files.list(logs)) {
        for (Path log : files.sorted().toList()) {
          List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
          tails.append("==== ").append(log).append(" (last ").append(Math.min(lines, all.size())).append(" of ")
              .append(all.size()).append(" lines)\n");
          all.subList(Math.max(0, all.size() - lines), all.size()).forEach(line -> tails.append(line).append('\n'));
        }
      } catch (IOException | java.io.UncheckedIOException e) {
        tails.append("==== ").append(logs).append(": ").append(e.getMessage()).append('\n');
      }
    }
    return tails.toString();
  }

  /** The environment of node's daemon commands: its pid and log directories, a small heap, this JVM's Java. */
  Map<String, String> env(int node) {
    Map<String, String> env = new HashMap<>();
    env.put("FFFS_PID_DIR", nodeDir(node).resolve("pid").toString());
    env.put("FFFS_LOG_DIR", nodeDir(node).resolve("log").toString());
    env.put("FFFS_HEAPSIZE", isNameNode(node) ? "384m" : "256m");
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("FFFS_STOP_TIMEOUT", "60");
    return env;
  }

  /**
   * Options every node gets: quick heartbeats and death, a short safe mode, a small arena; with HA the shared
   * settings, each NameNode's id and a 700 ms election timeout (DataNodes follow the leader of the logical name).
   */
  List<String> daemonArgs(int node) {
    List<String> args = new ArrayList<>(ha() ? defines(haSettings())
        : List.of("-D", "fffs.namenode.rpc-address=" + ip(0) + ":" + NN_PORT));
    args.addAll(List.of("-D", "fffs.datanode.heartbeat.interval=500ms",
        "-D", "fffs.namenode.datanode.dead-interval=4s"));
    if (isNameNode(node)) {
      args.addAll(List.of("-D", "fffs.namenode.rpc-bind-host=0.0.0.0",
          "-D", "fffs.namenode.http-bind-host=0.0.0.0",
          "-D", "fffs.namenode.name.dir=" + nodeDir(node).resolve("name"),
          "-D", "fffs.namenode.safemode.timeout=5s"));
      args.addAll(ha() ? List.of("-D", "fffs.ha.namenode.id=" + nodeName(node),
          "-D", "fffs.ha.election-timeout=700ms")
          : List.of("-D", "fffs.namenode.http-address=" + ip(0) + ":" + NN_HTTP_PORT));
    } else {
      args.addAll(List.of("-D", "fffs.datanode.data-address=0.0.0.0:" + DN_PORT,
          "-D", "fffs.datanode.hostname=" + ip(node), "-D", "fffs.datanode.http-address=0.0.0.0:" + HTTP_PORT,
          "-D", "fffs.datanode.memory.dir=" + arena(node), "-D", "fffs.datanode.memory.capacity=64m",
          "-D", "fffs.datanode.data.dir=" + nodeDir(node).resolve("data")));
    }
    return args;
  }

  /** {@code bin/fffs --daemon ACTION role} inside node's namespace ({@code wrapper}, e.g. faketime, before it). */
  Tarball.Result daemon(int node, String action, List<String> wrapper, Map<String, String> extraEnv)
      throws IOException, InterruptedException {
    List<String> prefix = inside(node);
    prefix.addAll(wrapper);
    Map<String, String> env = env(node);
    env.putAll(extraEnv);
    List<String> args = new ArrayList<>(List.of("--daemon", action, isNameNode(node) ? "namenode" : "datanode"));
    if (action.equals("start")) {
      args.addAll(daemonArgs(node));
    }
    return Tarball.run(home, env, prefix, 240, args.toArray(new String[0]));
  }

  Tarball.Result daemon(int node, String action) throws IOException, InterruptedException {
    return daemon(node, action, List.of(), Map.of());
  }

  /** The command prefix that runs a command inside node's namespace. */
  List<String> inside(int node) {
    return new ArrayList<>(List.of("ip", "netns", "exec", namespace(node)));
  }

  /** {@code bin/fffs admin} from the host namespace against the cluster; fails unless it exits 0. */
  String admin(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("admin", "-D", "fs.defaultFS=" + nameNodeUri()));
    command.addAll(defines(haSettings()));
    command.addAll(List.of(args));
    Tarball.Result result = Tarball.run(home, Map.of("JAVA_HOME", System.getProperty("java.home")), List.of(), 120,
        command.toArray(new String[0]));
    if (result.exit() != 0) {
      throw new AssertionError("bin/fffs " + String.join(" ", command) + " exited " + result.exit() + ":\n"
          + result.output());
    }
    return result.output();
  }

  /** The /status document of NameNode {@code node}, or null when it does not answer. */
  String nameNodeStatus(int node) {
    try {
      var connection = java.net.URI.create("http://" + ip(node) + ":" + NN_HTTP_PORT + "/status").toURL()
          .openConnection();
      // A node whose link is cut must not hold the caller for the kernel's own connect timeout.
      connection.setConnectTimeout(2_000);
      connection.setReadTimeout(5_000);
      try (var in = connection.getInputStream()) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      return null;
    }
  }

  /** The pid in node's pid file. */
  long pid(int node) throws IOException {
    try (var files = Files.list(nodeDir(node).resolve("pid"))) {
      return Long.parseLong(Files.readString(files.findFirst().orElseThrow()).trim());
    }
  }

  void link(int node, boolean up) throws IOException, InterruptedException {
    run("ip", "link", "set", hostLink(node), up ? "up" : "down");
  }

  private static void run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + output);
    }
  }

  private static int exec(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getInputStream().readAllBytes();
    return process.waitFor(30, TimeUnit.SECONDS) ? process.exitValue() : -1;
  }

  private static String output(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor(30, TimeUnit.SECONDS);
    return output;
  }

  /** Kills what runs in every namespace, removes the namespaces (and their links), the bridge and the arenas. */
  private synchronized void cleanUp() {
    if (closed) {
      return;
    }
    closed = true;
    for (String ns : namespaces) {
      try {
        for (String pid : output("ip", "netns", "pids", ns).split("\\s+")) {
          if (!pid.isBlank()) {
            ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
          }
        }
      } catch (IOException | InterruptedException | NumberFormatException e) {
        // best effort: the namespace goes below in any case
      }
    }
    for (String ns : namespaces) {
      try {
        exec(List.of("ip", "netns", "del", ns));
      } catch (IOException | InterruptedException e) {
        // best effort
      }
    }
    try {
      exec(List.of("ip", "link", "del", bridge()));
      for (int node = nameNodes; node < nameNodes + datanodes; node++) {
        org.apache.hadoop.fs.FileUtil.fullyDelete(new java.io.File(arena(node)));
      }
      removeFaketimeLeftovers();
    } catch (IOException | InterruptedException e) {
      // best effort
    }
  }

  /**
   * libfaketime leaves a shared-memory segment and a semaphore in /dev/shm named after the first process that
   * loaded it ({@code faketime_shm_PID}, {@code sem.faketime_sem_PID}); those made since this cluster was created,
   * of processes that have ended, are this cluster's.
   */
  private void removeFaketimeLeftovers() throws IOException {
    java.util.regex.Pattern name = java.util.regex.Pattern.compile("(?:sem\\.)?faketime_(?:shm|sem)_(\\d+)");
    try (var entries = Files.newDirectoryStream(Path.of("/dev/shm"))) {
      for (Path entry : entries) {
        java.util.regex.Matcher matched = name.matcher(entry.getFileName().toString());
        if (matched.matches() && Files.getLastModifiedTime(entry).toMillis() >= createdMillis - 1_000
            && ProcessHandle.of(Long.parseLong(matched.group(1))).map(p -> !p.isAlive()).orElse(true)) {
          Files.deleteIfExists(entry);
        }
      }
    }
  }

  @Override
  public void close() {
    cleanUp();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is already shutting down and runs the hook itself
    }
  }
}
