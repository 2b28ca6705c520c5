package io.fffs.namenode;

import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/** NameNode configuration: each key beside its default and typed getter. */
public final class NameNodeConfigKeys {
  /** Directory of images and edit-log segments; formatted on first start when empty. */
  public static final String NAME_DIR_KEY = "fffs.namenode.name.dir";
  public static final String NAME_DIR_DEFAULT = "./fffs-data/name";

  /**
   * RPC address (host:port) clients and DataNodes use, and the NameNode advertises; port 0 picks a free one. It
   * binds this host too unless {@code fffs.namenode.rpc-bind-host} says otherwise.
   */
  public static final String RPC_ADDRESS_KEY = "fffs.namenode.rpc-address";
  public static final String RPC_ADDRESS_DEFAULT = "127.0.0.1:8020";
  /** The host the RPC server binds (e.g. {@code 0.0.0.0}: every interface), when not rpc-address's host. */
  public static final String RPC_BIND_HOST_KEY = "fffs.namenode.rpc-bind-host";
  public static final String RPC_HANDLERS_KEY = "fffs.namenode.handler.count";
  public static final int RPC_HANDLERS_DEFAULT = 10;

  /** HTTP address of /status, /jmx, /prom, /conf, advertised as it is; port 0 picks a free one. */
  public static final String HTTP_ADDRESS_KEY = "fffs.namenode.http-address";
  public static final String HTTP_ADDRESS_DEFAULT = "127.0.0.1:9870";
  /** The host the HTTP server binds, when not http-address's host. */
  public static final String HTTP_BIND_HOST_KEY = "fffs.namenode.http-bind-host";

  /**
   * Include and exclude files of DataNode hosts (one a line): only hosts the include file lists (all, when unset or
   * empty) and the exclude file does not may register; {@code bin/fffs admin -refreshNodes} re-reads both.
   */
  public static final String HOSTS_KEY = "fffs.namenode.hosts";
  public static final String HOSTS_EXCLUDE_KEY = "fffs.namenode.hosts.exclude";

  /**
   * The retry cache: the answers of changes of the last {@code expiry}, by Hadoop IPC client id and call id, so that
   * a call retried after a lost connection is answered once more rather than made twice. Off: every call is made.
   */
  public static final String RETRY_CACHE_ENABLED_KEY = "fffs.namenode.retry-cache.enabled";
  public static final boolean RETRY_CACHE_ENABLED_DEFAULT = true;
  public static final String RETRY_CACHE_EXPIRY_KEY = "fffs.namenode.retry-cache.expiry";
  public static final long RETRY_CACHE_EXPIRY_DEFAULT_MS = 10 * 60_000;
  /** The share of the heap the retry cache's table may take (its entries beyond that push out the oldest). */
  public static final String RETRY_CACHE_HEAP_PERCENT_KEY = "fffs.namenode.retry-cache.heap-percent";
  public static final float RETRY_CACHE_HEAP_PERCENT_DEFAULT = 0.03f;

  /** A checkpoint is written after this many transactions. */
  public static final String CHECKPOINT_TXNS_KEY = "fffs.namenode.checkpoint.txns";
  public static final long CHECKPOINT_TXNS_DEFAULT = 100_000;

  public static final String LEASE_SOFT_LIMIT_KEY = "fffs.namenode.lease.soft-limit";
  public static final long LEASE_SOFT_LIMIT_DEFAULT_MS = 60_000;
  public static final String LEASE_HARD_LIMIT_KEY = "fffs.namenode.lease.hard-limit";
  public static final long LEASE_HARD_LIMIT_DEFAULT_MS = 20 * 60_000;

  /**
   * How long lease recovery waits for the live DataNodes to confirm a writer fence before it closes the file anyway
   * (a DataNode that has not confirmed refuses the old writer once it hears of the fence).
   */
  public static final String WRITER_FENCE_TIMEOUT_KEY = "fffs.namenode.writer-fence.timeout";
  public static final long WRITER_FENCE_TIMEOUT_DEFAULT_MS = 10_000;

  public static final String HEARTBEAT_INTERVAL_KEY = "fffs.datanode.heartbeat.interval";
  public static final long HEARTBEAT_INTERVAL_DEFAULT_MS = 3_000;
  /** A DataNode silent for this long is dead: no new blocks go to it, its locations are not handed out. */
  public static final String DATANODE_DEAD_INTERVAL_KEY = "fffs.namenode.datanode.dead-interval";
  public static final long DATANODE_DEAD_INTERVAL_DEFAULT_MS = 30_000;

