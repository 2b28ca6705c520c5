package io.fffs.datanode;

import io.fffs.common.conf.NodeSettings;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.security.BlockTokenConfigKeys;
import io.fffs.common.security.BlockTokenVerifier;
import io.fffs.common.security.KerberosConfigKeys;
import java.security.PrivilegedExceptionAction;
import org.apache.hadoop.security.UserGroupInformation;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.transport.TransportSelection;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.datanode.http.DataNodeHttpServer;
import io.fffs.datanode.http.DataNodeView;
import io.fffs.datanode.nn.ClockOffsetFilter;
import io.fffs.datanode.store.MemoryUsage;
import io.fffs.datanode.store.StoreStats;
import io.fffs.datanode.nn.NamenodeLink;
import io.fffs.datanode.replication.ReplicaTransfers;
import io.fffs.datanode.nn.NodeHealth;
import io.fffs.datanode.server.DataServer;
import io.fffs.datanode.server.DataServerStats;
import io.fffs.datanode.server.WriteRules;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.datanode.store.MultiLogBlockStore;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A DataNode: its clock, its block store, the data server and the link to the NameNode, started and stopped
 * together. {@link #start} opens (recovers) the store, binds the data server, registers with the NameNode (unless
 * {@code fffs.datanode.namenode.enabled=false}) and starts heartbeats; {@link #close} undoes all of it and releases
 * the ports and directories, so a new DataNode can start on the same directories in the same JVM.
 */
public final class DataNode implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(DataNode.class);

  private final HybridLogicalClock clock;
  private final BlockStore store;
  private final DataServer server;
  private final ServerTransportProvider.Server transportServer;
  private final BlockTokenVerifier blockKeys;
  private final NamenodeLink namenode;
  private final NodeHealth health;
  private final DatanodeIdProto id;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final DataNodeHttpServer http;
  private boolean closed;

  private DataNode(HybridLogicalClock clock, BlockStore store, DataServer server,
      ServerTransportProvider.Server transportServer, NamenodeLink namenode, NodeHealth health, DatanodeIdProto id,
      BlockTokenVerifier blockKeys, DataNodeHttpServer http) {
    this.http = http;
    this.blockKeys = blockKeys;
    this.clock = clock;
    this.store = store;
    this.server = server;
    this.transportServer = transportServer;
    this.namenode = namenode;
    this.health = health;
    this.id = id;
  }

  /**
   * Starts a DataNode configured by {@code conf} on the physical clock {@code physicalClock}. The TCP data server
   * always runs; a transport chosen by {@code fffs.transport} ({@link TransportSelection}, e.g. UCX from
   * {@code fffs-rdma}) runs beside it and is advertised in the DataNode's id.
   */
  public static DataNode start(Configuration conf, PhysicalClock physicalClock) throws IOException {
    TransportSelection.Choice<ServerTransportProvider> transport =
        TransportSelection.select(conf, ServerTransportProvider.class);
    if (io.fffs.protocol.DataTransferTls.enabled(conf) && !transport.tcp()) {
      // UCX moves payloads by RDMA, outside any TLS session: it cannot give integrity or privacy.
      throw new java.io.IOException(io.fffs.protocol.DataTransferTls.PROTECTION_KEY + "="
          + conf.getTrimmed(io.fffs.protocol.DataTransferTls.PROTECTION_KEY) + " needs the TCP transport, but "
          + transport.transport() + " was chosen: set fffs.transport=tcp (docs/security.md)");
    }
    HybridLogicalClock clock = new HybridLogicalClock(physicalClock, conf);
    NodeSettings.writableDirectory(DataNodeConfigKeys.DATA_DIR_KEY, DataNodeConfigKeys.dataDir(conf));
    MultiLogBlockStore store = MultiLogBlockStore.open(conf, clock);
    DataServer server = null;
    ServerTransportProvider.Server transportServer = null;
    DataNodeHttpServer http = null;
    try {
      String uuid = DatanodeIdentity.loadOrCreate(DataNodeConfigKeys.dataDir(conf));
      NodeHealth health = new NodeHealth();
      NamenodeLink.Receiver receiver = new NamenodeLink.Receiver();
      BlockTokenVerifier blockKeys = new BlockTokenVerifier(BlockTokenConfigKeys.enabled(conf), physicalClock);
      WriteRules rules = new WriteRules(clock, health::unhealthyReason, receiver, blockKeys.fences());
      server = NodeSettings.bind(DataNodeServiceConfigKeys.DATA_ADDRESS_KEY,
          conf.getTrimmed(DataNodeServiceConfigKeys.DATA_ADDRESS_KEY, DataNodeServiceConfigKeys.DATA_ADDRESS_DEFAULT),
          () -> DataServer.start(conf, store, rules, blockKeys));
      InetSocketAddress bound = server.address();
      InetSocketAddress httpAddress = DataNodeServiceConfigKeys.httpAddress(conf);
      http = NodeSettings.bind(DataNodeServiceConfigKeys.HTTP_ADDRESS_KEY,
          httpAddress.getHostString() + ":" + httpAddress.getPort(),
          () -> DataNodeHttpServer.start(conf, httpAddress));
      DatanodeIdProto.Builder idBuilder = DatanodeIdProto.newBuilder().setDatanodeUuid(uuid)
          .setHost(advertisedHost(conf, bound)).setDataPort(bound.getPort()).setIpcPort(0).setHttpPort(http.port())
          .setTransport(transport.transport());
      if (!transport.tcp()) {
        transportServer = transport.provider().start(conf, bound.getAddress().getHostAddress(), store, rules,
            blockKeys);
        idBuilder.setTransportPort(transportServer.port());
      }
      DatanodeIdProto id = idBuilder.build();
      LOG.info("DataNode {} transport: {} ({})", uuid, transport.transport(), transport.reason());
      NamenodeLink namenode = DataNodeServiceConfigKeys.namenodeEnabled(conf)
          ? startLink(conf, id, store, clock, health, receiver, blockKeys)
          : null;
      LOG.info("DataNode {} up: data {}:{} ({}), {} blocks{}", uuid, id.getHost(), id.getDataPort(),
          id.getTransport() + (transportServer == null ? "" : " on port " + id.getTransportPort()),
          store.blockReport().size(), namenode == null ? ", not registered with a NameNode" : "");
      DataNode dataNode = new DataNode(clock, store, server, transportServer, namenode, health, id, blockKeys, http);
      http.serve(dataNode.view());
      return dataNode;
    } catch (IOException | RuntimeException e) {
      closeQuietly(http);
      closeQuietly(transportServer);
      closeQuietly(server);
      store.close();
      throw e;
    }
  }

  /** The link to the NameNode, as the DataNode's Kerberos principal when security is on. */
  private static NamenodeLink startLink(Configuration conf, DatanodeIdProto id, MultiLogBlockStore store,
      HybridLogicalClock clock, NodeHealth health, NamenodeLink.Receiver receiver, BlockTokenVerifier blockKeys)
      throws IOException {
    UserGroupInformation user = KerberosConfigKeys.loginDataNode(conf,
        InetAddress.getByName(id.getHost()).getCanonicalHostName());
    try {
      return user.doAs((PrivilegedExceptionAction<NamenodeLink>) () ->
          NamenodeLink.start(conf, id, store, clock, health, receiver, blockKeys));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while registering with the NameNode");
    }
  }

  private static String advertisedHost(Configuration conf, InetSocketAddress bound) throws IOException {
    String configured = DataNodeServiceConfigKeys.hostname(conf);
    if (configured != null) {
      return configured;
    }
    InetAddress address = bound.getAddress();
    return address.isAnyLocalAddress() ? InetAddress.getLocalHost().getHostAddress() : address.getHostAddress();
  }

  private static void closeQuietly(Closeable server) {
    if (server != null) {
      try {
        server.close();
      } catch (IOException e) {
        LOG.warn("{} did not stop cleanly", server, e);
      }
    }
  }

  /** The block keys this DataNode checks tokens with (from the NameNode; tests may hand it keys). */
  public BlockTokenVerifier blockKeys() {
    return blockKeys;
  }

  /** What the HTTP server shows: a snapshot of this DataNode per request. */
  private DataNodeView view() {
    return new DataNodeView() {
      @Override
      public DatanodeIdProto id() {
        return id;
      }

      @Override
      public boolean registered() {
        return isRegistered();
      }

      @Override
      public String unhealthyReason() {
        return DataNode.this.unhealthyReason();
      }

      @Override
      public ClockOffsetFilter.Estimate clockOffset() {
        return DataNode.this.clockOffset();
      }

      @Override
      public HlcTimestamp now() {
        return clock.now();
      }

      @Override
      public HlcTimestamp durableFrontier() {
        return store.durableFrontier();
      }

      @Override
      public long physicalMicros() {
        return clock.physicalClock().currentTimeMicros();
      }

      @Override
      public MemoryUsage memory() {
        return store.memoryUsage();
      }

      @Override
      public int blocks() {
        return store.blockReport().size();
      }

      @Override
      public StoreStats storeStats() {
        return store.stats();
      }

      @Override
      public DataServerStats serverStats() {
        return server.stats();
      }

      @Override
      public ReplicaTransfers replicaTransfers() {
        return namenode == null ? null : namenode.transfers();
      }
    };
  }

  /** The HTTP server's bound address (/status, /jmx, /prom, /conf, /logs). */
  public InetSocketAddress httpAddress() {
    return http.address();
  }

  /** The data server's bound address. */
  public InetSocketAddress dataAddress() {
    return server.address();
  }

  /** How clients and the NameNode know this DataNode (uuid, host, data port, transport and its port). */
  public DatanodeIdProto datanodeId() {
    return id;
  }

  /** Stable across restarts on the same data directory. */
  public String uuid() {
    return id.getDatanodeUuid();
  }

  public BlockStore store() {
    return store;
  }

  public HybridLogicalClock clock() {
    return clock;
  }

  /** False while the NameNode says this node must not take writes (e.g. its clock is off). */
  public boolean healthy() {
    return health.healthy();
  }

  /** Why writes are refused, or null when healthy. */
  public String unhealthyReason() {
    return health.unhealthyReason();
  }

  /** This node's clock minus the NameNode's as best measured recently, or null (no NameNode or no answer yet). */
  public ClockOffsetFilter.Estimate clockOffset() {
    return namenode == null ? null : namenode.clockOffset();
  }

  /** Whether the NameNode has accepted this DataNode's registration (false without a NameNode). */
  public boolean isRegistered() {
    return namenode != null && namenode.isRegistered();
  }

  /** Sends a heartbeat now (registering again first if the NameNode asks); no-op without a NameNode. */
  public void triggerHeartbeat() {
    if (namenode != null) {
      namenode.triggerHeartbeat();
    }
  }

  /**
   * Fetches and applies the NameNode's newest retention table now (garbage collection of history); returns its
   * generation, 0 when there was nothing new or there is no NameNode.
   */
  public long pullRetention() throws IOException {
    return namenode == null ? 0 : namenode.pullRetention();
  }

  public DataServerStats serverStats() {
    return server.stats();
  }

  /** Blocks until {@link #close()} (for {@code bin/fffs datanode}). */
  public void join() throws InterruptedException {
    stopped.await();
  }

  /** Stops heartbeats, the data server (after applying queued writes) and the store. Idempotent. */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      http.close();
      if (namenode != null) {
        namenode.close();
      }
      closeQuietly(transportServer);
      server.close();
    } finally {
      store.close();
      stopped.countDown();
      LOG.info("DataNode {} stopped", uuid());
    }
  }
}
