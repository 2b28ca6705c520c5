package io.fffs.datanode;

import io.fffs.protocol.DataTransferConfigKeys;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.net.NetUtils;

/**
 * Configuration of the DataNode service (data server, NameNode link): each key beside its default and its typed
 * getter. The block store's keys are in {@link io.fffs.datanode.store.DataNodeConfigKeys}; the wire keys shared with
 * clients ({@code fffs.transport}, {@code fffs.datatransfer.max-frame-size}, {@code fffs.client.latency-mode}) in
 * {@link io.fffs.protocol.DataTransferConfigKeys}.
 */
public final class DataNodeServiceConfigKeys {
  /**
   * host:port the data server binds (0.0.0.0: every interface); port 0 picks a free port. Its host is advertised too
   * unless {@code fffs.datanode.hostname} is set.
   */
  public static final String DATA_ADDRESS_KEY = "fffs.datanode.data-address";
  public static final String DATA_ADDRESS_DEFAULT = "127.0.0.1:50010";

  /**
   * The host name (or address) the DataNode advertises to the NameNode and so to clients, like HDFS's
   * {@code dfs.datanode.hostname}: for a DataNode that binds 0.0.0.0, sits behind NAT or in a container. Unset: the
   * data address's host, or this machine's address when that is 0.0.0.0.
   */
  public static final String HOSTNAME_KEY = "fffs.datanode.hostname";

  /**
   * host:port of the DataNode's HTTP server (/status, /jmx, /prom, /conf, /logs); port 0 picks a free port. The
   * NameNode's page links to it at the DataNode's advertised host.
   */
  public static final String HTTP_ADDRESS_KEY = "fffs.datanode.http-address";
  public static final String HTTP_ADDRESS_DEFAULT = "127.0.0.1:0";

  /**
   * Whether the DataNode tells a client with a READ token where a block's bytes are in its arena and segment files
   * (LOCAL_READ), so a client on this host can read them itself (short-circuit). The client can then read those
   * files only if the operating system lets its user: run clients as the DataNode's user or a group that may read
   * the memory and data directories.
   */
  public static final String SHORT_CIRCUIT_KEY = "fffs.datanode.read.shortcircuit";
  public static final boolean SHORT_CIRCUIT_DEFAULT = true;

  /** The NameNode's RPC address (the NameNode's own key). */
  public static final String NAMENODE_ADDRESS_KEY = "fffs.namenode.rpc-address";
  public static final String NAMENODE_ADDRESS_DEFAULT = "127.0.0.1:8020";

  /** Whether the DataNode registers with a NameNode; off only for tests of the data path alone. */
  public static final String NAMENODE_ENABLED_KEY = "fffs.datanode.namenode.enabled";
  public static final boolean NAMENODE_ENABLED_DEFAULT = true;

  /** Time between heartbeats (the NameNode reads the same key to tell DataNodes). */
  public static final String HEARTBEAT_INTERVAL_KEY = "fffs.datanode.heartbeat.interval";
  public static final long HEARTBEAT_INTERVAL_DEFAULT_MS = 3_000;

  /** Time between full block reports (one is also sent after every registration). */
  public static final String BLOCK_REPORT_INTERVAL_KEY = "fffs.datanode.block-report.interval";
  public static final long BLOCK_REPORT_INTERVAL_DEFAULT_MS = 6 * 60 * 60_000L;

  /** How long written blocks are collected before one blockReceived call reports them. */
  public static final String BLOCK_RECEIVED_DELAY_KEY = "fffs.datanode.block-received.delay";
  public static final long BLOCK_RECEIVED_DELAY_DEFAULT_MS = 100;

  /**
   * How often the DataNode asks the NameNode for a newer retention table (garbage collection of history,
   * docs/history.md).
   */
  public static final String RETENTION_INTERVAL_KEY = "fffs.datanode.retention.interval";
  public static final long RETENTION_INTERVAL_DEFAULT_MS = 10_000;

  /** How long start-up keeps trying to register before giving up (the NameNode may start later). */
  public static final String REGISTER_TIMEOUT_KEY = "fffs.datanode.register.timeout";
  public static final long REGISTER_TIMEOUT_DEFAULT_MS = 120_000;

  /** Netty event loops of the data server (0: Netty's default, twice the cores). */
  public static final String SERVER_IO_THREADS_KEY = "fffs.datanode.server.io-threads";
  public static final int SERVER_IO_THREADS_DEFAULT = 0;

  /** Threads serving READ, BLOCK_INFO, BLOCK_CHECKSUM and SYNC (which may wait for the clock or the disk). */
  public static final String SERVER_HANDLER_THREADS_KEY = "fffs.datanode.server.handler-threads";
  public static final int SERVER_HANDLER_THREADS_DEFAULT = 8;

  /** Writes decoded but not yet applied, in the ring between the event loops and the store writer. */
  public static final String WRITE_QUEUE_CAPACITY_KEY = "fffs.datanode.server.write-queue";
  public static final int WRITE_QUEUE_CAPACITY_DEFAULT = 128;