  /** Fraction of known blocks that must be reported before safe mode ends. */
  public static final String SAFEMODE_THRESHOLD_KEY = "fffs.namenode.safemode.threshold";
  public static final float SAFEMODE_THRESHOLD_DEFAULT = 0.999f;
  /** Safe mode ends after this long even if blocks are missing (their DataNodes may never come back). */
  public static final String SAFEMODE_TIMEOUT_KEY = "fffs.namenode.safemode.timeout";
  public static final long SAFEMODE_TIMEOUT_DEFAULT_MS = 30_000;

  public static final String BLOCK_SIZE_KEY = "fffs.blocksize";
  public static final long BLOCK_SIZE_DEFAULT = 64L << 20;
  public static final String REPLICATION_KEY = "fffs.replication";
  public static final int REPLICATION_DEFAULT = 3;

  public static final String PERMISSIONS_ENABLED_KEY = "fffs.permissions.enabled";
  public static final boolean PERMISSIONS_ENABLED_DEFAULT = true;
  public static final String SUPERGROUP_KEY = "fffs.permissions.superusergroup";
  public static final String SUPERGROUP_DEFAULT = "supergroup";

  /**
   * The retention rule of paths no directory rule governs (docs/history.md): {@code none} keeps everything, else
   * terms such as {@code 7d}, {@code 1h/1d}, {@code 3v}.
   */
  public static final String HISTORY_DEFAULT_RULE_KEY = "fffs.history.retention.default";
  public static final String HISTORY_DEFAULT_RULE_DEFAULT = "none";
  /** How often garbage collection of history runs (0: never on its own; {@code bin/fffs history gc} runs it). */
  public static final String HISTORY_GC_INTERVAL_KEY = "fffs.history.gc.interval";
  public static final long HISTORY_GC_INTERVAL_DEFAULT_MS = 60_000;
  /**
   * Size of a garbage-collection pass's steps: each of its reads under the read lock visits about this many units
   * (inodes, names, name-history entries, file versions), and each batch under the write lock goes through about as
   * many (inodes, their versions and name entries). The replication scan reads the namespace in holds of as many.
   */
  public static final String HISTORY_GC_BATCH_INODES_KEY = "fffs.history.gc.batch-inodes";
  public static final int HISTORY_GC_BATCH_INODES_DEFAULT = 1000;

  /** Whether a garbage-collection pass that dropped something is followed by a checkpoint (old edits go). */
  public static final String HISTORY_GC_CHECKPOINT_KEY = "fffs.history.gc.checkpoint";
  public static final boolean HISTORY_GC_CHECKPOINT_DEFAULT = true;

  /** How long a restore waits for the DataNodes to copy its blocks before it gives up (changing nothing). */
  public static final String HISTORY_RESTORE_TIMEOUT_KEY = "fffs.history.restore.timeout";
  public static final long HISTORY_RESTORE_TIMEOUT_DEFAULT_MS = 600_000;

  /**
   * A DataNode silent for this long has its replicas copied elsewhere (re-replication, with their whole history).
   * Longer than the dead interval above, as in HDFS (10 min 30 s), so that a restart does not start copies.
   */
  public static final String REPLICATION_DEAD_INTERVAL_KEY = "fffs.namenode.replication.dead-interval";
  public static final long REPLICATION_DEAD_INTERVAL_DEFAULT_MS = 630_000;
  /** How often the replication monitor compares every closed block's replicas with its file's replication. */
  public static final String REPLICATION_INTERVAL_KEY = "fffs.namenode.replication.interval";
  public static final long REPLICATION_INTERVAL_DEFAULT_MS = 3_000;
  /** A block copy not reported done within this is scheduled again. */
  public static final String REPLICATION_PENDING_TIMEOUT_KEY = "fffs.namenode.replication.pending-timeout";
  public static final long REPLICATION_PENDING_TIMEOUT_DEFAULT_MS = 300_000;
  /** Block copies one DataNode is asked to send at a time (HDFS: dfs.namenode.replication.max-streams). */
  public static final String REPLICATION_MAX_STREAMS_KEY = "fffs.namenode.replication.max-streams";
  public static final int REPLICATION_MAX_STREAMS_DEFAULT = 2;

  private NameNodeConfigKeys() {}

  /**
   * The host to advertise for {@code configured}: its own host, or this machine's canonical host name when it names
   * every interface (0.0.0.0), which no client can connect to.
   */
  public static String advertisedHost(String configured) {
    try {
      java.net.InetAddress address = java.net.InetAddress.getByName(configured);
      return address.isAnyLocalAddress() ? java.net.InetAddress.getLocalHost().getCanonicalHostName() : configured;
    } catch (java.net.UnknownHostException e) {
      return configured;
    }
  }

  public static long millis(Configuration conf, String key, long defaultMillis) {
    return conf.getTimeDuration(key, defaultMillis, TimeUnit.MILLISECONDS);
  }
}
