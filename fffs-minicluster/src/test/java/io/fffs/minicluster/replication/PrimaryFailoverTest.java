package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.datanode.store.BlockStore;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.protocol.DataTransferConfigKeys;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The primary of a block's pipeline (the DataNode that stamps its entries) killed (SIGKILL) while a writer hsyncs
 * every 10 records, by chain and by fan-out (or stopped, by chain): the follower holding the newest entry takes over as primary, the other
 * is brought up to it, a DataNode outside the pipeline replaces the lost one, and the writer finishes. No hsync'd
 * byte is lost and every replica holds the same log — one stamp sequence, the new primary's after the old one's —
 * and reads every hsync'd moment alike.
 */
class PrimaryFailoverTest {
  @TempDir
  Path base;

  @ParameterizedTest
  @ValueSource(strings = {"chain", "fan-out"})
  void aPrimaryKilledMidWriteIsSucceededByAFollower(String pipeline) throws Exception {
    primaryFails(pipeline, FaultedWrite.conf(ReplicatedHistoryTest.conf(3)), (record, process) -> {
      if (record == 95) {
        process.kill();
      }
    });
  }

  /**
   * A primary that stops answering (SIGSTOP) is given up at the client's response timeout and succeeded the same
   * way; the new pipeline's epoch fences it should it wake.
   */
  @Test
  void aPrimaryThatStopsAnsweringIsSucceededByAFollower() throws Exception {
    Configuration conf = FaultedWrite.conf(ReplicatedHistoryTest.conf(3));
    conf.setLong(DataTransferConfigKeys.RESPONSE_TIMEOUT_KEY, 5_000);
    primaryFails("chain", conf, (record, process) -> {
      if (record == 95) {
        process.suspend();
      }
    });
  }

  private void primaryFails(String pipeline, Configuration conf, FaultedWrite.Fault fault) throws Exception {
    conf.set(DataTransferConfigKeys.WRITE_PIPELINE_KEY, pipeline);
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster);
        FaultedWrite write = new FaultedWrite(cluster, fs, replicas, base, 29)) {
      String victim = write.victimUuid();
      byte[] expected = write.write("/" + pipeline, stamping -> stamping.size() == 3
          && stamping.get(0).equals(victim), fault);
      List<String> firstPipeline = write.pipeline();
      LocatedBlockProto block = write.assertReplicasAlike(expected);
      List<String> listed = block.getLocationsList().stream().map(DatanodeIdProto::getDatanodeUuid).toList();
      BlockStore store = replicas.store(listed.get(0));
      HlcTimestamp previous = HlcTimestamp.ZERO;
      for (int index = 0; index < replicas.assertSameLogs(block); index++) {
        HlcTimestamp stamp = store.infoAtLogIndex(block.getBlock().getBlockId(), index).hlc();
        assertThat(stamp).as("entry %d's stamp, after the one before it", index).isGreaterThan(previous);
        previous = stamp;
      }
      assertThat(listed).as("both followers stayed and a DataNode outside the first pipeline replaced the primary")
          .contains(firstPipeline.get(1), firstPipeline.get(2))
          .anyMatch(uuid -> !firstPipeline.contains(uuid));
    }
  }
}
