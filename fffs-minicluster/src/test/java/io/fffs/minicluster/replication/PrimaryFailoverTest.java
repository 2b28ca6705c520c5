package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.WriteFaultInjector;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.BlockInfo;
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
import java.util.concurrent.atomic.AtomicLong;
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
 * the close. The same holds when the primary is lost just as a WRITE token comes due ({@link TokenDue}), with writes
 * outstanding or none, at a write or at an hsync's SYNC.
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
   * follower takes over, the new pipeline is synced, and the hsync returns. Nothing had to be sent again, yet the
   * NameNode holds the block's last entry as soon as the hsync returns, as the new pipeline holds it.
   */
  @ParameterizedTest
  @ValueSource(strings = {"chain", "fan-out"})
  void aPrimaryKilledBetweenAnHsyncsFlushAndItsSyncIsSucceeded(String pipeline) throws Exception {
    AtomicReference<NodeProcess> armed = new AtomicReference<>();
    AtomicInteger killed = new AtomicInteger();
    AtomicReference<DatanodeIdProto> promoted = new AtomicReference<>();
    AtomicLong promotedBlock = new AtomicLong();
    WriteFaultInjector.set(new WriteFaultInjector() {
      @Override
      public void beforeSync(String path) throws IOException {
        NodeProcess victim = armed.getAndSet(null);
        if (victim != null) {
          kill(victim);
          killed.incrementAndGet();
        }
      }

      @Override
      public void afterPromotion(String path, long blockId, DatanodeIdProto primary) {
        promoted.set(primary);
        promotedBlock.set(blockId);
      }
    });
    MiniFffsCluster[] running = new MiniFffsCluster[1];
    primaryFails(pipeline, FaultedWrite.conf(ReplicatedHistoryTest.conf(3)), 3, 1, cluster -> running[0] = cluster,
        (record, process) -> {
          if (record == 95) {
            armed.set(process);  // killed inside the hsync after record 99
          } else if (record == 99) {
            long blockId = promotedBlock.get();
            BlockInfo last = store(running[0], promoted.get().getDatanodeUuid()).info(blockId, TimeSpec.latest());
            assertThat(HlcTimestamp.valueOf(running[0].getNameNode().namesystem().expectedLastEntry(blockId)))
                .as("the NameNode's last entry of the block right after the hsync that failed over")
                .isEqualTo(last.hlc());
          }
        });
    assertThat(killed).as("the primary was killed between the flush and the SYNC of an hsync").hasValue(1);
  }

  /**
   * A WRITE token comes due at an hsync's SYNC, and the primary is killed right then, with nothing outstanding:
   * renewing the token closes the writers, the SYNC fails on the lost primary, and the block's pipeline is reopened
   * without it (a follower stamps it now) and synced.
   */
  @Test
  void aPrimaryLostWhenATokenComesDueAtAnHsyncsSyncIsSucceeded() throws Exception {
    TokenDue due = new TokenDue();
    WriteFaultInjector.set(due);
    List<String> first = primaryFails("chain", FaultedWrite.conf(ReplicatedHistoryTest.conf(3)), 3, 1,
        (record, process) -> {
          if (record == 99) {
            due.arm(process, 2);  // the next hsync sends its packet, then its SYNC finds the token due
          }
        });
    assertThat(due.struckPrimary).as("the token came due once, its primary killed there").hasValue(first.get(0));
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
    List<String> addresses = new ArrayList<>();
    GaveUp gaveUp = givesUp(31, (cluster, write) -> {
      WriteFaultInjector.set(new WriteFaultInjector() {
        @Override
        public void afterPromotion(String path, long blockId, DatanodeIdProto primary) throws IOException {
          addresses.add(primary.getHost() + ":" + primary.getDataPort());
          stop(cluster, primary.getDatanodeUuid());
        }
      });
      return (record, process) -> {
        if (record == 95) {
          process.kill();
        }
      };
    });
    assertThat(gaveUp.message()).contains("no follower is left to take over", addresses.get(0), addresses.get(1));
    assertThat(addresses).as("both followers took over in turn").hasSize(2);
  }

  /**
   * A WRITE token comes due at the first packet after an hsync, and the primary is killed right then, with nothing
   * outstanding: the stream waits for no answer of it, so its loss is first met as the pipeline is reopened with the
   * fresh token. As when a follower takes over, the new pipeline holds every acknowledged entry without it, a
   * DataNode outside the pipeline replaces it, and the write goes on.
   */
  @ParameterizedTest
  @ValueSource(strings = {"chain", "fan-out"})
  void aPrimaryLostWithNothingOutstandingWhenATokenComesDueIsSucceeded(String pipeline) throws Exception {
    TokenDue due = new TokenDue();
    WriteFaultInjector.set(due);
    List<String> first = primaryFails(pipeline, FaultedWrite.conf(ReplicatedHistoryTest.conf(3)), 3, 1,
        (record, process) -> {
          if (record == 99) {
            due.arm(process, 1);  // just hsync'd: every write is acknowledged
          }
        });
    assertThat(due.struckPrimary).as("the token came due once, its primary killed there").hasValue(first.get(0));
  }

  /**
   * The primary stopped (SIGSTOP) before a write, so that write is unanswered for certain, then killed as the token
   * comes due at the next write: the stream drains its writers through the failover path before it renews the
   * token, so a follower takes over and is sent the unanswered write again.
   */
  @ParameterizedTest
  @ValueSource(strings = {"chain", "fan-out"})
  void aPrimaryLostWithWritesOutstandingWhenATokenComesDueIsSucceeded(String pipeline) throws Exception {
    TokenDue due = new TokenDue();
    WriteFaultInjector.set(due);
    Configuration conf = FaultedWrite.conf(ReplicatedHistoryTest.conf(3));
    conf.setInt(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, FaultedWrite.RECORD);  // each record goes out at once
    List<String> first = primaryFails(pipeline, conf, 3, 1, (record, process) -> {
      if (record == 95) {
        process.suspend();
        due.arm(process, 2);  // record 96 goes out unanswered; the token comes due at record 97
      }
    });
    assertThat(due.struckPrimary).as("the token came due once, its primary killed there").hasValue(first.get(0));
  }

  /**
   * The primary killed as a token comes due with nothing outstanding, and both followers stopped with it: no
   * follower is left to take over, and the write fails with IO_ERROR naming the lost primary, as do the later flush
   * and the close.
   */
  @Test
  void aWriteWhoseWholePipelineIsLostWhenATokenComesDueFailsTyped() throws Exception {
    TokenDue[] armed = new TokenDue[1];
    GaveUp gaveUp = givesUp(37, (cluster, write) -> {
      TokenDue due = new TokenDue() {
        @Override
        void strike(List<DatanodeIdProto> pipeline) throws IOException {
          super.strike(pipeline);
          for (DatanodeIdProto follower : pipeline.subList(1, pipeline.size())) {
            stop(cluster, follower.getDatanodeUuid());
          }
        }
      };
      WriteFaultInjector.set(due);
      armed[0] = due;
      return (record, process) -> {
        if (record == 99) {
          due.arm(process, 1);
        }
      };
    });
    assertThat(gaveUp.message()).contains("lost its primary", "no follower is left to take over");
    assertThat(armed[0].struckPrimary).hasValue(gaveUp.victim());
  }

  /** A write that gave up: its failure's message, and the victim, its first pipeline's primary. */
  private record GaveUp(String message, String victim) {}

  /** Installs what a give-up test needs once its cluster and victim run; returns the fault to write with. */
  private interface GiveUpFault {
    FaultedWrite.Fault arm(MiniFffsCluster cluster, FaultedWrite write) throws Exception;
  }

  /**
   * Writes by chain through a pipeline whose primary is the victim, with the fault {@code test} arms, on 3 DataNodes
   * beside it; asserts that the write fails with {@code IO_ERROR}, and so do a later hflush and the close: the bytes
   * written may be in no replica.
   */
  private GaveUp givesUp(long seed, GiveUpFault test) throws Exception {
    Configuration conf = FaultedWrite.conf(ReplicatedHistoryTest.conf(3));
    conf.set(DataTransferConfigKeys.WRITE_PIPELINE_KEY, "chain");
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster);
        FaultedWrite write = new FaultedWrite(cluster, fs, replicas, base, seed)) {
      FaultedWrite.Fault fault = test.arm(cluster, write);
      String victim = write.victimUuid();
      FffsException failure = catchThrowableOfType(() -> write.write("/lost", stamping -> stamping.size() == 3
          && stamping.get(0).equals(victim), fault), FffsException.class);
      assertThat(failure).as("the write failed typed").isNotNull();
      assertThat(failure.code()).isEqualTo(ErrorCode.IO_ERROR);
      assertThatThrownBy(() -> write.stream().hflush()).isInstanceOfSatisfying(FffsException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR)).hasMessageContaining("no follower is left");
      assertThatThrownBy(() -> write.stream().close()).isInstanceOfSatisfying(FffsException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR));
      return new GaveUp(failure.getMessage(), victim);
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

  /**
   * Makes a block's WRITE token come due at the {@code at}-th write after {@link #arm}, and kills (SIGKILL) the
   * armed DataNode right there, before the stream renews the token.
   */
  private static class TokenDue extends WriteFaultInjector {
    final AtomicReference<String> struckPrimary = new AtomicReference<>();
    private final AtomicReference<NodeProcess> armed = new AtomicReference<>();
    private final AtomicInteger countdown = new AtomicInteger();

    void arm(NodeProcess victim, int at) {
      countdown.set(at);
      armed.set(victim);
    }

    @Override
    public boolean tokenDue(String path, long blockId, List<DatanodeIdProto> pipeline) throws IOException {
      if (armed.get() == null || countdown.decrementAndGet() > 0) {
        return false;
      }
      strike(pipeline);
      return true;
    }

    /** Kills the armed DataNode, noting the pipeline's primary then. */
    void strike(List<DatanodeIdProto> pipeline) throws IOException {
      kill(armed.getAndSet(null));
      struckPrimary.set(pipeline.get(0).getDatanodeUuid());
    }
  }

  private static BlockStore store(MiniFffsCluster cluster, String uuid) {
    for (int i = 0; i < cluster.getNumDataNodes(); i++) {
      if (cluster.getDataNode(i) != null && cluster.getDataNode(i).uuid().equals(uuid)) {
        return cluster.getDataNode(i).store();
      }
    }
    throw new AssertionError("no running DataNode " + uuid);
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
