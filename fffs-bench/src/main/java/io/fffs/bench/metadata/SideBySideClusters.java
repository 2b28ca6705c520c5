package io.fffs.bench.metadata;

import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.NameNodeConfigKeys;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * An FFFS {@link MiniFffsCluster} and an HDFS {@link MiniDFSCluster} in this JVM, set up alike: one DataNode,
 * replication 1, the same block size, ten NameNode handlers, one name directory, and an edit log that is fsync'd
 * before a mutation is acknowledged (MiniDFSCluster skips that fsync unless told not to). Each side hands out one
 * {@link FileSystem} client per benchmark thread. Everything lives under one temporary directory that
 * {@link #close()} removes.
 */
final class SideBySideClusters implements AutoCloseable {
  static final long BLOCK_SIZE = 64L << 20;
  private static final int HANDLERS = 10;

  private final Path baseDir;
  private MiniFffsCluster fffs;
  private MiniDFSCluster hdfs;
  private final List<FileSystem> fffsClients = new ArrayList<>();
  private final List<FileSystem> hdfsClients = new ArrayList<>();

  private SideBySideClusters(Path baseDir) {
    this.baseDir = baseDir;
  }

  static SideBySideClusters start(int clientsPerSide) throws IOException {
    SideBySideClusters clusters = new SideBySideClusters(Files.createTempDirectory("fffs-metabench-"));
    try {
      clusters.startFffs(clientsPerSide);
      clusters.startHdfs(clientsPerSide);
      return clusters;
    } catch (IOException | RuntimeException e) {
      clusters.close();
      throw e;
    }
  }

  private void startFffs(int clients) throws IOException {
    Configuration conf = new Configuration();
    conf.setLong(NameNodeConfigKeys.BLOCK_SIZE_KEY, BLOCK_SIZE);
    conf.setInt(NameNodeConfigKeys.REPLICATION_KEY, 1);
    conf.setInt(NameNodeConfigKeys.RPC_HANDLERS_KEY, HANDLERS);
    fffs = MiniFffsCluster.builder().baseDir(baseDir.resolve("fffs")).numDataNodes(1).conf(conf).build();
    for (int i = 0; i < clients; i++) {
      fffsClients.add(FileSystem.newInstance(fffs.getURI(), fffs.getConfiguration()));
    }
  }

  private void startHdfs(int clients) throws IOException {
    Configuration conf = new HdfsConfiguration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, baseDir.resolve("hdfs").toString());
    conf.setInt(DFSConfigKeys.DFS_REPLICATION_KEY, 1);
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, BLOCK_SIZE);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, HANDLERS);
    hdfs = new MiniDFSCluster.Builder(conf)
        .numDataNodes(1)
        .skipFsyncForTesting(false)
        .enableManagedDfsDirsRedundancy(false)
        .build();
    hdfs.waitActive();
    URI uri = hdfs.getURI();
    for (int i = 0; i < clients; i++) {
      hdfsClients.add(FileSystem.newInstance(uri, hdfs.getConfiguration(0)));
    }
  }

  List<FileSystem> fffsClients() {
    return fffsClients;
  }

  List<FileSystem> hdfsClients() {
    return hdfsClients;
  }

  /** Closes the clients, shuts both clusters down and removes the temporary directory; reports the first failure. */
  @Override
  public void close() throws IOException {
    IOException failure = null;
    List<FileSystem> all = new ArrayList<>(fffsClients);
    all.addAll(hdfsClients);
    for (FileSystem client : all) {
      try {
        client.close();
      } catch (IOException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (hdfs != null) {
      hdfs.shutdown(true);
    }
    if (fffs != null) {
      try {
        fffs.close();
      } catch (IOException e) {
        failure = failure == null ? e : failure;
      }
    }
    io.fffs.bench.BenchFiles.deleteRecursively(baseDir);
    if (failure != null) {
      throw failure;
    }
  }
}
