package io.fffs.namenode;

import io.fffs.common.conf.NodeSettings;
import io.fffs.common.ipc.ClientNamenodeProtocolPB;
import io.fffs.common.ipc.DatanodeProtocolPB;
import io.fffs.common.ipc.NamenodeAdminProtocolPB;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.NamenodeAdminProtocol;
import io.fffs.common.ha.HaConfigKeys;
import io.fffs.namenode.blocks.HostFilter;
import io.fffs.namenode.ha.HaNode;
import io.fffs.namenode.permission.PermissionChecker;
import io.fffs.namenode.rpc.AdminProtocolServerSide;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.ClientNamenodeProtocol;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.ServerDefaultsProto;
import io.fffs.common.proto.DatanodeProtocolProtos.DatanodeProtocol;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.namenode.fs.FileOps;
import io.fffs.namenode.fs.Namesystem;
import io.fffs.namenode.http.StatusServlet;
import io.fffs.namenode.metrics.NameNodeMetrics;
import io.fffs.namenode.rpc.ClientNamenodeProtocolServerSide;
import io.fffs.namenode.rpc.DatanodeProtocolServerSide;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.http.HttpServer2;
import org.apache.hadoop.ipc.ProtobufRpcEngine2;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authorize.ProxyUsers;
import io.fffs.common.security.KerberosConfigKeys;
import io.fffs.namenode.security.DelegationTokenCalls;
import io.fffs.namenode.security.DelegationTokens;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A NameNode: the {@link Namesystem} behind Hadoop IPC (client and DataNode protocols on one port) and an
 * {@link HttpServer2} with {@code /status} (JSON), a status page, {@code /jmx}, {@code /prom} and {@code /conf}.
 */
