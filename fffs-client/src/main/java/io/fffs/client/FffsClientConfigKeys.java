package io.fffs.client;

import io.fffs.protocol.DataTransferConfigKeys;
import org.apache.hadoop.conf.Configuration;

/** Client configuration: each key beside its default and typed getter. */
public final class FffsClientConfigKeys {
  /** Bytes a reader fetches at once when reading sequentially. */
  public static final String READ_BUFFER_SIZE_KEY = "fffs.client.read.buffer-size";
  public static final int READ_BUFFER_SIZE_DEFAULT = 1 << 20;

  /** The user-time extractor new files get (see fffs-plugins); empty for none. */
  public static final String USERTIME_PLUGIN_KEY = "fffs.usertime.plugin";

  /** How often open files' leases are renewed. */
  public static final String LEASE_RENEW_INTERVAL_KEY = "fffs.client.lease.renew-interval";
  public static final long LEASE_RENEW_INTERVAL_DEFAULT_MS = 20_000;

  /** Entries per listing page asked of the NameNode. */
  public static final String LISTING_PAGE_KEY = "fffs.client.listing.page-size";
  public static final int LISTING_PAGE_DEFAULT = 1000;

  /** Block size of new files (the NameNode's default is the same key). */
  public static final String BLOCK_SIZE_KEY = "fffs.blocksize";
  public static final long BLOCK_SIZE_DEFAULT = 64L << 20;
  /**
   * Replication of new files: how many DataNodes keep each block, with its whole history. Without it,
   * {@code dfs.replication} (which Hadoop tools set) is used, then {@link #REPLICATION_DEFAULT}.
   */
  public static final String REPLICATION_KEY = "fffs.replication";
  public static final String DFS_REPLICATION_KEY = "dfs.replication";
  public static final short REPLICATION_DEFAULT = 3;

  /**
   * Whether a writer replaces a DataNode that left a block's pipeline (HDFS's
   * {@code dfs.client.block.write.replace-datanode-on-failure.policy}): {@code NEVER}; {@code DEFAULT}, when the
   * block is written with a replication of 3 or more; {@code ALWAYS}, whenever one is lost. The replacement first
   * gets the block's history so far, copied by the primary.
   */
  public static final String REPLACE_DATANODE_POLICY_KEY = "fffs.client.replace-datanode-on-failure.policy";
  public static final String REPLACE_DATANODE_POLICY_DEFAULT = "DEFAULT";
  /**
   * Whether a write goes on when no replacement can be found or given the history (true: with the DataNodes that
   * are left, the block under-replicated until the NameNode restores it; false: the write fails, as in HDFS).
   */
  public static final String REPLACE_DATANODE_BEST_EFFORT_KEY = "fffs.client.replace-datanode-on-failure.best-effort";
  public static final boolean REPLACE_DATANODE_BEST_EFFORT_DEFAULT = true;

  /** The NameNode port when a URI names none. */
  public static final int DEFAULT_PORT = 8020;

  private FffsClientConfigKeys() {}

  /** Bytes a writer gathers before sending a packet (one block-log entry): {@code fffs.client.write.packet-size}. */
  public static int writePacketSize(Configuration conf) {
    return io.fffs.protocol.DataTransferConfigKeys.writePacketSize(conf);
  }

  /** The replication of new files: {@code fffs.replication}, else {@code dfs.replication}, else 3. */
  public static short replication(Configuration conf) {
    String value = conf.getTrimmed(REPLICATION_KEY);
    if (value == null) {
      value = conf.getTrimmed(DFS_REPLICATION_KEY);
    }
    return value == null ? REPLICATION_DEFAULT : Short.parseShort(value);
  }

  public static int readBufferSize(Configuration conf) {
    return conf.getInt(READ_BUFFER_SIZE_KEY, READ_BUFFER_SIZE_DEFAULT);
  }

  /** The plug-in name for new files, or null. */
  public static String userTimePlugin(Configuration conf) {
    String name = conf.getTrimmed(USERTIME_PLUGIN_KEY, "");
    return name.isEmpty() ? null : name;
  }
}