  /**
   * Bytes per second this DataNode sends, over all its streams, when it copies blocks to other DataNodes for
   * re-replication (HDFS's balancer bandwidth plays this role there); 0: unthrottled.
   */
  public static final String REPLICATION_BANDWIDTH_KEY = "fffs.datanode.replication.bandwidth";
  public static final long REPLICATION_BANDWIDTH_DEFAULT = 100L << 20;

  /** Block copies this DataNode sends at once for re-replication; more wait (HDFS: max-streams 2). */
  public static final String REPLICATION_MAX_STREAMS_KEY = "fffs.datanode.replication.max-streams";
  public static final int REPLICATION_MAX_STREAMS_DEFAULT = 2;

  private DataNodeServiceConfigKeys() {}

  public static long replicationBandwidth(Configuration conf) {
    return Math.max(0, conf.getLongBytes(REPLICATION_BANDWIDTH_KEY, REPLICATION_BANDWIDTH_DEFAULT));
  }

  public static int replicationMaxStreams(Configuration conf) {
    return (int) positive(REPLICATION_MAX_STREAMS_KEY,
        conf.getInt(REPLICATION_MAX_STREAMS_KEY, REPLICATION_MAX_STREAMS_DEFAULT));
  }

  public static InetSocketAddress dataAddress(Configuration conf) {
    return NetUtils.createSocketAddr(conf.getTrimmed(DATA_ADDRESS_KEY, DATA_ADDRESS_DEFAULT), 0, DATA_ADDRESS_KEY);
  }

  public static InetSocketAddress httpAddress(Configuration conf) {
    return NetUtils.createSocketAddr(conf.getTrimmed(HTTP_ADDRESS_KEY, HTTP_ADDRESS_DEFAULT), 0, HTTP_ADDRESS_KEY);
  }

  public static InetSocketAddress namenodeAddress(Configuration conf) {
    return NetUtils.createSocketAddr(conf.getTrimmed(NAMENODE_ADDRESS_KEY, NAMENODE_ADDRESS_DEFAULT), 0,
        NAMENODE_ADDRESS_KEY);
  }

  /** The configured advertised host, or null. */
  public static String hostname(Configuration conf) {
    String host = conf.getTrimmed(HOSTNAME_KEY, "");
    return host.isEmpty() ? null : host;
  }

  public static boolean namenodeEnabled(Configuration conf) {
    return conf.getBoolean(NAMENODE_ENABLED_KEY, NAMENODE_ENABLED_DEFAULT);
  }

  public static long heartbeatIntervalMillis(Configuration conf) {
    return positive(HEARTBEAT_INTERVAL_KEY, conf.getTimeDuration(HEARTBEAT_INTERVAL_KEY,
        HEARTBEAT_INTERVAL_DEFAULT_MS, TimeUnit.MILLISECONDS));
  }

  public static long retentionIntervalMillis(Configuration conf) {
    return positive(RETENTION_INTERVAL_KEY, conf.getTimeDuration(RETENTION_INTERVAL_KEY,
        RETENTION_INTERVAL_DEFAULT_MS, TimeUnit.MILLISECONDS));
  }

  public static long blockReportIntervalMillis(Configuration conf) {
    return positive(BLOCK_REPORT_INTERVAL_KEY, conf.getTimeDuration(BLOCK_REPORT_INTERVAL_KEY,
        BLOCK_REPORT_INTERVAL_DEFAULT_MS, TimeUnit.MILLISECONDS));
  }

  public static long blockReceivedDelayMillis(Configuration conf) {
    return Math.max(0, conf.getTimeDuration(BLOCK_RECEIVED_DELAY_KEY, BLOCK_RECEIVED_DELAY_DEFAULT_MS,
        TimeUnit.MILLISECONDS));
  }

  public static long registerTimeoutMillis(Configuration conf) {
    return positive(REGISTER_TIMEOUT_KEY, conf.getTimeDuration(REGISTER_TIMEOUT_KEY, REGISTER_TIMEOUT_DEFAULT_MS,
        TimeUnit.MILLISECONDS));
  }

  public static int serverIoThreads(Configuration conf) {
    return Math.max(0, conf.getInt(SERVER_IO_THREADS_KEY, SERVER_IO_THREADS_DEFAULT));
  }

  public static int serverHandlerThreads(Configuration conf) {
    return (int) positive(SERVER_HANDLER_THREADS_KEY,
        conf.getInt(SERVER_HANDLER_THREADS_KEY, SERVER_HANDLER_THREADS_DEFAULT));
  }

  public static int writeQueueCapacity(Configuration conf) {
    return (int) positive(WRITE_QUEUE_CAPACITY_KEY,
        conf.getInt(WRITE_QUEUE_CAPACITY_KEY, WRITE_QUEUE_CAPACITY_DEFAULT));
  }

  private static long positive(String key, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(key + " must be positive, got " + value);
    }
    return value;
  }
}
