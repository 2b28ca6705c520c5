package io.fffs.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fffs.minicluster.MiniFffsCluster;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scaling benchmark's set-up: DataNodes in their own processes serve a cluster whose NameNode is here. */
class DataNodeProcessesTest {
  @TempDir
  Path tmp;

  @Test
  void dataNodesInOtherProcessesStoreAndServeBlocksRoundRobin() throws Exception {
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(tmp.resolve("nn")).numDataNodes(0)
        .conf(DataNodeProcesses.unreplicated()).build();
        DataNodeProcesses dataNodes = DataNodeProcesses.start(cluster, 2, 16L << 20, tmp.resolve("dn"))) {
      assertEquals(2, cluster.getNameNode().namesystem().datanodes().liveCount());
      Set<String> hosts = new HashSet<>();
      try (FileSystem fs = FileSystem.newInstance(cluster.getURI(), cluster.getConfiguration())) {
        for (int f = 0; f < 2; f++) {
          org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/p/f" + f);
          byte[] data = FileIo.randomBytes(300_000, f);
          try (FSDataOutputStream out = fs.create(file)) {
            out.write(data);
          }
          byte[] back = new byte[data.length];
          try (FSDataInputStream in = fs.open(file)) {
            in.readFully(0, back);
          }
          assertArrayEquals(data, back);
          for (var location : fs.getFileBlockLocations(file, 0, data.length)) {
            hosts.add(String.join(",", location.getNames()));
          }
        }
      }
      assertEquals(2, hosts.size(), "one file's block on each DataNode process: " + hosts);
    }
  }
}
