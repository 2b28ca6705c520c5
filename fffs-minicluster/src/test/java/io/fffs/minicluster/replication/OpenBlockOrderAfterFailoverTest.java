package io.fffs.minicluster.replication;

import static io.fffs.minicluster.replication.StaleReplicaReadTest.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.WriteFaultInjector;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckReplicaProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckReplicaStateProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.BlockStore;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.NameNodeConfigKeys;
import io.fffs.namenode.blocks.DatanodeManager;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The order of an open file's last-block locations right after a follower took over from a lost primary with nothing
 * to send again (the primary stopped between an hsync's flush and its SYNC), while the NameNode still counts the lost
 * one live and current (it holds the newest entry too). The DataNodes report where their replicas stand as soon as
 * the new pipeline opens them (incremental reports), so the promoted primary is listed first and the lost one last,
 * without a NameNode restart or a full report.
 */
class OpenBlockOrderAfterFailoverTest {
  @TempDir
  Path base;

  @AfterEach
  void noFaults() {
    WriteFaultInjector.set(null);
  }

  @Test
  void thePromotedPrimaryIsListedFirstAsSoonAsItTookOver() throws Exception {
    Configuration conf = FaultedWrite.conf(ReplicatedHistoryTest.conf(3));
    conf.set(DataTransferConfigKeys.WRITE_PIPELINE_KEY, "chain");
    conf.set(NameNodeConfigKeys.DATANODE_DEAD_INTERVAL_KEY, "30m");  // the stopped primary stays live to it
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      String path = "/replicated/failover.bin";
      Random random = new Random(34);
      FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path), true);
      out.write(bytes(random, 50_000));
      out.hsync();
      List<DatanodeIdProto> placed = replicas.awaitListed(path, 3).getBlocks(0).getLocationsList();
      long blockId = replicas.blocks(path, TimeSpec.latest()).getBlocks(0).getBlock().getBlockId();
      DatanodeManager datanodes = cluster.getNameNode().namesystem().datanodes();
      String lost = placed.get(0).getDatanodeUuid();
      AtomicReference<String> promoted = new AtomicReference<>();
      WriteFaultInjector.set(new WriteFaultInjector() {
        @Override
        public void beforeSync(String file) throws IOException {
          try {
            // Every replica reported the bytes just flushed: the primary is as current as the followers.
            long newest = store(cluster, lost).info(blockId, TimeSpec.latest()).hlc().packed();
            await("every replica of block " + blockId + " reported its newest entry",
                () -> allReported(datanodes.fsckReplicas(blockId), newest));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for the replicas' reports");
          }
          cluster.stopDataNode(Replicas.index(cluster, lost));
        }

        @Override
        public void afterPromotion(String file, long block, DatanodeIdProto primary) {
          promoted.set(primary.getDatanodeUuid());
        }
      });
      out.write(bytes(random, 10_000));
      out.hsync();

      assertThat(promoted.get()).as("a follower took over").isNotNull().isNotEqualTo(lost);
      assertThat(uuids(datanodes.fsckReplicas(blockId).stream().filter(r -> r.getState()
          == FsckReplicaStateProto.FSCK_CURRENT).map(FsckReplicaProto::getDatanode).toList()))
          .as("the lost primary still counts as live and current").contains(lost);
      await("the promoted primary listed first and the lost one last", () -> {
        List<String> listed = uuids(datanodes.locations(blockId));
        return listed.size() == 3 && listed.get(0).equals(promoted.get()) && listed.get(2).equals(lost);
      });
      out.close();
    }
  }

  private static boolean allReported(List<FsckReplicaProto> replicas, long newest) {
    return replicas.size() == 3 && replicas.stream().allMatch(r -> r.getState() == FsckReplicaStateProto.FSCK_CURRENT
        && r.getLastEntryHlc() == newest);
  }

  private static BlockStore store(MiniFffsCluster cluster, String uuid) {
    return cluster.getDataNode(Replicas.index(cluster, uuid)).store();
  }

  private static byte[] bytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  private static List<String> uuids(List<DatanodeIdProto> ids) {
    return ids.stream().map(DatanodeIdProto::getDatanodeUuid).toList();
  }
}
