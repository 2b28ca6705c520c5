package io.fffs.minicluster.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A mini cluster of three NameNodes and a DataNode: files written through {@code fffs://mycluster} are read back,
 * now and as of a past time, after the leader stopped; the DataNode follows the new leader and writes go on.
 */
class HaMiniClusterTest {
  @TempDir
  Path dir;

  private static void write(FreezeFrameFileSystem fs, String path, String text) throws IOException {
    try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path), true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static String read(FreezeFrameFileSystem fs, String path, TimeSpec time) throws IOException {
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path), time)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void filesOutliveTheLeaderAndWritesGoOn() throws Exception {
    Configuration conf = new Configuration();
    conf.setInt("fffs.replication", 1);
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().conf(conf).numNameNodes(3).numDataNodes(1)
        .baseDir(dir).build();
        FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      assertThat(cluster.getURI().toString()).isEqualTo("fffs://mycluster");
      write(fs, "/ha/kept", "first version");
      long past = fs.currentTime().physicalMicros();
      while (System.currentTimeMillis() * 1000 <= past + 1) {
        Thread.onSpinWait();
      }
      write(fs, "/ha/kept", "second version");

      int leader = -1;
      for (int i = 0; i < cluster.getNumNameNodes(); i++) {
        if (cluster.getNameNode(i) == cluster.getNameNode()) {
          leader = i;
        }
      }
      cluster.stopNameNode(leader);
      cluster.waitActive();  // a new leader, which the DataNode has registered with and reported to

      assertThat(read(fs, "/ha/kept", TimeSpec.latest())).isEqualTo("second version");
      assertThat(read(fs, "/ha/kept", TimeSpec.system(past))).isEqualTo("first version");
      write(fs, "/ha/after", "written on the new leader");
      assertThat(read(fs, "/ha/after", TimeSpec.latest())).isEqualTo("written on the new leader");
    }
  }
}
