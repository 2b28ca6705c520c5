package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.minicluster.MiniFffsCluster;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pipeline recovery with replacement: a follower killed (SIGKILL) while a writer hsyncs every 10 records is dropped,
 * and at the writer's next flush a DataNode outside the pipeline takes its place after the primary copied it the
 * block's history so far. The writer finishes, no hsync'd byte is lost, and every replica — survivors and the
 * replacement — holds the same log and reads every hsync'd moment alike.
 */
class PipelineRecoveryTest {
  @TempDir
  Path base;

  @Test
  void aFollowerKilledMidWriteIsReplacedAndGetsTheHistorySoFar() throws Exception {
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base,
            FaultedWrite.conf(ReplicatedHistoryTest.conf(3)), 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster);
        FaultedWrite write = new FaultedWrite(cluster, fs, replicas, base, 34)) {
      // The process DataNode as a follower (the primary's loss fails a writer).
      String victim = write.victimUuid();
      byte[] expected = write.write("/recovery",
          pipeline -> pipeline.contains(victim) && !pipeline.get(0).equals(victim),
          (record, process) -> {
            if (record == 95) {
              process.kill();
            }
          });
      List<String> firstPipeline = write.pipeline();
      List<String> listed = write.assertReplicasAlike(expected).getLocationsList().stream()
          .map(DatanodeIdProto::getDatanodeUuid).toList();
      assertThat(listed).as("a DataNode outside the first pipeline replaced the lost one")
          .anyMatch(uuid -> !firstPipeline.contains(uuid));
    }
  }
}
