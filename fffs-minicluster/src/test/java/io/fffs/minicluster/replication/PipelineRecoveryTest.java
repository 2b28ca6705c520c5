package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.NodeProcess;
import io.fffs.namenode.NameNodeConfigKeys;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pipeline recovery with replacement: a follower killed (SIGKILL) while a writer hsyncs every 10 records is dropped,
 * and at the writer's next flush a DataNode outside the pipeline takes its place after the primary copied it the
 * block's history so far. The writer finishes, no hsync'd byte is lost, and every replica — survivors and the
 * replacement — holds the same log and reads every hsync'd moment alike.
 */
class PipelineRecoveryTest {
  private static final int RECORD = 1024;

  @TempDir
  Path base;

  /** The file as of a moment just after an hsync: exactly its first {@code length} bytes. */
  record Synced(TimeSpec time, int length) {}

  @Test
  void aFollowerKilledMidWriteIsReplacedAndGetsTheHistorySoFar() throws Exception {
    Configuration conf = ReplicatedHistoryTest.conf(3);
    conf.set(DataNodeServiceConfigKeys.HEARTBEAT_INTERVAL_KEY, "200ms");
    // The replication monitor stays out: the replacement must come from the writer.
    conf.set(NameNodeConfigKeys.REPLICATION_INTERVAL_KEY, "1h");
    Path arena = Path.of("/dev/shm", "fffs-recovery-" + ProcessHandle.current().pid());
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      NodeProcess victim = ReReplicationTest.startDataNodeProcess(cluster, base.resolve("dn-process"), arena);
      try {
        String victimUuid = ReReplicationTest.uuidOf(victim);
        cluster.awaitDataNodes(4);
        Random random = new Random(34);
        ByteArrayOutputStream model = new ByteArrayOutputStream();
        List<Synced> synced = new ArrayList<>();

        // A file whose block has the process DataNode as a follower (the primary's loss fails a writer).
        org.apache.hadoop.fs.Path file = null;
        FSDataOutputStream out = null;
        List<String> pipeline = List.of();
        for (int attempt = 0; !pipeline.contains(victimUuid) || pipeline.get(0).equals(victimUuid); attempt++) {
          assertThat(attempt).as("a pipeline with the process DataNode as a follower").isLessThan(30);
          if (out != null) {
            out.close();
          }
          file = new org.apache.hadoop.fs.Path("/recovery/f" + attempt);
          out = fs.create(file, true);
          model.reset();
          writeRecord(out, model, random);
          out.hsync();
          pipeline = replicas.awaitListed(file.toString(), 3).getBlocks(0).getLocationsList().stream()
              .map(DatanodeIdProto::getDatanodeUuid).toList();
        }
        synced.add(new Synced(TimeSpec.system(ReplicatedHistoryTest.settle(fs)), model.size()));
        List<String> firstPipeline = pipeline;

        for (int record = 1; record < 200; record++) {
          writeRecord(out, model, random);
          if (record == 95) {
            victim.kill();
          }
          if (record % 10 == 9) {
            out.hsync();
            synced.add(new Synced(TimeSpec.system(ReplicatedHistoryTest.settle(fs)), model.size()));
          }
        }
        out.close();

        byte[] expected = model.toByteArray();
        try (FSDataInputStream in = fs.open(file)) {
          assertThat(in.readAllBytes()).as("every byte written, hsync'd ones included").isEqualTo(expected);
        }
        LocatedBlockProto block = replicas.awaitListed(file.toString(), 3).getBlocks(0);
        List<String> listed = block.getLocationsList().stream().map(DatanodeIdProto::getDatanodeUuid).toList();
        assertThat(listed).doesNotContain(victimUuid);
        assertThat(listed).as("a DataNode outside the first pipeline replaced the lost one")
            .anyMatch(uuid -> !firstPipeline.contains(uuid));
        assertThat(replicas.assertSameLogs(block)).isGreaterThan(20);
        assertMomentsAlike(replicas, file.toString(), block, synced, expected);
      } finally {
        victim.close();
        ReReplicationTest.deleteRecursively(arena);
      }
    }
  }

  /** Each of {@code block}'s replicas reads the file as of every moment exactly as its first bytes then. */
  static void assertMomentsAlike(Replicas replicas, String path, LocatedBlockProto block, List<Synced> synced,
      byte[] expected) throws java.io.IOException {
    for (Synced moment : synced) {
      LocatedBlockProto then = replicas.blocks(path, moment.time()).getBlocks(0);
      for (DatanodeIdProto replica : block.getLocationsList()) {
        assertThat(replicas.info(then, replica, moment.time()).length()).isEqualTo(moment.length());
        Replicas.Answer answer = replicas.read(then, replica, 0, moment.length(), moment.time());
        assertThat(answer.bytes()).as("the file as of %s from %s", moment.time(), replica.getDatanodeUuid())
            .isEqualTo(Arrays.copyOf(expected, moment.length()));
      }
    }
  }

  static void writeRecord(FSDataOutputStream out, ByteArrayOutputStream model, Random random)
      throws java.io.IOException {
    byte[] record = new byte[RECORD];
    random.nextBytes(record);
    out.write(record);
    model.write(record);
  }
}
