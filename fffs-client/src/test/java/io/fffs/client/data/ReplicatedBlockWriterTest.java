package io.fffs.client.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.BlockInfoResponseProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaStampProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.ManualPhysicalClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The fan-out of a replicated block writer over channels that only record and answer when told
 * ({@link RecordingChannel}): followers get each packet at the primary's stamps, in order, only after the primary
 * answered; flush waits for every replica; a failed follower is dropped, a failed primary fails the writer; END
 * goes out only after every ack, and a replica with an older last entry gets no data; a follower whose ack comes
 * from a clock beyond the max offset is dropped without moving the client's clock.
 */
class ReplicatedBlockWriterTest {
  private static final long BLOCK = 7;
  private static final WriteOptions OPTIONS = new WriteOptions(64 << 20, null);

  private final HybridLogicalClock clock =
      new HybridLogicalClock(new ManualPhysicalClock(1_800_000_000_000_000L), 250_000);
  private final Map<String, RecordingChannel> channels = Map.of("a", new RecordingChannel(true), "b",
      new RecordingChannel(true), "c", new RecordingChannel(true));
  /** The pipeline requests sent (op and DataNode), in order. */
  private final List<String> calls = new ArrayList<>();

  private static DatanodeIdProto dn(String name) {
    return DatanodeIdProto.newBuilder().setDatanodeUuid(name).setHost(name).setDataPort(1).setIpcPort(0).build();
  }

  /** Answers BLOCK_INFO with each DataNode's last entry from {@code lastEntries}, and every OPEN and END. */
  private DataNodeCalls calls(Map<String, Long> lastEntries) {
    return (datanode, request) -> {
      RequestHeaderProto built = request.setCallId(0).setHlc(clock.last().toProto()).build();
      String name = datanode.getDatanodeUuid();
      synchronized (calls) {
        calls.add(built.getOp() + (built.hasReplicaOpen() ? "(" + built.getReplicaOpen().getRole() + ")" : "")
            + " " + name);
      }
      ResponseHeaderProto.Builder answer = ResponseHeaderProto.newBuilder().setCallId(0)
          .setHlc(RecordingChannel.hlc(0));
      if (built.getOp() == OpProto.BLOCK_INFO) {
        answer.setBlockInfo(BlockInfoResponseProto.newBuilder().setExists(true).setLength(0)
            .setResolvedHlc(HlcProto.newBuilder().setPacked(lastEntries.get(name))));
      }
      return answer.build();
    };
  }

  private ReplicatedBlockWriter writer(Map<String, Long> lastEntries) throws IOException {
    ReplicaPipeline pipeline = ReplicaPipeline.open(calls(lastEntries), List.of(dn("a"), dn("b"), dn("c")), BLOCK,
        null, clock);
    List<PacketWriter> writers = new ArrayList<>();
    DataNodeClocks clocks = new DataNodeClocks(clock);
    for (DatanodeIdProto member : pipeline.members()) {
      writers.add(new PacketWriter(channels.get(member.getDatanodeUuid()), member, clocks, BLOCK, null, OPTIONS,
          writers.size() + 1, 8, 64 << 10, 256 << 10, false, 60_000));
    }
    return new ReplicatedBlockWriter(pipeline, writers, clock, BLOCK, datanode -> {
      throw new IOException("no DataNode joins in this test");
    });
  }

