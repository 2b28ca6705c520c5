package io.fffs.minicluster.contract.replicated;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.contract.SharedCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;

/**
 * One cluster of three DataNodes at the default replication (3) for the contract suites run replicated, as
 * {@link SharedCluster} is for the others: every block of their files is written through a replica pipeline and
 * read with failover between replicas. Started on first use, stopped by a shutdown hook.
 */
public final class ReplicatedCluster {
  private static MiniFffsCluster cluster;
  private static Path baseDir;
  private static FreezeFrameFileSystem fileSystem;

  private ReplicatedCluster() {}

  /** The shared client of the cluster, started on the first call. */
  public static synchronized FreezeFrameFileSystem fileSystem() throws IOException {
    get();
    return fileSystem;
  }

  /** The cluster, started on the first call. */
  public static synchronized MiniFffsCluster get() throws IOException {
    if (cluster == null) {
      Path target = Paths.get("target");
      baseDir = Files.isDirectory(target) ? Files.createTempDirectory(target, "replicated-cluster-")
          : Files.createTempDirectory("fffs-replicated-cluster-");
      Configuration conf = new Configuration();
      conf.setLong("fffs.blocksize", SharedCluster.BLOCK_SIZE);
      cluster = MiniFffsCluster.builder().baseDir(baseDir).conf(conf).numDataNodes(3).memoryCapacity(64L << 20)
          .build();
      Runtime.getRuntime().addShutdownHook(new Thread(ReplicatedCluster::shutdown, "replicated-cluster-stop"));
      fileSystem = cluster.getFileSystem();
      if (fileSystem.getDefaultReplication(new org.apache.hadoop.fs.Path("/")) != 3) {
        throw new IllegalStateException("the replicated suites need replication 3 by default, not "
            + fileSystem.getDefaultReplication(new org.apache.hadoop.fs.Path("/")));
      }
    }
    return cluster;
  }

  private static synchronized void shutdown() {
    try {
      fileSystem.close();
    } catch (IOException e) {
      System.err.println("replicated cluster: closing the client failed: " + e);
    }
    try {
      cluster.close();
    } catch (IOException e) {
      System.err.println("replicated cluster: closing it failed: " + e);
    }
    try (Stream<Path> files = Files.walk(baseDir)) {
      for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      System.err.println("replicated cluster: removing " + baseDir + " failed: " + e);
    }
  }
}
