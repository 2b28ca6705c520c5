package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The blocks of a deleted file stay readable as of the times before the delete until garbage collection drops that
 * history, so they keep their replica count: when a DataNode holding them is lost, the replication monitor copies
 * them, with their history, as it copies the blocks of files that exist.
 */
class DeletedFileReplicationTest {
  private static final int BLOCK = 256 * 1024;

  @TempDir
  Path base;

  @Test
  void aDeletedFilesBlocksGetTheirReplicasBackAfterADataNodeIsLost() throws Exception {
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, ReReplicationTest.conf(3), 4);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      String path = "/deleted/history.bin";
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(path);
      byte[] content = new byte[2 * BLOCK - 100];
      new Random(86).nextBytes(content);
      try (FSDataOutputStream out = fs.create(file, true)) {
        out.write(content);
      }
      LocatedBlocksProto before = replicas.awaitListed(path, 3);
      TimeSpec written = TimeSpec.system(ReplicatedHistoryTest.settle(fs));
      assertThat(fs.delete(file, false)).isTrue();
      ReplicatedHistoryTest.settle(fs);

      String lost = before.getBlocks(0).getLocations(0).getDatanodeUuid();
      cluster.stopDataNode(Replicas.index(cluster, lost));
      LocatedBlocksProto[] healed = new LocatedBlocksProto[1];
      ReReplicationTest.awaitTrue(() -> {
        healed[0] = replicas.blocks(path, written);
        return healed[0].getBlocksList().stream().allMatch(block -> block.getLocationsCount() == 3
            && block.getLocationsList().stream().noneMatch(l -> l.getDatanodeUuid().equals(lost)));
      }, "3 replicas of every block of the deleted file again, none on the lost DataNode");

      for (LocatedBlockProto block : healed[0].getBlocksList()) {
        assertThat(replicas.assertSameLogs(block)).isPositive();
        for (DatanodeIdProto replica : block.getLocationsList()) {
          int length = (int) block.getBlock().getNumBytes();
          assertThat(replicas.read(block, replica, 0, length, written).bytes())
              .as("block at %d as of before the delete, from %s", block.getOffset(), replica.getDatanodeUuid())
              .isEqualTo(Arrays.copyOfRange(content, (int) block.getOffset(), (int) block.getOffset() + length));
        }
      }
      try (FSDataInputStream in = fs.open(file, written)) {
        assertThat(in.readAllBytes()).isEqualTo(content);
      }
    }
  }
}
