package io.fffs.minicluster;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.net.FreePorts;
import io.fffs.common.time.PhysicalClock;
import io.fffs.datanode.DataNode;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.http.HttpConfigKeys;
import io.fffs.http.WebHdfsGateway;
import io.fffs.common.ha.HaConfigKeys;
import io.fffs.namenode.NameNode;
import io.fffs.namenode.NameNodeConfigKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * A NameNode and N DataNodes in one JVM, talking over real loopback sockets (Ozone's {@code MiniOzoneCluster} is
 * the model). Data lives under a base directory (arena pages under {@code /dev/shm}), so nodes can be stopped and
 * restarted on the same state; each node can run on its own {@link PhysicalClock} (skewed-clock tests). With
 * {@link Builder#webHdfs}, WebHDFS gateways run too: one beside the NameNode ({@link #getWebHdfsURI}) that redirects
 * data to one beside each DataNode. No {@code System.exit}: everything is stopped by {@link #close()}.
 */
public final class MiniFffsCluster implements AutoCloseable {
  private final Configuration conf;
  private final Path baseDir;
  private final Path memoryBase;
  private final boolean ownsMemoryBase;
  private final PhysicalClock nameNodeClock;
  private final Map<Integer, PhysicalClock> dataNodeClocks;
  private final Map<Integer, String> dataNodeHosts;
  private final Map<Integer, Map<String, String>> dataNodeSettings;
  private final int numDataNodes;
  private final long readyTimeoutMs;
  private NameNode nameNode;
  /** The NameNodes of a highly available cluster ({@link Builder#numNameNodes} above 1), else null. */
  private final NameNode[] haNameNodes;
  private final List<Configuration> haConfs = new ArrayList<>();
  private final List<DataNode> dataNodes = new ArrayList<>();
  private final List<Configuration> dataNodeConfs = new ArrayList<>();
  private final int webHdfsPort;
  private WebHdfsGateway nameGateway;
  private final List<WebHdfsGateway> dataGateways = new ArrayList<>();

  private MiniFffsCluster(Builder builder) throws IOException {
    this.conf = new Configuration(builder.conf);
    this.baseDir = builder.baseDir;
    this.numDataNodes = builder.numDataNodes;
    this.nameNodeClock = builder.nameNodeClock;
    this.dataNodeClocks = builder.dataNodeClocks;
    this.dataNodeHosts = builder.dataNodeHosts;
    this.dataNodeSettings = builder.dataNodeSettings;
    this.readyTimeoutMs = builder.readyTimeoutMs;
    this.webHdfsPort = builder.webHdfs ? builder.webHdfsPort : -1;
    this.ownsMemoryBase = builder.memoryBase == null;
    this.memoryBase = builder.memoryBase != null ? builder.memoryBase
        : Paths.get("/dev/shm", "fffs-mini-" + UUID.randomUUID().toString().substring(0, 8));
    this.haNameNodes = builder.numNameNodes > 1 ? new NameNode[builder.numNameNodes] : null;
    if (haNameNodes != null) {
      configureHa(builder);
    }
    conf.setIfUnset(NameNodeConfigKeys.NAME_DIR_KEY, baseDir.resolve("name").toString());
    conf.setIfUnset(NameNodeConfigKeys.RPC_ADDRESS_KEY, "127.0.0.1:" + builder.nameNodePort);
    conf.setIfUnset(NameNodeConfigKeys.HTTP_ADDRESS_KEY, "127.0.0.1:" + builder.httpPort);
    conf.setIfUnset(NameNodeConfigKeys.HEARTBEAT_INTERVAL_KEY, "200ms");
    conf.setIfUnset(NameNodeConfigKeys.SAFEMODE_TIMEOUT_KEY, "30s");
    conf.setIfUnset(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, String.valueOf(builder.memoryCapacity));
    conf.setIfUnset("fs.fffs.impl.disable.cache", "true");
    conf.setIfUnset("fs.AbstractFileSystem.fffs.impl", "io.fffs.client.Fffs");
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The logical name of a highly available mini cluster: {@code fffs://mycluster}. */
  public static final String NAMESERVICE = "mycluster";

  /**
   * The keys of HA cluster {@link #NAMESERVICE}: NameNode {@code i} (nn1, nn2, ...) on the RPC and HTTP ports the
   * builder gave (then the next ones) or free ports, a free Raft port, its own name directory; DataNodes and clients
   * find them by the logical name.
   */
  private void configureHa(Builder builder) throws IOException {
    List<String> ids = new ArrayList<>();
    // HTTP ports are picked with the others: an HTTP server binding port 0 could take a port picked for a later
    // NameNode's RPC before that NameNode starts.
    int[] ports = FreePorts.pick(3 * haNameNodes.length);
    for (int i = 0; i < haNameNodes.length; i++) {
      String id = "nn" + (i + 1);
      ids.add(id);
      int rpcPort = builder.nameNodePort == 0 ? ports[3 * i] : builder.nameNodePort + i;
      int httpPort = builder.httpPort == 0 ? ports[3 * i + 2] : builder.httpPort + i;
      conf.set(HaConfigKeys.RPC_ADDRESS_PREFIX + NAMESERVICE + "." + id, "127.0.0.1:" + rpcPort);
      conf.set(HaConfigKeys.RATIS_ADDRESS_PREFIX + NAMESERVICE + "." + id, "127.0.0.1:" + ports[3 * i + 1]);
      conf.set(HaConfigKeys.HTTP_ADDRESS_PREFIX + NAMESERVICE + "." + id, "127.0.0.1:" + httpPort);
    }
    conf.set(HaConfigKeys.NAMESERVICES_KEY, NAMESERVICE);
    conf.set(HaConfigKeys.NAMENODES_PREFIX + NAMESERVICE, String.join(",", ids));
    conf.setIfUnset(HaConfigKeys.ELECTION_TIMEOUT_KEY, "500ms");
    // DataNodes (which read this key) follow the leader of the cluster it names.
    conf.set(NameNodeConfigKeys.RPC_ADDRESS_KEY, NAMESERVICE);
    for (int i = 0; i < haNameNodes.length; i++) {
      Configuration own = new Configuration(conf);
      own.set(HaConfigKeys.NAMENODE_ID_KEY, ids.get(i));
      own.set(NameNodeConfigKeys.NAME_DIR_KEY, baseDir.resolve("name-" + ids.get(i)).toString());
      haConfs.add(own);
    }
  }

  /** Starts the NameNode and the DataNodes and waits until every DataNode is registered and safe mode is off. */
  private MiniFffsCluster start() throws IOException {
    startNameNode();
    for (int i = 0; i < numDataNodes; i++) {
      Configuration dnConf = new Configuration(conf);
      dnConf.set(DataNodeConfigKeys.DATA_DIR_KEY, baseDir.resolve("dn-" + i).resolve("data").toString());
      dnConf.set(DataNodeConfigKeys.MEMORY_DIR_KEY, memoryBase.resolve("dn-" + i).toString());
      dataNodeSettings.getOrDefault(i, Map.of()).forEach(dnConf::set);
      if (dataNodeHosts.containsKey(i)) {
        dnConf.set(DataNodeServiceConfigKeys.DATA_ADDRESS_KEY, dataNodeHosts.get(i) + ":0");
      }
      dnConf.setIfUnset(DataNodeServiceConfigKeys.DATA_ADDRESS_KEY, "127.0.0.1:0");
      dataNodeConfs.add(dnConf);
      dataNodes.add(startDataNode(i));
    }
    waitActive();
    if (webHdfsPort >= 0) {
      startGateways();
    }
    return this;
  }

  /** A data gateway per DataNode, then the gateway beside the NameNode that sends the data to them. */
  private void startGateways() throws IOException {
    List<String> data = new ArrayList<>();
    for (int i = 0; i < numDataNodes; i++) {
      Configuration gatewayConf = new Configuration(conf);
      gatewayConf.set(HttpConfigKeys.FILESYSTEM_KEY, getURI().toString());
      gatewayConf.set(HttpConfigKeys.ADDRESS_KEY, "127.0.0.1:0");
      WebHdfsGateway gateway = WebHdfsGateway.start(gatewayConf);
      dataGateways.add(gateway);
      data.add(gateway.hostPort());
    }
    Configuration gatewayConf = new Configuration(conf);
    gatewayConf.set(HttpConfigKeys.FILESYSTEM_KEY, getURI().toString());
    gatewayConf.set(HttpConfigKeys.ADDRESS_KEY, "127.0.0.1:" + webHdfsPort);
    gatewayConf.setStrings(HttpConfigKeys.DATA_GATEWAYS_KEY, data.toArray(new String[0]));
    nameGateway = WebHdfsGateway.start(gatewayConf);
  }

  private void startNameNode() throws IOException {
    if (haNameNodes != null) {
      for (int i = 0; i < haNameNodes.length; i++) {
        if (haNameNodes[i] == null) {
          startNameNode(i);
        }
      }
      return;
    }
    nameNode = NameNode.start(conf, nameNodeClock, System::nanoTime);
    // Restarts keep the ports, so clients and DataNodes find the NameNode again.
    conf.set(NameNodeConfigKeys.RPC_ADDRESS_KEY, "127.0.0.1:" + nameNode.rpcAddress().getPort());
    conf.set(NameNodeConfigKeys.HTTP_ADDRESS_KEY, "127.0.0.1:" + nameNode.httpUri().getPort());
    for (Configuration dnConf : dataNodeConfs) {
      dnConf.set(NameNodeConfigKeys.RPC_ADDRESS_KEY, conf.get(NameNodeConfigKeys.RPC_ADDRESS_KEY));
    }
  }

  private void startNameNode(int i) throws IOException {
    haNameNodes[i] = NameNode.start(haConfs.get(i), nameNodeClock, System::nanoTime);
  }

  /**
   * The NameNode that takes changes: the only one, or the leader of an HA cluster (waiting for one to be elected,
   * at most the ready timeout).
   */
  private NameNode active() throws IOException {
    if (haNameNodes == null) {
      return nameNode;
    }
    long deadline = System.nanoTime() + readyTimeoutMs * 1_000_000L;
    while (true) {
      for (int i = 0; i < haNameNodes.length; i++) {
        if (haNameNodes[i] != null && haNameNodes[i].reloadWanted()) {
          restartNameNode(i);  // it stopped itself to load its namespace again, as bin/fffs namenode restarts it
        }
      }
      for (NameNode candidate : haNameNodes) {
        if (candidate != null && candidate.ha().isLeader()) {
          return candidate;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("no NameNode of " + NAMESERVICE + " leads after " + readyTimeoutMs + " ms");
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted waiting for a leader", e);
      }
    }
  }

  private DataNode startDataNode(int i) throws IOException {
    Configuration dnConf = dataNodeConfs.get(i);
    dnConf.set(NameNodeConfigKeys.RPC_ADDRESS_KEY, conf.get(NameNodeConfigKeys.RPC_ADDRESS_KEY));
    DataNode dataNode = DataNode.start(dnConf, dataNodeClocks.getOrDefault(i, nameNodeClock));
    dnConf.set(DataNodeServiceConfigKeys.DATA_ADDRESS_KEY, dataNodeHosts.getOrDefault(i, "127.0.0.1") + ":"
        + dataNode.dataAddress().getPort());
    return dataNode;
  }

  /** Waits until every running DataNode is registered with the NameNode and safe mode is off. */
  public void waitActive() throws IOException {
    awaitDataNodes((int) dataNodes.stream().filter(d -> d != null).count());
  }

  /**
   * Waits until {@code count} DataNodes are live at the NameNode and safe mode is off: this cluster's own, or
   * DataNodes in other processes registered with its NameNode.
   */
  public void awaitDataNodes(int count) throws IOException {
    long deadline = System.nanoTime() + readyTimeoutMs * 1_000_000L;
    for (NameNode active = active(); active.namesystem().datanodes().liveCount() < count
        || active.namesystem().safeMode().isOn(); active = active()) {
      if (System.nanoTime() > deadline) {
        throw new IOException("cluster not ready after " + readyTimeoutMs + " ms: "
            + active.namesystem().datanodes().liveCount() + " of " + count + " DataNodes live, safe mode "
            + active.namesystem().safeMode().describe());
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted waiting for the cluster", e);
      }
    }
  }

  /** {@code fffs://127.0.0.1:port}, or {@code fffs://mycluster} for an HA cluster. */
  public URI getURI() {
    return haNameNodes != null ? URI.create("fffs://" + NAMESERVICE) : nameNode.uri();
  }

  /** A configuration whose {@code fs.defaultFS} is this cluster. */
  public Configuration getConfiguration() {
    Configuration client = new Configuration(conf);
    client.set("fs.defaultFS", getURI().toString());
    return client;
  }

  /** A new file-system client of this cluster (the caller closes it). */
  public FreezeFrameFileSystem getFileSystem() throws IOException {
    return (FreezeFrameFileSystem) FileSystem.newInstance(getURI(), getConfiguration());
  }

  /** The NameNode, or the leader of an HA cluster (waiting for one). */
  public NameNode getNameNode() {
    try {
      return active();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** NameNode {@code i} of an HA cluster (nn{@code i+1}), or null while it is stopped. */
  public NameNode getNameNode(int i) {
    return haNameNodes == null ? nameNode : haNameNodes[i];
  }

  public int getNumNameNodes() {
    return haNameNodes == null ? 1 : haNameNodes.length;
  }

  /** Stops NameNode {@code i} of an HA cluster (its state stays on disk); the others elect a leader. */
  public void stopNameNode(int i) throws IOException {
    if (haNameNodes[i] != null) {
      haNameNodes[i].close();
      haNameNodes[i] = null;
    }
  }

  /** Starts NameNode {@code i} of an HA cluster again, on the same directories and ports. */
  public void restartNameNode(int i) throws IOException {
    stopNameNode(i);
    startNameNode(i);
  }

  public DataNode getDataNode(int i) {
    return dataNodes.get(i);
  }

  public int getNumDataNodes() {
    return dataNodes.size();
  }

  public URI getHttpURI() {
    return getNameNode().httpUri();
  }

  /** {@code http://host:port} of the WebHDFS gateway beside the NameNode (needs {@link Builder#webHdfs}). */
  public URI getWebHdfsURI() {
    if (nameGateway == null) {
      throw new IllegalStateException("this cluster runs no WebHDFS gateway; build it with webHdfs(true)");
    }
    return nameGateway.uri();
  }

  /** {@code webhdfs://host:port}: the gateway beside the NameNode, for Hadoop's {@code WebHdfsFileSystem}. */
  public URI getWebHdfsFileSystemURI() {
    getWebHdfsURI();
    return nameGateway.webHdfsUri();
  }

  /** {@code http://host:port} of the data gateway beside DataNode {@code i}. */
  public URI getDataGatewayURI(int i) {
    return dataGateways.get(i).uri();
  }

  public InetSocketAddress getDataAddress(int i) {
    return dataNodes.get(i).dataAddress();
  }

  /** Stops the NameNode (of an HA cluster: every one) and starts it again on the same directory and port. */
  public void restartNameNode() throws IOException {
    if (haNameNodes != null) {
      for (int i = 0; i < haNameNodes.length; i++) {
        stopNameNode(i);
      }
    } else {
      nameNode.close();
    }
    startNameNode();
    waitActive();
  }

  /** Stops DataNode {@code i} (its state stays on disk). */
  public void stopDataNode(int i) throws IOException {
    DataNode dataNode = dataNodes.get(i);
    if (dataNode != null) {
      dataNode.close();
      dataNodes.set(i, null);
    }
  }

  /** Stops DataNode {@code i} if running and starts it again on the same directories and port. */
  public void restartDataNode(int i) throws IOException {
    stopDataNode(i);
    dataNodes.set(i, startDataNode(i));
    waitActive();
  }

  /** Stops everything and removes the arena files (the base directory stays for the caller). */
  @Override
  public void close() throws IOException {
    IOException failure = null;
    List<WebHdfsGateway> gateways = new ArrayList<>(dataGateways);
    if (nameGateway != null) {
      gateways.add(0, nameGateway);
    }
    for (WebHdfsGateway gateway : gateways) {
      try {
        gateway.close();
      } catch (IOException e) {
        failure = e;
      }
    }
    for (int i = 0; i < dataNodes.size(); i++) {
      try {
        stopDataNode(i);
      } catch (IOException e) {
        failure = e;
      }
    }
    if (nameNode != null) {
      try {
        nameNode.close();
      } catch (IOException e) {
        failure = e;
      }
    }
    if (haNameNodes != null) {
      // Each one, even after another failed to stop: an HA NameNode left running keeps Ratis's non-daemon threads.
      for (int i = 0; i < haNameNodes.length; i++) {
        try {
          stopNameNode(i);
        } catch (IOException | RuntimeException e) {
          haNameNodes[i] = null;
          failure = e instanceof IOException io ? io : new IOException(e);
        }
      }
    }
    if (ownsMemoryBase) {
      deleteRecursively(memoryBase);
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException | UncheckedIOException e) {
      // best effort: a leftover under /dev/shm is only memory until reboot
    }
  }

  /** Builds and starts a cluster. */
  public static final class Builder {
    private Configuration conf = new Configuration();
    private Path baseDir;
    private Path memoryBase;
    private int numDataNodes = 1;
    private int numNameNodes = 1;
    private int nameNodePort;
    private int httpPort;
    private boolean webHdfs;
    private int webHdfsPort;
    private long memoryCapacity = 256L << 20;
    private long readyTimeoutMs = 60_000;
    private PhysicalClock nameNodeClock = PhysicalClock.system();
    private final Map<Integer, PhysicalClock> dataNodeClocks = new HashMap<>();
    private final Map<Integer, String> dataNodeHosts = new HashMap<>();
    private final Map<Integer, Map<String, String>> dataNodeSettings = new HashMap<>();

    /**
     * NameNodes: 1 (the default) runs one; 3 (or another odd number) runs a highly available cluster,
     * {@code fffs://mycluster}, its NameNodes in one Raft group (docs/ha.md).
     */
    public Builder numNameNodes(int n) {
      this.numNameNodes = n;
      return this;
    }

    public Builder numDataNodes(int n) {
      this.numDataNodes = n;
      return this;
    }

    /** Where the NameNode's and DataNodes' persistent state goes (required). */
    public Builder baseDir(Path dir) {
      this.baseDir = dir;
      return this;
    }

    /** Where the DataNodes' arena files go (default: a fresh directory under /dev/shm, removed at close). */
    public Builder memoryDir(Path dir) {
      this.memoryBase = dir;
      return this;
    }

    public Builder conf(Configuration configuration) {
      this.conf = configuration;
      return this;
    }

    public Builder nameNodePort(int port) {
      this.nameNodePort = port;
      return this;
    }

    public Builder httpPort(int port) {
      this.httpPort = port;
      return this;
    }

    /** Runs WebHDFS gateways: beside the NameNode (on {@code port}, 0 for a free one) and beside each DataNode. */
    public Builder webHdfs(int port) {
      this.webHdfs = true;
      this.webHdfsPort = port;
      return this;
    }

    /** {@link #webHdfs(int)} on a free port. */
    public Builder webHdfs() {
      return webHdfs(0);
    }

    /** Arena bytes per DataNode (default 256 MiB). */
    public Builder memoryCapacity(long bytes) {
      this.memoryCapacity = bytes;
      return this;
    }

    public Builder nameNodeClock(PhysicalClock clock) {
      this.nameNodeClock = clock;
      return this;
    }

    /** DataNode {@code i} runs on {@code clock} (default: the NameNode's). */
    public Builder dataNodeClock(int i, PhysicalClock clock) {
      this.dataNodeClocks.put(i, clock);
      return this;
    }

    /**
     * DataNode {@code i} binds and advertises {@code host} (default 127.0.0.1): another loopback address such as
     * 127.0.0.2 makes it a host of its own, e.g. for rack mappings.
     */
    public Builder dataNodeHost(int i, String host) {
      this.dataNodeHosts.put(i, host);
      return this;
    }

    /** DataNode {@code i} runs with {@code key} set to {@code value} (over the cluster's configuration). */
    public Builder dataNodeConf(int i, String key, String value) {
      this.dataNodeSettings.computeIfAbsent(i, n -> new HashMap<>()).put(key, value);
      return this;
    }

    public Builder readyTimeoutMs(long millis) {
      this.readyTimeoutMs = millis;
      return this;
    }

    public MiniFffsCluster build() throws IOException {
      if (baseDir == null) {
        throw new IllegalStateException("baseDir is required");
      }
      Files.createDirectories(baseDir);
      MiniFffsCluster cluster = new MiniFffsCluster(this);
      try {
        return cluster.start();
      } catch (IOException | RuntimeException e) {
        cluster.close();
        throw e;
      }
    }
  }
}
