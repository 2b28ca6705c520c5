package io.fffs.bench.metadata;

import io.fffs.bench.BenchFiles;
import io.fffs.bench.Closeables;
import io.fffs.bench.metadata.ThroughputRunner.Measurement;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.NameNodeConfigKeys;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.qjournal.MiniQJMHACluster;
import org.apache.hadoop.hdfs.server.namenode.ha.HATestUtil;

/**
 * A contender in this JVM: an FFFS {@link MiniFffsCluster} or an HDFS {@link MiniDFSCluster}, both set up alike —
 * one DataNode, replication 1, the same block size, ten NameNode handlers, one name directory, and an edit log that
 * is fsync'd before a mutation is acknowledged (MiniDFSCluster skips that fsync unless told not to) — and one
 * {@link FileSystem} client per benchmark thread. Everything lives under {@code baseDir}, which {@link #close()}
 * removes.
 */
final class LocalSide implements MetadataSide {
  static final long BLOCK_SIZE = 64L << 20;
  private static final int HANDLERS = 10;
  /** A modification time no live file has: set after the past time, so a past lookup must reach into history. */
  private static final long TOUCHED_MTIME = 1_000_000_000_000L;

  private final String name;
  private final AutoCloseable cluster;
  private final Path baseDir;
  private final List<FileSystem> clients = new ArrayList<>();
  private final MetadataOps ops = new MetadataOps(new org.apache.hadoop.fs.Path("/bench"));
  private final ThroughputRunner runner = new ThroughputRunner();
  private TimeSpec past;
  /** Stops the leading NameNode and lets another take over; null with one NameNode. */
  private Failover failover;

  private interface Failover {
    void killLeader() throws IOException;
  }

  private LocalSide(String name, AutoCloseable cluster, Path baseDir) {
    this.name = name;
    this.cluster = cluster;
    this.baseDir = baseDir;
  }

  /** Starts a side by its {@link #name()}. */
  static LocalSide start(String name, int clients, Path baseDir) throws IOException {
    return switch (name) {
      case "FFFS" -> fffs(clients, baseDir);
      case "HDFS" -> hdfs(clients, baseDir);
      case "FFFS-HA" -> fffsHa(clients, baseDir);
      case "HDFS-HA" -> hdfsHa(clients, baseDir);
      default -> throw new IllegalArgumentException("no side named " + name + "; FFFS, FFFS-HA, HDFS or HDFS-HA");
    };
  }

  static LocalSide fffs(int clients, Path baseDir) throws IOException {
    Configuration conf = new Configuration();
    conf.setLong(NameNodeConfigKeys.BLOCK_SIZE_KEY, BLOCK_SIZE);
    conf.setInt(NameNodeConfigKeys.REPLICATION_KEY, 1);
    conf.setInt(NameNodeConfigKeys.RPC_HANDLERS_KEY, HANDLERS);
    MiniFffsCluster fffs = MiniFffsCluster.builder().baseDir(baseDir).numDataNodes(1).conf(conf).build();
    LocalSide side = new LocalSide("FFFS", fffs, baseDir);
    return side.connect(clients, () -> FileSystem.newInstance(fffs.getURI(), fffs.getConfiguration()));
  }

  /** FFFS with three NameNodes in a Raft group ({@code fffs://mycluster}), set up as {@link #fffs} otherwise. */
  static LocalSide fffsHa(int clients, Path baseDir) throws IOException {
    Configuration conf = new Configuration();
    conf.setLong(NameNodeConfigKeys.BLOCK_SIZE_KEY, BLOCK_SIZE);
    conf.setInt(NameNodeConfigKeys.REPLICATION_KEY, 1);
    conf.setInt(NameNodeConfigKeys.RPC_HANDLERS_KEY, HANDLERS);
    MiniFffsCluster fffs = MiniFffsCluster.builder().baseDir(baseDir).numNameNodes(3).numDataNodes(1).conf(conf)
        .build();
    LocalSide side = new LocalSide("FFFS-HA", fffs, baseDir);
    side.failover = () -> {
      for (int i = 0; i < fffs.getNumNameNodes(); i++) {
        if (fffs.getNameNode(i) != null && fffs.getNameNode(i).ha().isLeader()) {
          fffs.stopNameNode(i);
          return;
        }
      }
      throw new IOException("no NameNode of FFFS-HA leads");
    };
    return side.connect(clients, () -> FileSystem.newInstance(fffs.getURI(), fffs.getConfiguration()));
  }

