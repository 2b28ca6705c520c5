package io.fffs.bench.e2e;

import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.NodeProcess;
import io.fffs.namenode.NameNodeConfigKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;

/**
 * DataNodes of a {@link MiniFffsCluster} (started with none of its own) running as separate JVM processes, the
 * {@code main} of {@code bin/fffs datanode}: each registers with the cluster's NameNode, keeps its arena under its
 * own {@code /dev/shm} directory, and is waited for until its arena pre-touch is done (the process goes idle).
 * {@link #close()} stops them (SIGTERM) and removes their arenas.
 */
final class DataNodeProcesses implements AutoCloseable {
  private final List<NodeProcess> nodes = new ArrayList<>();
  private final List<Path> arenas = new ArrayList<>();

  /** A cluster configuration with one copy per block, so that blocks spread over the DataNodes one each. */
  static Configuration unreplicated() {
    Configuration conf = new Configuration();
    conf.setInt(NameNodeConfigKeys.REPLICATION_KEY, 1);
    return conf;
  }

  /** Starts {@code count} DataNodes with {@code capacity} bytes of arena each; data and logs under {@code dir}. */
  static DataNodeProcesses start(MiniFffsCluster cluster, int count, long capacity, Path dir) throws IOException {
    DataNodeProcesses processes = new DataNodeProcesses();
    try {
      String nameNode = cluster.getConfiguration().get(NameNodeConfigKeys.RPC_ADDRESS_KEY);
      for (int i = 0; i < count; i++) {
        Path home = Files.createDirectories(dir.resolve("dn-" + i));
        Path arena = Path.of("/dev/shm", "fffs-bench-dn-" + UUID.randomUUID().toString().substring(0, 8));
        processes.arenas.add(arena);
        processes.nodes.add(NodeProcess.start("io.fffs.datanode.DataNodeMain", "-Xmx1g", home.resolve("log"),
            DataNodeServiceConfigKeys.NAMENODE_ADDRESS_KEY + "=" + nameNode,
            DataNodeServiceConfigKeys.DATA_ADDRESS_KEY + "=127.0.0.1:0",
            DataNodeServiceConfigKeys.HEARTBEAT_INTERVAL_KEY + "=200ms",
            DataNodeConfigKeys.DATA_DIR_KEY + "=" + home.resolve("data"),
            DataNodeConfigKeys.MEMORY_DIR_KEY + "=" + arena,
            DataNodeConfigKeys.MEMORY_CAPACITY_KEY + "=" + capacity));
      }
      cluster.awaitDataNodes(count);
      for (NodeProcess node : processes.nodes) {
        if (!node.awaitIdle(0.05, 1_000, 120_000)) {
          Progress.say("a DataNode process was still busy after 120 s; measuring anyway");
        }
      }
      return processes;
    } catch (IOException | RuntimeException e) {
      processes.close();
      throw e;
    }
  }

  @Override
  public void close() throws IOException {
    for (NodeProcess node : nodes) {
      node.close();
    }
    for (Path arena : arenas) {
      Clusters.deleteRecursively(arena);
    }
  }
}
