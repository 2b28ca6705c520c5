package io.fffs.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckReplicaStateProto;
import io.fffs.minicluster.MiniFffsCluster;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicationBenchmarkTest {
  @TempDir
  Path dir;

  @Test
  void repairTimesTheCopiesOfTheStoppedDataNodesBlocksUntilEveryBlockHasItsReplicationAgain() throws Exception {
    Configuration conf = new Configuration();
    conf.set("fffs.datanode.heartbeat.interval", "200ms");
    conf.set("fffs.namenode.datanode.dead-interval", "1s");
    conf.set("fffs.namenode.replication.dead-interval", "1s");
    conf.set("fffs.namenode.replication.interval", "250ms");
    conf.setLong("fffs.blocksize", 256 * 1024);
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(dir).numDataNodes(4).conf(conf)
        .memoryCapacity(32L << 20).build();
        FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/repaired");
      try (FSDataOutputStream out = fs.create(file, true, 4096, (short) 3, 256 * 1024)) {
        out.write(new byte[1 << 20]);
      }
      String victim = cluster.getDataNode(0).uuid();
      while (!fs.fsck(file).files().get(0).getBlocksList().stream().allMatch(b -> b.getReplicasList().stream()
          .filter(r -> r.getState() == FsckReplicaStateProto.FSCK_CURRENT && r.getLastEntryHlc() != 0).count() == 3)) {
        Thread.sleep(20);  // every replica's report is in: none is taken for stale after the stop
      }
      String[] answer = ReplicationBenchmark.repair(cluster, "/repaired").split(" ");
      assertThat(Double.parseDouble(answer[0])).as("at least the dead interval").isGreaterThanOrEqualTo(1.0);
      assertThat(Long.parseLong(answer[1])).as("four blocks on 3 of 4 DataNodes: DataNode 0 held some")
          .isPositive().isLessThanOrEqualTo(1 << 20);
      assertThat(fs.fsck(file).files().get(0).getBlocksList()).allSatisfy(block -> assertThat(
          block.getReplicasList()).filteredOn(r -> r.getState() == FsckReplicaStateProto.FSCK_CURRENT
              && !r.getDatanode().getDatanodeUuid().equals(victim)).hasSize(3));
    }
  }
}
