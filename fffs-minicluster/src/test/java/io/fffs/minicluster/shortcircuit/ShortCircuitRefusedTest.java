package io.fffs.minicluster.shortcircuit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.data.ShortCircuitStats;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.RandomFiles;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A DataNode that serves no short-circuit reads is read through its data port, and asked once, not every read. */
class ShortCircuitRefusedTest {
  @TempDir
  Path base;

  @Test
  void aDataNodeWithShortCircuitOffIsReadThroughItsDataPort() throws Exception {
    Configuration conf = new Configuration();
    conf.setBoolean("fffs.datanode.read.shortcircuit", false);
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).build();
        FreezeFrameFileSystem fs = (FreezeFrameFileSystem) FileSystem.newInstance(cluster.getURI(),
            cluster.getConfiguration())) {
      byte[] data = RandomFiles.write(fs, "/refused", 200_000, 9);
      for (int round = 0; round < 2; round++) {
        byte[] back = new byte[data.length];
        try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/refused"))) {
          in.readFully(0, back);
        }
        assertThat(back).isEqualTo(data);
      }
      ShortCircuitStats stats = fs.shortCircuitStats();
      assertThat(stats.refused.sum()).isEqualTo(1);
      assertThat(stats.bytes.sum()).isZero();
      assertThat(cluster.getDataNode(0).serverStats().readBytes.sum()).isGreaterThanOrEqualTo(2L * data.length);
    }
  }
}
