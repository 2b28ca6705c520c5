package io.fffs.bench.e2e;

import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.datanode.store.StoreStats;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.NameNodeConfigKeys;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * Start-up of the contenders, set up alike: one DataNode and replication 1 unless asked otherwise, {@link #BLOCK_SIZE} blocks, checksums on
 * (FFFS always checks CRC32C end to end; HDFS keeps its default CRC32C per 512 bytes, verified on read), an edit log
 * fsync'd before a mutation is acknowledged. Each cluster lives under its own directory of the run's temporary
 * directory, which {@link #deleteRecursively} removes at the end.
 */
public final class Clusters {
  static final long BLOCK_SIZE = 64L << 20;

  private Clusters() {}

  /**
   * An FFFS cluster with {@code memoryCapacity} bytes of arena; waits until the arena is pre-touched so that the
   * background touch does not compete with the measurement.
   */
  public static MiniFffsCluster fffs(Path dir, Configuration extra, long memoryCapacity) throws IOException {
    return fffs(dir, extra, memoryCapacity, 1, 1);
  }

  /** {@link #fffs(Path, Configuration, long)} with {@code dataNodes} DataNodes and {@code replication} by default. */
  public static MiniFffsCluster fffs(Path dir, Configuration extra, long memoryCapacity, int dataNodes,
      int replication) throws IOException {
    Configuration conf = new Configuration(extra);
    conf.setLong(NameNodeConfigKeys.BLOCK_SIZE_KEY, BLOCK_SIZE);
    conf.setInt(NameNodeConfigKeys.REPLICATION_KEY, replication);
    MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(dir).numDataNodes(dataNodes).conf(conf)
        .memoryCapacity(memoryCapacity).build();
    awaitPretouch(cluster, memoryCapacity, conf);
    return cluster;
  }

  /**
   * Waits until every DataNode's arena is pre-touched (or its toucher stopped), each at most 120 s or the time a
   * first touch takes at 0.1 GB/s, whichever is longer (a fresh tmpfs page is touched at 0.3–1 GB/s here).
   */
  public static void awaitPretouch(MiniFffsCluster cluster, long capacity, Configuration conf) throws IOException {
    if (!DataNodeConfigKeys.memoryPretouch(conf)) {
      return;
    }
    for (int i = 0; i < cluster.getNumDataNodes(); i++) {
      awaitPretouch(cluster.getDataNode(i).store().stats(), capacity, conf);
    }
  }

  private static void awaitPretouch(StoreStats stats, long capacity, Configuration conf) throws IOException {
    long pages = capacity / DataNodeConfigKeys.pageSize(conf);
    long waitSeconds = Math.max(120, capacity / 100_000_000L);
    long deadline = System.nanoTime() + waitSeconds * 1_000_000_000L;
    long last = -1;
    long stableSince = System.nanoTime();
    while (System.nanoTime() < deadline) {
      long touched = stats.pagesPretouched.sum();
      if (touched >= pages) {
        return;
      }
      if (touched != last) {
        last = touched;
        stableSince = System.nanoTime();
      } else if (System.nanoTime() - stableSince > 2_000_000_000L) {
        return; // the toucher stopped short of the count (rounding to segments): it is done
      }
      sleep(50);
    }
    Progress.say("arena pre-touch not done after %d s; measuring anyway", waitSeconds);
  }

  /** An HDFS MiniDFSCluster (the Hadoop version of the build) with one DataNode. */
  public static MiniDFSCluster hdfs(Path dir, Configuration extra) throws IOException {
    return hdfs(dir, extra, 1, 1);
  }

  /** {@link #hdfs(Path, Configuration)} with {@code dataNodes} DataNodes and {@code replication} by default. */
  public static MiniDFSCluster hdfs(Path dir, Configuration extra, int dataNodes, int replication)
      throws IOException {
    Configuration conf = new HdfsConfiguration(extra);
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.toString());
    conf.setInt(DFSConfigKeys.DFS_REPLICATION_KEY, replication);
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, BLOCK_SIZE);
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(dataNodes).skipFsyncForTesting(false)
        .enableManagedDfsDirsRedundancy(false).build();
    cluster.waitActive();
    return cluster;
  }

  /** Shuts HDFS down without its shutdown noise (interrupted service threads log at WARN and ERROR). */
  public static void shutdown(MiniDFSCluster cluster) {
    if (cluster == null) {
      return;
    }
    org.apache.log4j.Logger hadoop = org.apache.log4j.LogManager.getLogger("org.apache.hadoop");
    org.apache.log4j.Level level = hadoop.getLevel();
    hadoop.setLevel(org.apache.log4j.Level.OFF);
    try {
      cluster.shutdown(true);
    } finally {
      hadoop.setLevel(level);
    }
  }

  /** A new FFFS client whose configuration adds {@code key=value} pairs to the cluster's. */
  public static FileSystem client(MiniFffsCluster cluster, String... keyValues) throws IOException {
    Configuration conf = cluster.getConfiguration();
    set(conf, keyValues);
    return FileSystem.newInstance(cluster.getURI(), conf);
  }

  /** A new HDFS client whose configuration adds {@code key=value} pairs to the cluster's. */
  static FileSystem client(MiniDFSCluster cluster, String... keyValues) throws IOException {
    Configuration conf = new Configuration(cluster.getConfiguration(0));
    set(conf, keyValues);
    return FileSystem.newInstance(cluster.getURI(), conf);
  }

  private static void set(Configuration conf, String... keyValues) {
    for (int i = 0; i + 1 < keyValues.length; i += 2) {
      conf.set(keyValues[i], keyValues[i + 1]);
    }
  }

  static void sleep(long millis) throws IOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  static void deleteRecursively(Path dir) throws IOException {
    io.fffs.bench.BenchFiles.deleteRecursively(dir);
  }
}
