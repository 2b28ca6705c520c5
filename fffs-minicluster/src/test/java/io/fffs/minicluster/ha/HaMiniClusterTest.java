package io.fffs.minicluster.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.http.StatusServlet;
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
 * now and as of a past time, after the leader stopped; the DataNode follows the new leader and writes go on. Only
 * the leader's {@code /status} counts replicas and lists DataNodes.
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
        io.fffs.namenode.NameNode nn = cluster.getNameNode(i);
        String status = StatusServlet.render(nn.namesystem(), null, null, nn.ha());
        if (nn == cluster.getNameNode()) {
          leader = i;
          assertThat(status).contains("\"haRole\":\"leader\"", "\"missingBlocks\":0")
              .containsPattern("\"datanodes\":\\[\\{");
        } else {
          // The DataNode reports to the leader only: a follower must not call its blocks missing.
          assertThat(status).contains("\"haRole\":\"follower\"", "\"datanodes\":[]")
              .doesNotContain("missingBlocks", "underReplicatedBlocks");
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

  @Test
  void aBlockAddedJustBeforeAFailoverIsNamedWithItsPlacementByEveryNameNode() throws Exception {
    // A writer whose addBlock answer a failover lost asks the new leader again, which answers with the file's last
    // block: that must name where the old leader placed it, although no DataNode reports a block still empty.
    Configuration conf = new Configuration();
    conf.setInt("fffs.replication", 1);
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().conf(conf).numNameNodes(3).numDataNodes(1)
        .baseDir(dir).build()) {
      io.fffs.namenode.NameNode leader = cluster.getNameNode();
      io.fffs.namenode.permission.Caller caller = io.fffs.namenode.permission.Caller.current();
      long fileId = leader.namesystem().files.create(caller, "/ha/new", 0644, "lost-writer", false, true, 1,
          1 << 20, null).await().getInodeId();
      io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto added = leader.namesystem().files
          .addBlock(caller, "/ha/new", fileId, "lost-writer", null).await();
      assertThat(added.getLocationsCount()).isEqualTo(1);
      long txid = leader.namesystem().lastTxid();
      int leaderIndex = -1;
      for (int i = 0; i < cluster.getNumNameNodes(); i++) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (cluster.getNameNode(i).namesystem().lastTxid() < txid && System.nanoTime() < deadline) {
          Thread.sleep(10);
        }
        leaderIndex = cluster.getNameNode(i) == leader ? i : leaderIndex;
      }
      cluster.stopNameNode(leaderIndex);
      cluster.waitActive();  // a new leader, which the DataNode has registered with and reported to

      // What the new leader answers a retried addBlock with (addedBefore): the file's last block, where it is.
      io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto blocks = cluster.getNameNode()
          .namesystem().queries.getBlockLocations(caller, "/ha/new", TimeSpec.latest(), 0, Long.MAX_VALUE,
              "lost-writer");
      assertThat(blocks.getBlocksList()).hasSize(1);
      assertThat(blocks.getBlocks(0).getLocationsList()).as("where the new leader says the new block is")
          .containsExactlyElementsOf(added.getLocationsList());
    }
  }
}