  private static Configuration hdfsConf(Path baseDir) {
    Configuration conf = new HdfsConfiguration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, baseDir.toString());
    conf.setInt(DFSConfigKeys.DFS_REPLICATION_KEY, 1);
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, BLOCK_SIZE);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, HANDLERS);
    return conf;
  }

  /**
   * HDFS with HA as its tests run it ({@code MiniQJMHACluster}): an active and a standby NameNode sharing their
   * edits through three JournalNodes, clients on the logical name with HDFS's failover proxy, set up as
   * {@link #hdfs} otherwise. Without ZKFC nothing fails over on its own: its failover stops the active NameNode and
   * makes the standby active at once, as ZKFC would once its ZooKeeper session expired.
   */
  static LocalSide hdfsHa(int clients, Path baseDir) throws IOException {
    Configuration conf = hdfsConf(baseDir);
    MiniQJMHACluster.Builder builder = new MiniQJMHACluster.Builder(conf, baseDir.toFile());
    builder.getDfsBuilder().numDataNodes(1).skipFsyncForTesting(false).enableManagedDfsDirsRedundancy(false);
    MiniQJMHACluster qjm = builder.build();
    LocalSide side = new LocalSide("HDFS-HA", qjm::shutdown, baseDir);
    MiniDFSCluster hdfs = qjm.getDfsCluster();
    Configuration clientConf = new Configuration(hdfs.getConfiguration(0));
    URI uri;
    try {
      hdfs.transitionToActive(0);
      hdfs.waitActive();
      HATestUtil.setFailoverConfigurations(hdfs, clientConf);
      uri = HATestUtil.getLogicalUri(hdfs);
    } catch (IOException | RuntimeException | java.net.URISyntaxException e) {
      side.close();
      throw e instanceof IOException io ? io : new IOException(e);
    }
    side.failover = () -> {
      hdfs.shutdownNameNode(0);
      hdfs.transitionToActive(1);
    };
    return side.connect(clients, () -> FileSystem.newInstance(uri, clientConf));
  }

  static LocalSide hdfs(int clients, Path baseDir) throws IOException {
    Configuration conf = hdfsConf(baseDir);
    MiniDFSCluster hdfs = new MiniDFSCluster.Builder(conf)
        .numDataNodes(1)
        .skipFsyncForTesting(false)
        .enableManagedDfsDirsRedundancy(false)
        .build();
    LocalSide side = new LocalSide("HDFS", () -> hdfs.shutdown(true), baseDir);
    try {
      hdfs.waitActive();
    } catch (IOException | RuntimeException e) {
      side.close();
      throw e;
    }
    return side.connect(clients, () -> FileSystem.newInstance(hdfs.getURI(), hdfs.getConfiguration(0)));
  }

  private interface ClientFactory {
    FileSystem newClient() throws IOException;
  }

  private LocalSide connect(int count, ClientFactory factory) throws IOException {
    try {
      for (int i = 0; i < count; i++) {
        clients.add(factory.newClient());
      }
      return this;
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void prepare() throws IOException {
    runner.forEach(clients, ops.populate(), MetadataOps.LISTING_SIZE);
    if (clients.get(0) instanceof FreezeFrameFileSystem fffs) {
      past = TimeSpec.system(fffs.currentTime().physicalMicros());
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
    runner.forEach(clients, ops.touch(TOUCHED_MTIME), MetadataOps.LISTING_SIZE);
    if (past != null) {
      FreezeFrameFileSystem fffs = (FreezeFrameFileSystem) clients.get(0);
      FileStatus then = fffs.getFileStatus(ops.file(0), past);
      FileStatus now = fffs.getFileStatus(ops.file(0));
      if (then.getModificationTime() == TOUCHED_MTIME || now.getModificationTime() != TOUCHED_MTIME) {
        throw new IOException("past lookup did not see the past: mtime then " + then.getModificationTime()
            + ", now " + now.getModificationTime());
      }
    }
  }

  @Override
  public Measurement run(Measured op, int threads, long nanos) throws IOException {
    MetadataOp action = switch (op) {
      case CREATE -> ops.create();
      case MKDIRS -> ops.mkdirs();
      case STAT -> ops.statLatest();
      case STAT_PAST -> {
        if (past == null) {
          throw new IOException(name + " has no past time: prepare() first, and only FFFS reads the past");
        }
        yield ops.statPast(past);
      }
      case LIST -> ops.list();
    };
    return runner.run(clients, threads, action, nanos);
  }

  /** Stops the leading NameNode; returns the milliseconds from then to the first file created and closed. */
  @Override
  public long failoverMillis() throws IOException {
    if (failover == null) {
      throw new IOException(name + " has one NameNode: nothing to fail over to");
    }
    long started = System.nanoTime();
    failover.killLeader();
    clients.get(0).create(new org.apache.hadoop.fs.Path("/after-failover"), true).close();
    return (System.nanoTime() - started) / 1_000_000;
  }

  /** Closes the clients, shuts the cluster down and removes its directory; reports the first failure. */
  @Override
  public void close() throws IOException {
    IOException failure = null;
    try {
      Closeables.closeAll(clients);
    } catch (IOException e) {
      failure = e;
    }
    try {
      cluster.close();
    } catch (Exception e) {
      failure = failure == null ? new IOException("stopping " + name + ": " + e, e) : failure;
    }
    BenchFiles.deleteRecursively(baseDir);
    if (failure != null) {
      throw failure;
    }
  }
}
