package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.WriteFaultInjector;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.datanode.store.BlockStore;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.NodeProcess;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The primary of a block's pipeline (the DataNode that stamps its entries) killed (SIGKILL) while a writer hsyncs
 * every 10 records, by chain and by fan-out (or stopped, by chain; or killed between an hsync's flush and its SYNC):
 * the follower holding the newest entry takes over as primary, the other is brought up to it, a DataNode outside the
 * pipeline replaces the lost one, and the writer finishes. No hsync'd byte is lost and every replica holds the same
 * log — one stamp sequence, the new primary's after the old one's — and reads every hsync'd moment alike. Should the
 * follower that took over be lost too while it is sent what the first did not acknowledge, the next one takes over;
 * with none left the write fails with {@code IO_ERROR} naming every lost primary, and so do every later flush and
 * the close.
 */
class PrimaryFailoverTest {
  @TempDir
  Path base;

  @AfterEach
  void noFaults() {
    WriteFaultInjector.set(null);
  }

  @ParameterizedTest
  @ValueSource(strings = {"chain", "fan-out"})
  void aPrimaryKilledMidWriteIsSucceededByAFollower(String pipeline) throws Exception {
    primaryFails(pipeline, FaultedWrite.conf(ReplicatedHistoryTest.conf(3)), 3, 1, (record, process) -> {
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
    primaryFails("chain", conf, 3, 1, (record, process) -> {
      if (record == 95) {
        process.suspend();
      }
    });
  }

  /**
   * The primary killed once an hsync's bytes are acknowledged and before its SYNC is sent: the SYNC fails on it, a
   * follower takes over, the new pipeline is synced, and the hsync returns.
   */
  @ParameterizedTest
  @ValueSource(strings = {"chain", "fan-out"})
  void aPrimaryKilledBetweenAnHsyncsFlushAndItsSyncIsSucceeded(String pipeline) throws Exception {
    AtomicReference<NodeProcess> armed = new AtomicReference<>();
    AtomicInteger killed = new AtomicInteger();
    WriteFaultInjector.set(new WriteFaultInjector() {
      @Override
      public void beforeSync(String path) throws IOException {
        NodeProcess victim = armed.getAndSet(null);
        if (victim != null) {
          kill(victim);
          killed.incrementAndGet();
        }
      }
    });
    primaryFails(pipeline, FaultedWrite.conf(ReplicatedHistoryTest.conf(3)), 3, 1, (record, process) -> {
      if (record == 95) {
        armed.set(process);  // killed inside the hsync after record 99
      }
    });
    assertThat(killed).as("the primary was killed between the flush and the SYNC of an hsync").hasValue(1);
  }

  /**
   * The primary killed mid-write, and the follower that takes over stopped before it is sent the unacknowledged
   * writes: the next follower takes over from it, and the write finishes with nothing lost.
   */
  @Test
  void aSecondPrimaryLostWhileTheFirstIsSucceededIsSucceededByTheNextFollower() throws Exception {
    List<String> promoted = new ArrayList<>();
    MiniFffsCluster[] running = new MiniFffsCluster[1];
    WriteFaultInjector.set(new WriteFaultInjector() {
      @Override
      public void afterPromotion(String path, long blockId, DatanodeIdProto primary) throws IOException {
        promoted.add(primary.getDatanodeUuid());
        if (promoted.size() == 1) {
          stop(running[0], primary.getDatanodeUuid());
        }
      }
    });
    Configuration conf = FaultedWrite.conf(ReplicatedHistoryTest.conf(3));
    List<String> first = primaryFails("chain", conf, 4, 2, cluster -> running[0] = cluster, (record, process) -> {
      if (record == 95) {
        process.kill();
      }
    });
    assertThat(promoted).as("the followers in chain order took over one after the other")
        .isEqualTo(first.subList(1, 3));
  }

  /** Every follower lost in turn as it takes over: the write fails with IO_ERROR naming each lost primary. */
  @Test
  void aWriteWhosePrimariesAreAllLostFailsNamingThem() throws Exception {
    Configuration conf = FaultedWrite.conf(ReplicatedHistoryTest.conf(3));
    conf.set(DataTransferConfigKeys.WRITE_PIPELINE_KEY, "chain");
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster);
        FaultedWrite write = new FaultedWrite(cluster, fs, replicas, base, 31)) {
      List<String> addresses = new ArrayList<>();
      WriteFaultInjector.set(new WriteFaultInjector() {
        @Override
        public void afterPromotion(String path, long blockId, DatanodeIdProto primary) throws IOException {
          addresses.add(primary.getHost() + ":" + primary.getDataPort());
          stop(cluster, primary.getDatanodeUuid());
        }
      });
      String victim = write.victimUuid();
      assertThatThrownBy(() -> write.write("/lost", stamping -> stamping.size() == 3
          && stamping.get(0).equals(victim), (record, process) -> {
            if (record == 95) {
              process.kill();
            }
          }))
          .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR))
          .hasMessageContaining("no follower is left to take over")
          .hasMessageContaining(addresses.get(0))
          .hasMessageContaining(addresses.get(1));
      assertThat(addresses).as("both followers took over in turn").hasSize(2);
      // The block's unacknowledged writes are in no replica: neither a flush nor the close may report success.
      assertThatThrownBy(() -> write.stream().hflush()).isInstanceOfSatisfying(FffsException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR)).hasMessageContaining("no follower is left");
      assertThatThrownBy(() -> write.stream().close()).isInstanceOfSatisfying(FffsException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR));
    }
  }

  private List<String> primaryFails(String pipeline, Configuration conf, int dataNodes, int lost,
      FaultedWrite.Fault fault) throws Exception {
    return primaryFails(pipeline, conf, dataNodes, lost, cluster -> { }, fault);
  }

  /**
   * Writes with {@code fault} through a pipeline whose primary is the process DataNode, beside {@code dataNodes}
   * others; checks that the first {@code lost} members of that pipeline are out of the block's replicas and the rest
   * in, with a replacement. Returns that pipeline (uuids, primary first).
   */
  private List<String> primaryFails(String pipeline, Configuration conf, int dataNodes, int lost,
      java.util.function.Consumer<MiniFffsCluster> started, FaultedWrite.Fault fault) throws Exception {
    conf.set(DataTransferConfigKeys.WRITE_PIPELINE_KEY, pipeline);
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, dataNodes);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster);
        FaultedWrite write = new FaultedWrite(cluster, fs, replicas, base, 29)) {
      started.accept(cluster);
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
      assertThat(listed).as("the followers left stayed and DataNodes outside the first pipeline replaced the lost")
          .containsAll(firstPipeline.subList(lost, 3))
          .doesNotContainAnyElementsOf(firstPipeline.subList(0, lost))
          .anyMatch(uuid -> !firstPipeline.contains(uuid));
      return firstPipeline;
    }
  }

  private static void kill(NodeProcess process) throws IOException {
    try {
      process.kill();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted killing a DataNode");
    }
  }

  /** Stops the in-process DataNode {@code uuid} (its connections close, as a lost DataNode's do). */
  private static void stop(MiniFffsCluster cluster, String uuid) throws IOException {
    for (int i = 0; i < cluster.getNumDataNodes(); i++) {
      if (cluster.getDataNode(i) != null && cluster.getDataNode(i).uuid().equals(uuid)) {
        cluster.stopDataNode(i);
        return;
      }
    }
    throw new AssertionError("no running DataNode " + uuid);
  }
}
