package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.DataNode;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.NodeProcess;
import io.fffs.minicluster.replication.PipelineRecoveryTest.Synced;
import io.fffs.namenode.NameNodeConfigKeys;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chain pipeline (client → primary → follower → follower): every packet is sent once by the client and forwarded
 * by the DataNodes at the primary's stamps; a member killed in the middle of the chain loses no acknowledged byte,
 * the member behind it is brought up to date and stays, and every replica holds the same log.
 */
class ChainPipelineTest {
  @TempDir
  Path base;

  @Test
  void theDataNodesForwardEachPacketAndTheClientSendsItOnce() throws Exception {
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, chain(ReplicatedHistoryTest.conf(3)), 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      String path = "/chain/history.bin";
      ReplicatedHistoryTest.writeHistory(fs, path, new Random(41), 30, 200 * 1024);
      long forwarded = 0;
      long received = 0;
      for (int i = 0; i < 3; i++) {
        forwarded += cluster.getDataNode(i).serverStats().writesForwarded.sum();
        received += cluster.getDataNode(i).serverStats().writes.sum();
      }
      // Each packet is applied by three members, two of which got it from another member.
      assertThat(forwarded).as("writes forwarded along the chain").isPositive();
      assertThat(received).as("writes applied by the three members").isEqualTo(3 * (received - forwarded));
      for (LocatedBlockProto block : replicas.awaitListed(path, 3).getBlocksList()) {
        assertThat(replicas.assertSameLogs(block)).isPositive();
      }
    }
  }

  private static Configuration chain(Configuration conf) {
    conf.set(DataTransferConfigKeys.WRITE_PIPELINE_KEY, "chain");
    return conf;
  }

  @Test
  void fanOutStaysASetting() throws Exception {
    Configuration conf = ReplicatedHistoryTest.conf(3);
    conf.set(DataTransferConfigKeys.WRITE_PIPELINE_KEY, "fan-out");
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      String path = "/fan-out/history.bin";
      ReplicatedHistoryTest.writeHistory(fs, path, new Random(43), 20, 100 * 1024);
      for (int i = 0; i < 3; i++) {
        assertThat(cluster.getDataNode(i).serverStats().writesForwarded.sum()).isZero();
      }
      for (LocatedBlockProto block : replicas.awaitListed(path, 3).getBlocksList()) {
        assertThat(replicas.assertSameLogs(block)).isPositive();
      }
    }
  }

  @Test
  void aMidChainDataNodeKilledMidWriteLosesNoAcknowledgedByte() throws Exception {
    Configuration conf = chain(ReplicatedHistoryTest.conf(3));
    conf.set(DataNodeServiceConfigKeys.HEARTBEAT_INTERVAL_KEY, "200ms");
    conf.set(NameNodeConfigKeys.REPLICATION_INTERVAL_KEY, "1h");  // replacements come from the writer
    Path arena = Path.of("/dev/shm", "fffs-chain-" + ProcessHandle.current().pid());
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      NodeProcess victim = ReReplicationTest.startDataNodeProcess(cluster, base.resolve("dn-process"), arena);
      try {
        String victimUuid = ReReplicationTest.uuidOf(victim);
        cluster.awaitDataNodes(4);
        Random random = new Random(57);
        ByteArrayOutputStream model = new ByteArrayOutputStream();
        List<Synced> synced = new ArrayList<>();

        // A file whose chain has the process DataNode in the middle.
        org.apache.hadoop.fs.Path file = null;
        FSDataOutputStream out = null;
        List<String> chain = List.of();
        for (int attempt = 0; chain.size() < 3 || !chain.get(1).equals(victimUuid); attempt++) {
          assertThat(attempt).as("a chain with the process DataNode in the middle").isLessThan(40);
          if (out != null) {
            out.close();
          }
          file = new org.apache.hadoop.fs.Path("/chain/f" + attempt);
          out = fs.create(file, true);
          model.reset();
          PipelineRecoveryTest.writeRecord(out, model, random);
          out.hsync();
          chain = replicas.awaitListed(file.toString(), 3).getBlocks(0).getLocationsList().stream()
              .map(DatanodeIdProto::getDatanodeUuid).toList();
        }
        synced.add(new Synced(TimeSpec.system(ReplicatedHistoryTest.settle(fs)), model.size()));
        String primary = chain.get(0);
        String behind = chain.get(2);
        long forwardedBefore = dataNode(cluster, primary).serverStats().writesForwarded.sum();

        for (int record = 1; record < 200; record++) {
          PipelineRecoveryTest.writeRecord(out, model, random);
          if (record == 95) {
            victim.kill();
          }
          if (record % 10 == 9) {
            out.hsync();
            synced.add(new Synced(TimeSpec.system(ReplicatedHistoryTest.settle(fs)), model.size()));
          }
        }
        out.close();
        assertThat(dataNode(cluster, primary).serverStats().writesForwarded.sum())
            .as("the primary forwarded the packets").isGreaterThan(forwardedBefore);

        byte[] expected = model.toByteArray();
        try (FSDataInputStream in = fs.open(file)) {
          assertThat(in.readAllBytes()).as("every byte written, hsync'd ones included").isEqualTo(expected);
        }
        LocatedBlockProto block = replicas.awaitListed(file.toString(), 3).getBlocks(0);
        List<String> listed = block.getLocationsList().stream().map(DatanodeIdProto::getDatanodeUuid).toList();
        assertThat(listed).doesNotContain(victimUuid);
        assertThat(listed).as("the member behind the lost one was brought up to date and kept")
            .contains(primary, behind);
        assertThat(replicas.assertSameLogs(block)).isGreaterThan(20);
        PipelineRecoveryTest.assertMomentsAlike(replicas, file.toString(), block, synced, expected);
      } finally {
        victim.close();
        ReReplicationTest.deleteRecursively(arena);
      }
    }
  }

  private static DataNode dataNode(MiniFffsCluster cluster, String uuid) {
    for (int i = 0; i < cluster.getNumDataNodes(); i++) {
      DataNode dataNode = cluster.getDataNode(i);
      if (dataNode != null && dataNode.uuid().equals(uuid)) {
        return dataNode;
      }
    }
    throw new AssertionError("no in-process DataNode " + uuid);
  }

}