  /** The writer's flush on another thread (it waits for acks the test gives). */
  private static CompletableFuture<Long> flushAsync(ReplicatedBlockWriter writer) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return writer.flush();
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    });
  }

  private static ByteBuffer bytes(int length) {
    return ByteBuffer.allocate(length);
  }

  @Test
  void followersGetThePrimarysStampsInOrderAndFlushWaitsForThem() throws Exception {
    ReplicatedBlockWriter writer = writer(Map.of("a", 0L, "b", 0L, "c", 0L));
    assertThat(calls).containsExactly("BLOCK_INFO a", "BLOCK_INFO b", "BLOCK_INFO c", "REPLICA_OPEN(FOLLOWER) b",
        "REPLICA_OPEN(FOLLOWER) c", "REPLICA_OPEN(PRIMARY) a");
    writer.write(0, bytes(100));
    writer.write(100, bytes(50));
    assertThat(channels.get("b").sent()).as("nothing before the primary's answer").isEmpty();

    channels.get("a").ack(2);
    CompletableFuture<Long> flushed = flushAsync(writer);
    for (String follower : List.of("b", "c")) {
      channels.get(follower).awaitSent(2);
      List<RecordingChannel.Sent> sent = channels.get(follower).sent();
      for (int i = 0; i < 2; i++) {
        ResponseHeaderProto answer = channels.get("a").sent().get(i).ack().get();
        ReplicaStampProto stamp = sent.get(i).request().getWrite().getReplica();
        assertThat(stamp.getEntryHlc()).isEqualTo(answer.getWrite().getEntryHlc());
        assertThat(stamp.getLengthAfter()).isEqualTo(answer.getWrite().getBlockLength());
        assertThat(stamp.getFrontierHlc()).isEqualTo(answer.getHlc());
        assertThat(sent.get(i).request().getWrite().getOffset()).isEqualTo(i * 100);
      }
    }
    assertThat(flushed).as("the followers have not answered").isNotDone();
    channels.get("b").ack(2);
    channels.get("c").ack(2);
    assertThat(flushed.get(10, TimeUnit.SECONDS)).isEqualTo(150);
  }

  @Test
  void aFailedFollowerIsDroppedAndAFailedPrimaryFailsTheWriter() throws Exception {
    ReplicatedBlockWriter writer = writer(Map.of("a", 0L, "b", 0L, "c", 0L));
    writer.write(0, bytes(100));
    channels.get("a").ack(1);
    CompletableFuture<Long> flushed = flushAsync(writer);
    channels.get("b").awaitSent(1);
    channels.get("c").awaitSent(1);
    channels.get("b").fail(new IOException("connection reset"));
    channels.get("c").ack(1);
    assertThat(flushed.get(10, TimeUnit.SECONDS)).isEqualTo(100);
    assertThat(writer.replicas()).extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("a", "c");

    writer.write(100, bytes(10));
    channels.get("a").fail(new IOException("primary gone"));
    assertThatThrownBy(writer::flush).isInstanceOf(IOException.class).hasMessageContaining("primary gone");
    assertThat(channels.get("b").sent()).hasSize(1);
    assertThat(channels.get("c").sent()).as("nothing the primary did not apply").hasSize(1);
  }

  @Test
  void aFollowerAckingFromAClockBeyondTheMaxOffsetIsDroppedAndTheClientClockStays() throws Exception {
    ReplicatedBlockWriter writer = writer(Map.of("a", 0L, "b", 0L, "c", 0L));
    writer.write(0, bytes(100));
    channels.get("a").ack(1);
    CompletableFuture<Long> flushed = flushAsync(writer);
    channels.get("b").awaitSent(1);
    channels.get("c").awaitSent(1);
    long secondAhead = clock.physicalClock().currentTimeMicros() + 1_000_000;  // max offset 250 ms
    channels.get("b").ackAt(HlcProto.newBuilder().setPacked(HlcTimestamp.of(secondAhead, 0).packed()).build());
    channels.get("c").ack(1);
    assertThat(flushed.get(10, TimeUnit.SECONDS)).isEqualTo(100);
    assertThat(writer.replicas()).extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("a", "c");
    assertThat(clock.last().physicalMicros()).as("the skewed ack was not taken in").isLessThan(secondAhead - 500_000);
  }

  @Test
  void endGoesOutOnlyAfterEveryAckAndAStaleReplicaGetsNoData() throws Exception {
    ReplicatedBlockWriter writer = writer(Map.of("a", 500L, "b", 500L, "c", 400L));
    assertThat(calls).contains("REPLICA_OPEN(STALE) c").doesNotContain("REPLICA_OPEN(FOLLOWER) c");
    writer.write(0, bytes(100));
    channels.get("a").ack(1);
    CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> {
      try {
        writer.close();
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    });
    channels.get("b").awaitSent(1);
    synchronized (calls) {
      assertThat(calls).as("b has not answered yet").doesNotContain("REPLICA_END b");
    }
    channels.get("b").ack(1);
    closed.get(10, TimeUnit.SECONDS);
    assertThat(calls).endsWith("REPLICA_END b");
    assertThat(channels.get("c").sent()).isEmpty();
  }
}
