package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckReplicaProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckReplicaStateProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower that missed an in-place overwrite keeps the block's length, so only its last entry shows it is behind.
 * The writer tells the NameNode the block's last entry when it closes the file, and the NameNode keeps it across a
 * restart: with the replicas that hold the overwrite down and the NameNode restarted, the follower's report alone
 * does not make it listed, and a read fails instead of returning the bytes from before the overwrite.
 */
class StaleFollowerTest {
  private static final int LENGTH = 100 * 1024;

  @TempDir
  Path base;

  @Test
  void aFollowerThatMissedAnInPlaceOverwriteIsNeverListedAgain() throws Exception {
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, ReplicatedHistoryTest.conf(3), 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/stale/overwritten.bin");
      Random random = new Random(85);
      byte[] before = new byte[LENGTH];
      random.nextBytes(before);
      try (FSDataOutputStream out = fs.create(file, true)) {
        out.write(before);
      }
      List<String> holders = replicas.awaitListed(file.toString(), 3).getBlocks(0).getLocationsList().stream()
          .map(DatanodeIdProto::getDatanodeUuid).toList();
      int follower = Replicas.index(cluster, holders.get(2));
      cluster.stopDataNode(follower);

      byte[] after = new byte[LENGTH];
      random.nextBytes(after);
      try (FffsDataOutputStream out = fs.openForWrite(file)) {
        out.seek(0);
        out.write(after);
      }
      try (FSDataInputStream in = fs.open(file)) {
        assertThat(in.readAllBytes()).isEqualTo(after);
      }

      // The replicas holding the overwrite go down, the NameNode forgets every report, the follower comes back.
      for (String uuid : holders.subList(0, 2)) {
        cluster.stopDataNode(Replicas.index(cluster, uuid));
      }
      cluster.restartNameNode();
      cluster.restartDataNode(follower);
      String followerUuid = holders.get(2);
      FsckReplicaProto reported = awaitReported(fs, file, followerUuid);
      assertThat(reported.getState()).as("the follower's last entry is older than the writer's")
          .isEqualTo(FsckReplicaStateProto.FSCK_STALE);
      assertThat(replicas.blocks(file.toString(), TimeSpec.latest()).getBlocks(0).getLocationsList()).isEmpty();
      assertThatThrownBy(() -> {
        try (FSDataInputStream in = fs.open(file)) {
          in.readAllBytes();
        }
      }).as("unreadable, never the bytes from before the overwrite").isInstanceOf(IOException.class);
    }
  }

  private static FsckReplicaProto awaitReported(FreezeFrameFileSystem fs, org.apache.hadoop.fs.Path file,
      String uuid) throws Exception {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      for (FsckReplicaProto replica : fs.fsck(file).files().get(0).getBlocks(0).getReplicasList()) {
        if (replica.getDatanode().getDatanodeUuid().equals(uuid) && replica.getLastEntryHlc() != 0) {
          return replica;
        }
      }
      assertThat(System.nanoTime()).as("the follower reported the block").isLessThan(deadline);
      Thread.sleep(20);
    }
  }
}