public final class NameNode implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(NameNode.class);
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final Namesystem namesystem;
  private final RPC.Server rpcServer;
  /** Delegation tokens (Kerberos only; else null). */
  private DelegationTokens delegationTokens;
  private final HttpServer2 httpServer;
  private final InetSocketAddress rpcAddress;
  private final String metricsName;

  private final String rpcHost;
  private final String httpHost;
  /** Null for a single NameNode. */
  private HaNode ha;
  private volatile boolean reloadWanted;
  private boolean closed;

  private NameNode(Configuration conf, Namesystem namesystem, RPC.Server rpcServer, HttpServer2 httpServer,
      String metricsName) {
    this.namesystem = namesystem;
    this.rpcServer = rpcServer;
    this.httpServer = httpServer;
    this.rpcAddress = NetUtils.getConnectAddress(rpcServer);
    this.metricsName = metricsName;
    this.rpcHost = NameNodeConfigKeys.advertisedHost(configuredHost(conf, NameNodeConfigKeys.RPC_ADDRESS_KEY,
        NameNodeConfigKeys.RPC_ADDRESS_DEFAULT));
    this.httpHost = NameNodeConfigKeys.advertisedHost(configuredHost(conf, NameNodeConfigKeys.HTTP_ADDRESS_KEY,
        NameNodeConfigKeys.HTTP_ADDRESS_DEFAULT));
  }

  private static String configuredHost(Configuration conf, String key, String defaultAddress) {
    return NetUtils.createSocketAddr(conf.getTrimmed(key, defaultAddress), 0, key).getHostString();
  }

  /** Where a server binds: the bind-host key's host if set, else the address key's host, on its port. */
  private static InetSocketAddress bindAddress(Configuration conf, String addressKey, String defaultAddress,
      String bindHostKey) {
    InetSocketAddress configured = NetUtils.createSocketAddr(conf.getTrimmed(addressKey, defaultAddress), 0,
        addressKey);
    String bindHost = conf.getTrimmed(bindHostKey, "");
    return InetSocketAddress.createUnresolved(bindHost.isEmpty() ? configured.getHostString() : bindHost,
        configured.getPort());
  }

  /** Loads (formatting if empty) the name directory of {@code conf} and starts serving. */
  public static NameNode start(Configuration conf, PhysicalClock physicalClock, java.util.function.LongSupplier
      nanoTime) throws IOException {
    String nameservice = HaConfigKeys.ownNameservice(conf);
    if (nameservice != null) {
      conf = HaNode.resolve(conf, nameservice);
    }
    Path nameDir = NodeSettings.writableDirectory(NameNodeConfigKeys.NAME_DIR_KEY,
        Paths.get(conf.get(NameNodeConfigKeys.NAME_DIR_KEY, NameNodeConfigKeys.NAME_DIR_DEFAULT)));
    // With Kerberos the NameNode logs in from its keytab first: it is then the superuser, as HDFS's is.
    KerberosConfigKeys.loginNameNode(conf, hostOf(conf.get(NameNodeConfigKeys.RPC_ADDRESS_KEY,
        NameNodeConfigKeys.RPC_ADDRESS_DEFAULT)));
    ProxyUsers.refreshSuperUserGroupsConfiguration(conf);
    String superUser = UserGroupInformation.getCurrentUser().getShortUserName();
    HybridLogicalClock clock = new HybridLogicalClock(physicalClock, conf);
    HaNode ha = null;
    java.util.concurrent.atomic.AtomicReference<NameNode> started = new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.atomic.AtomicBoolean staleEarly = new java.util.concurrent.atomic.AtomicBoolean();
    Namesystem namesystem;
    if (nameservice == null) {
      namesystem = new Namesystem(conf, nameDir, clock, nanoTime, superUser);
    } else {
      Configuration haConf = conf;
      ha = HaNode.start(conf, nameservice, nameDir, (image, journal, leadership) -> Namesystem.replicated(haConf,
          image, HaNode.clusterId(nameservice), lastTxid -> journal, leadership, clock, nanoTime, superUser),
          () -> {
            NameNode running = started.get();
            if (running != null) {
              running.reload();
            } else {
              staleEarly.set(true);
            }
          });
      namesystem = ha.namesystem();
    }
    RPC.Server rpc = null;
    HttpServer2 http = null;
    DelegationTokens delegationTokens = null;
    try {
      namesystem.datanodes().setHosts(new HostFilter(hostsFile(conf, NameNodeConfigKeys.HOSTS_KEY),
          hostsFile(conf, NameNodeConfigKeys.HOSTS_EXCLUDE_KEY)));
      delegationTokens = KerberosConfigKeys.enabled(conf) ? DelegationTokens.start(conf, namesystem) : null;
      rpc = startRpc(conf, namesystem, ha, new PermissionChecker(conf.getBoolean(
          NameNodeConfigKeys.PERMISSIONS_ENABLED_KEY, NameNodeConfigKeys.PERMISSIONS_ENABLED_DEFAULT), superUser,
          conf.get(NameNodeConfigKeys.SUPERGROUP_KEY, NameNodeConfigKeys.SUPERGROUP_DEFAULT)), nanoTime,
          delegationTokens);
      http = startHttp(conf, namesystem);
      String metricsName = "NameNode-" + INSTANCES.incrementAndGet();
      NameNodeMetrics.register(metricsName, namesystem);
      NameNode nameNode = new NameNode(conf, namesystem, rpc, http, metricsName);
      nameNode.delegationTokens = delegationTokens;
      nameNode.ha = ha;
      started.set(nameNode);
      if (staleEarly.get()) {
        nameNode.reload();
      }
      if (ha != null) {
        http.setAttribute(StatusServlet.HA_ATTRIBUTE, ha);
      }
      http.setAttribute(StatusServlet.ADDRESSES_ATTRIBUTE, new String[] {nameNode.uri().toString(),
          nameNode.httpUri().toString()});
      LOG.info("NameNode up: rpc {}, http {}", nameNode.uri(), nameNode.httpUri());
      return nameNode;
    } catch (IOException | RuntimeException e) {
      if (rpc != null) {
        rpc.stop();
      }
      if (delegationTokens != null) {
        delegationTokens.stopThreads();
      }
      stopHttp(http);
      if (ha != null) {
        ha.close();
      }
      namesystem.close();
      throw e;
    }
  }

  private static Path hostsFile(Configuration conf, String key) {
    String file = conf.getTrimmed(key, "");
    return file.isEmpty() ? null : Paths.get(file);
  }

  /** The host name {@code _HOST} in a principal stands for, for a daemon bound to {@code address}. */
  static String hostOf(String address) throws IOException {
    java.net.InetAddress bound = NetUtils.createSocketAddr(address).getAddress();
    if (bound == null || bound.isAnyLocalAddress()) {
      return java.net.InetAddress.getLocalHost().getCanonicalHostName();
    }
    return bound.getCanonicalHostName();
  }

  private static RPC.Server startRpc(Configuration conf, Namesystem namesystem, HaNode ha,
      PermissionChecker permissions,
      java.util.function.LongSupplier nanoTime, DelegationTokens delegationTokens) throws IOException {
    RPC.setProtocolEngine(conf, ClientNamenodeProtocolPB.class, ProtobufRpcEngine2.class);
    RPC.setProtocolEngine(conf, DatanodeProtocolPB.class, ProtobufRpcEngine2.class);
    RPC.setProtocolEngine(conf, NamenodeAdminProtocolPB.class, ProtobufRpcEngine2.class);
    InetSocketAddress bind = bindAddress(conf, NameNodeConfigKeys.RPC_ADDRESS_KEY,
        NameNodeConfigKeys.RPC_ADDRESS_DEFAULT, NameNodeConfigKeys.RPC_BIND_HOST_KEY);
    ServerDefaultsProto defaults = ServerDefaultsProto.newBuilder()
        .setBlockSize(conf.getLong(NameNodeConfigKeys.BLOCK_SIZE_KEY, NameNodeConfigKeys.BLOCK_SIZE_DEFAULT))
        .setBytesPerChecksum(FileOps.BYTES_PER_CHECKSUM)
        .setWritePacketSize(64 * 1024)
        .setReplication(conf.getInt(NameNodeConfigKeys.REPLICATION_KEY, NameNodeConfigKeys.REPLICATION_DEFAULT))
        .setFileBufferSize(conf.getInt("io.file.buffer.size", 4096))
        .setMaxOffsetMicros(namesystem.clock().maxOffsetMicros())
        .build();
    RPC.Builder builder = new RPC.Builder(conf)
        .setProtocol(ClientNamenodeProtocolPB.class)
        .setInstance(ClientNamenodeProtocol.newReflectiveBlockingService(
            new ClientNamenodeProtocolServerSide(namesystem, defaults, new DelegationTokenCalls(delegationTokens))))
        .setSecretManager(delegationTokens)  // null: no token authentication
        .setBindAddress(bind.getHostString())
        .setPort(bind.getPort())
        .setNumHandlers(conf.getInt(NameNodeConfigKeys.RPC_HANDLERS_KEY, NameNodeConfigKeys.RPC_HANDLERS_DEFAULT))
        .setVerbose(false);
    RPC.Server server = NodeSettings.bind(NameNodeConfigKeys.RPC_ADDRESS_KEY, NetUtils.getHostPortString(bind),
        builder::build);
    long heartbeatMs = NameNodeConfigKeys.millis(conf, NameNodeConfigKeys.HEARTBEAT_INTERVAL_KEY,
        NameNodeConfigKeys.HEARTBEAT_INTERVAL_DEFAULT_MS);
    server.addProtocol(RPC.RpcKind.RPC_PROTOCOL_BUFFER, DatanodeProtocolPB.class,
        DatanodeProtocol.newReflectiveBlockingService(new DatanodeProtocolServerSide(namesystem, heartbeatMs, conf)));
    server.addProtocol(RPC.RpcKind.RPC_PROTOCOL_BUFFER, NamenodeAdminProtocolPB.class,
        NamenodeAdminProtocol.newReflectiveBlockingService(new AdminProtocolServerSide(namesystem, permissions,
            nanoTime, ha)));
    server.start();
    return server;
  }

  private static HttpServer2 startHttp(Configuration conf, Namesystem namesystem) throws IOException {
    Configuration httpConf = new Configuration(conf);
    httpConf.setBoolean("hadoop.prometheus.endpoint.enabled", true);
    DefaultMetricsSystem.initialize("fffs");
    InetSocketAddress bind = bindAddress(conf, NameNodeConfigKeys.HTTP_ADDRESS_KEY,
        NameNodeConfigKeys.HTTP_ADDRESS_DEFAULT, NameNodeConfigKeys.HTTP_BIND_HOST_KEY);
    KerberosConfigKeys.spnego(conf, httpConf, hostOf(conf.get(NameNodeConfigKeys.HTTP_ADDRESS_KEY,
        NameNodeConfigKeys.HTTP_ADDRESS_DEFAULT)));
    HttpServer2 http = new HttpServer2.Builder()
        .setName("fffs")
        .addEndpoint(URI.create("http://" + NetUtils.getHostPortString(bind)))
        .setFindPort(false)
        .setConf(httpConf)
        .build();
    http.setAttribute(StatusServlet.NAMESYSTEM_ATTRIBUTE, namesystem);
    http.addServlet("status", "/status", StatusServlet.class);
    NodeSettings.bind(NameNodeConfigKeys.HTTP_ADDRESS_KEY, NetUtils.getHostPortString(bind), () -> {
      http.start();
      return http;
    });
    return http;
  }

  private static void stopHttp(HttpServer2 http) {
    if (http != null) {
      try {
        http.stop();
      } catch (Exception e) {
        LOG.warn("HTTP server did not stop cleanly", e);
      }
    }
  }

  public Namesystem namesystem() {
    return namesystem;
  }

  public InetSocketAddress rpcAddress() {
    return rpcAddress;
  }

  /** {@code fffs://host:port}, as advertised: rpc-address's host (not the bind host), the bound port. */
  public URI uri() {
    return URI.create("fffs://" + rpcHost + ":" + rpcAddress.getPort());
  }

  /** The HTTP server as advertised: http-address's host, the bound port. */
  public URI httpUri() {
    return URI.create("http://" + httpHost + ":" + httpServer.getConnectorAddress(0).getPort());
  }

  /** Blocks until the RPC server stops. */
  public void join() throws InterruptedException {
    rpcServer.join();
  }

  /** This NameNode's place in a highly available cluster, or null for a single NameNode. */
  public HaNode ha() {
    return ha;
  }

  /**
   * Whether this NameNode stopped itself to load its namespace again (an HA NameNode whose namespace may hold ops the
   * cluster did not commit): whoever runs it starts it again on the same directories and ports.
   */
  public boolean reloadWanted() {
    return reloadWanted;
  }

  /** Stops this NameNode (on another thread: the Raft server that asks must not wait for itself) to be restarted. */
  private void reload() {
    reloadWanted = true;
    Thread stopper = new Thread(() -> {
      try {
        close();
      } catch (IOException | RuntimeException e) {
        LOG.warn("NameNode did not stop cleanly for its reload", e);
      }
    }, "fffs-namenode-reload");
    stopper.setDaemon(true);
    stopper.start();
  }

  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      NameNodeMetrics.unregister(metricsName);
      rpcServer.stop();
      if (delegationTokens != null) {
        delegationTokens.stopThreads();
      }
      stopHttp(httpServer);
    } finally {
      // Whatever failed above, the Raft server's threads (non-daemon Netty loops among them) must stop.
      try {
        if (ha != null) {
          ha.close();
        }
      } finally {
        namesystem.close();
      }
    }
    LOG.info("NameNode stopped");
  }
}
