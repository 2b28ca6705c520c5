package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.FsckReport;
import io.fffs.client.tools.FsckCommand;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckFileProto;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.NameNodeConfigKeys;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/fffs fsck}: per file and block the replicas and their states, the counts, and a verdict with its exit
 * code — HEALTHY while every block has a replica to read, CORRUPT once one has none — for the present and for a
 * path at a past time.
 */
class FsckTest {
  private static final int BLOCK = 256 * 1024;

  @TempDir
  Path base;

  @Test
  void theVerdictFollowsTheReplicasThatCanBeRead() throws Exception {
    Configuration conf = ReplicatedHistoryTest.conf(3);
    conf.set(DataNodeServiceConfigKeys.HEARTBEAT_INTERVAL_KEY, "200ms");
    conf.set(NameNodeConfigKeys.DATANODE_DEAD_INTERVAL_KEY, "1s");
    conf.set(NameNodeConfigKeys.REPLICATION_INTERVAL_KEY, "1h");  // nothing heals while fsck looks
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      org.apache.hadoop.fs.Path three = new org.apache.hadoop.fs.Path("/fsck/three");
      try (FSDataOutputStream out = fs.create(three, true)) {
        out.write(new byte[BLOCK + 1000]);
      }
      replicas.awaitListed("/fsck/three", 3);
      // A millisecond marker after /fsck/three was closed and before /fsck/one is created.
      long beforeMillis = ReplicatedHistoryTest.settle(fs) / 1000 + 1;
      while (io.fffs.common.time.PhysicalClock.system().currentTimeMicros() <= (beforeMillis + 1) * 1000) {
        Thread.sleep(1);
      }
      org.apache.hadoop.fs.Path one = new org.apache.hadoop.fs.Path("/fsck/one");
      try (FSDataOutputStream out = fs.create(one, true, 4096, (short) 1, BLOCK)) {
        out.write(new byte[1000]);
      }
      String holder = replicas.awaitListed("/fsck/one", 1).getBlocks(0).getLocations(0).getDatanodeUuid();

      Configuration client = new Configuration(cluster.getConfiguration());
      client.set("fs.defaultFS", cluster.getURI().toString());
      assertThat(FsckCommand.run(client, new String[] {"/fsck", "-files", "-blocks", "-locations"})).isZero();
      FsckReport healthy = fs.fsck(new org.apache.hadoop.fs.Path("/fsck"));
      assertThat(healthy.healthy()).isTrue();
      assertThat(healthy.files()).extracting(FsckFileProto::getPath).containsExactly("/fsck/one", "/fsck/three");
      assertThat(healthy.blocks()).isEqualTo(3);
      assertThat(healthy.underReplicatedBlocks()).isZero();
      assertThat(healthy.render(true, true, true)).contains("Status: HEALTHY").contains("blk_").contains("CURRENT");

      FsckReport past = fs.fsck(new org.apache.hadoop.fs.Path("/fsck@s" + beforeMillis));
      assertThat(past.files()).as("the tree as of before /fsck/one").extracting(FsckFileProto::getPath)
          .containsExactly("/fsck/three");

      for (int i = 0; i < cluster.getNumDataNodes(); i++) {
        if (cluster.getDataNode(i).uuid().equals(holder)) {
          cluster.stopDataNode(i);
        }
      }
      ReReplicationTest.awaitTrue(() -> !fs.fsck(one).healthy(), "the only replica of /fsck/one dead");
      FsckReport lost = fs.fsck(new org.apache.hadoop.fs.Path("/fsck"));
      assertThat(lost.missingBlocks()).isEqualTo(1);
      assertThat(lost.underReplicatedBlocks()).as("/fsck/three lost one of its three").isEqualTo(2);
      assertThat(lost.render(false, false, false)).contains("/fsck/one 1000 bytes, replication 1, 1 block(s): CORRUPT")
          .contains("is CORRUPT");
      assertThat(FsckCommand.run(client, new String[] {"/fsck"})).isEqualTo(1);
      assertThat(FsckCommand.run(client, new String[] {"/fsck/three"})).as("still readable").isZero();
      assertThat(FsckCommand.run(client, new String[] {})).isEqualTo(2);
    }
  }
}
