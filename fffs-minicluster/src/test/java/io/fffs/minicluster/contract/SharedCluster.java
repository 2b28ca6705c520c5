package io.fffs.minicluster.contract;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * One {@link MiniFffsCluster} for every contract suite in this JVM (HDFS's and Ozone's contract tests do the same):
 * starting a cluster per suite would cost more than the suites. Started on first use, stopped by a shutdown hook.
 * Suites run one after another in the surefire fork, so each sees the cluster to itself; suites that restart nodes
 * leave them running again. Its directory under {@code target/} goes with it.
 *
 * <p>It runs WebHDFS gateways too, for the suites that test FFFS through Hadoop's {@code webhdfs://} client.
 *
 * <p>The block size is small ({@value #BLOCK_SIZE} bytes) so that the suites' files of a few hundred KiB span
 * several blocks and block boundaries get exercised everywhere.
 */
public final class SharedCluster {
  /** {@code fffs.blocksize} of the shared cluster. */
  public static final int BLOCK_SIZE = 64 * 1024;

  private static MiniFffsCluster cluster;
  private static Path baseDir;
  private static FreezeFrameFileSystem fileSystem;
  private static FileSystem webHdfs;

  private SharedCluster() {}

  /** The cluster, started on the first call. */
  public static synchronized MiniFffsCluster get() throws IOException {
    if (cluster == null) {
      Path target = Paths.get("target");
      baseDir = Files.isDirectory(target) ? Files.createTempDirectory(target, "shared-cluster-")
          : Files.createTempDirectory("fffs-shared-cluster-");
      Configuration conf = new Configuration();
      conf.setLong("fffs.blocksize", BLOCK_SIZE);
      cluster = MiniFffsCluster.builder().baseDir(baseDir).conf(conf).numDataNodes(1).webHdfs().build();
      Runtime.getRuntime().addShutdownHook(new Thread(SharedCluster::shutdown, "shared-cluster-stop"));
    }
    return cluster;
  }

  /**
   * The one client every Hadoop contract suite shares (HDFS's contract hands out {@code cluster.getFileSystem()}
   * the same way); creating one per test case would leave hundreds of lease renewers behind.
   */
  public static synchronized FreezeFrameFileSystem fileSystem() throws IOException {
    if (fileSystem == null) {
      fileSystem = get().getFileSystem();
    }
    return fileSystem;
  }

  /**
   * Hadoop's own {@code WebHdfsFileSystem} on the cluster's WebHDFS gateway, shared by the {@code webhdfs://}
   * contract suites as {@link #fileSystem} is by the {@code fffs://} ones.
   */
  public static synchronized FileSystem webHdfsFileSystem() throws IOException {
    if (webHdfs == null) {
      webHdfs = FileSystem.newInstance(get().getWebHdfsFileSystemURI(), get().getConfiguration());
    }
    return webHdfs;
  }

  /** A configuration whose {@code fs.defaultFS} is the shared cluster. */
  public static Configuration configuration() throws IOException {
    return get().getConfiguration();
  }

  private static synchronized void shutdown() {
    // Each step on its own: a client that fails to close must not leave the cluster's arena behind.
    closeQuietly(fileSystem);
    closeQuietly(webHdfs);
    closeQuietly(cluster);
    if (baseDir != null) {
      try (Stream<Path> files = Files.walk(baseDir)) {
        for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
          Files.deleteIfExists(file);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static void closeQuietly(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      System.err.println("shared cluster: closing " + closeable + " failed: " + e);
    }
  }
}
