package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.datanode.DataNode;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.protocol.DataTransferConfigKeys;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chain pipeline (client → primary → follower → follower): every packet is sent once by the client and forwarded
 * by the DataNodes at the primary's stamps; a member killed in the middle of the chain loses no acknowledged byte,
 * the member behind it is brought up to date and stays, and every replica holds the same log.
 */
class ChainPipelineTest {
  private static final long RESPONSE_TIMEOUT_MS = 30_000;
  private static final long CHAIN_TIMEOUT_MS = 3_000;

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
    midChainMemberFails(41, (record, victim) -> {
      if (record == 95) {
        victim.kill();
      }
    });
  }

  /**
   * A member that stops answering (SIGSTOP: its kernel still takes the connection's bytes, as when its network
   * stalls) is reported by the member before it within the chain timeout, long before the client's own response
   * timeout: the hsync after the stop returns well within that, and nothing acknowledged is lost.
   */
  @Test
  void aMidChainDataNodeThatStopsAnsweringIsDroppedWellWithinTheResponseTimeout() throws Exception {
    long[] stoppedAt = new long[1];
    long[] syncedAfter = new long[1];
    midChainMemberFails(43, (record, victim) -> {
      if (record == 95) {
        victim.suspend();
        stoppedAt[0] = System.nanoTime();
      } else if (record == 99) {
        syncedAfter[0] = System.nanoTime() - stoppedAt[0];
      }
    });
    assertThat(TimeUnit.NANOSECONDS.toMillis(syncedAfter[0]))
        .as("the hsync after the stop, against a %d ms response timeout", RESPONSE_TIMEOUT_MS)
        .isLessThan(RESPONSE_TIMEOUT_MS / 2);
  }

  /**
   * A write along a chain with the process DataNode in the middle, which {@code fault} fails: the member behind it
   * is brought up to date and stays, and every replica reads every hsync'd moment alike.
   */
  private void midChainMemberFails(long seed, FaultedWrite.Fault fault) throws Exception {
    Configuration conf = FaultedWrite.conf(chain(ReplicatedHistoryTest.conf(3)));
    conf.setLong(DataTransferConfigKeys.RESPONSE_TIMEOUT_KEY, RESPONSE_TIMEOUT_MS);
    conf.setLong(DataTransferConfigKeys.CHAIN_TIMEOUT_KEY, CHAIN_TIMEOUT_MS);
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster);
        FaultedWrite write = new FaultedWrite(cluster, fs, replicas, base, seed)) {
      String victim = write.victimUuid();
      long[] forwardedBefore = new long[1];
      byte[] expected = write.write("/chain", pipeline -> pipeline.size() == 3 && pipeline.get(1).equals(victim),
          (record, process) -> {
            if (record == 1) {
              forwardedBefore[0] = dataNode(cluster, write.pipeline().get(0)).serverStats().writesForwarded.sum();
            }
            fault.after(record, process);
          });
      String primary = write.pipeline().get(0);
      String behind = write.pipeline().get(2);
      assertThat(dataNode(cluster, primary).serverStats().writesForwarded.sum())
          .as("the primary forwarded the packets").isGreaterThan(forwardedBefore[0]);
      List<String> listed = write.assertReplicasAlike(expected).getLocationsList().stream()
          .map(DatanodeIdProto::getDatanodeUuid).toList();
      assertThat(listed).as("the member behind the lost one was brought up to date and kept")
          .contains(primary, behind);
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
