package io.fffs.client.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.BlockInfoResponseProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaStampProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.security.BlockAccessMode;
import io.fffs.common.security.BlockKey;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.ManualPhysicalClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The fan-out of a replicated block writer over channels that only record and answer when told
 * ({@link RecordingChannel}): followers get each packet at the primary's stamps, in order, only after the primary
 * answered; flush waits for every replica; a failed follower is dropped, a failed primary fails the writer; END
 * goes out only after every ack, and a replica with an older last entry gets no data; a follower whose ack comes
 * from a clock beyond the max offset is dropped without moving the client's clock; a member that refuses the
 * token (a packet or a REPLICA_END) gets exactly what it did not apply again, with the fresh token. After a primary
 * failed, {@link ReplicaPipeline#promote} makes the survivor holding the newest entry the primary, stamping after the
 * last acknowledged entry, and brings the other up to it, or opens nothing when none holds that entry.
 */
class ReplicatedBlockWriterTest {
  private static final long BLOCK = 7;
  private static final WriteOptions OPTIONS = new WriteOptions(64 << 20, null);

  private final HybridLogicalClock clock =
      new HybridLogicalClock(new ManualPhysicalClock(1_800_000_000_000_000L), 250_000);
  private final Map<String, RecordingChannel> channels = Map.of("a", new RecordingChannel(true), "b",
      new RecordingChannel(true), "c", new RecordingChannel(true));
  /** The pipeline requests sent (op and DataNode), in order; and as sent. */
  private final List<String> calls = new ArrayList<>();
  private final List<RequestHeaderProto> requests = new ArrayList<>();
  /** The channel of the newest writer the block writer opened to a DataNode after the pipeline's start. */
  private final Map<String, RecordingChannel> reopened = new ConcurrentHashMap<>();
  /** DataNodes that refuse the next REPLICA_END (once each). */
  private final Set<String> refuseEnd = ConcurrentHashMap.newKeySet();
  private static final BlockToken FRESH = BlockToken.sign(new BlockKey(2, new byte[BlockKey.SECRET_BYTES],
      Long.MAX_VALUE), BLOCK, BlockAccessMode.WRITE, "writer", Long.MAX_VALUE);

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
            + (built.hasTransferBlock() ? "(after " + built.getTransferBlock().getAfterHlc() + ")" : "") + " "
            + name);
        requests.add(built);
      }
      if (built.getOp() == OpProto.REPLICA_END && refuseEnd.remove(name)) {
        throw new FffsException(ErrorCode.ACCESS_DENIED, "block token refused: key unknown");
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
    return new ReplicatedBlockWriter(pipeline, writers, clock, BLOCK, null, (datanode, token) -> {
      RecordingChannel channel = new RecordingChannel(true);
      reopened.put(datanode.getDatanodeUuid(), channel);
      return new PacketWriter(channel, datanode, clocks, BLOCK, token, OPTIONS,
          100 + reopened.size(), 8, 64 << 10, 256 << 10, false, 60_000);
    });
  }

  /**
   * Writes 100 bytes, which the primary {@code a} acknowledges, and flushes on another thread until both followers
   * were sent them; returns the flush.
   */
  private CompletableFuture<Long> forwardedOnce(ReplicatedBlockWriter writer) throws Exception {
    writer.write(0, bytes(100));
    channels.get("a").ack(1);
    CompletableFuture<Long> flushed = flushAsync(writer);
    channels.get("b").awaitSent(1);
    channels.get("c").awaitSent(1);
    return flushed;
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

  /**
   * How many bytes the primary applied is a query: asked between writes (as the stream asks it of every open writer
   * when it opens another block's), it counts the answered packets and sends the followers nothing; the next flush
   * forwards them.
   */
  @Test
  void askingWhatThePrimaryAppliedSendsNothing() throws Exception {
    ReplicatedBlockWriter writer = writer(Map.of("a", 0L, "b", 0L, "c", 0L));
    writer.write(0, bytes(100));
    writer.write(100, bytes(50));
    assertThat(writer.acknowledgedBytes()).isZero();
    channels.get("a").ack(1);
    assertThat(writer.acknowledgedBytes()).as("the first packet is answered").isEqualTo(100);
    channels.get("a").ack(1);
    assertThat(writer.acknowledgedBytes()).isEqualTo(150);
    assertThat(writer.acknowledgedBytes()).isEqualTo(150);
    assertThat(channels.get("b").sent()).as("nothing forwarded by the queries").isEmpty();
    assertThat(channels.get("c").sent()).isEmpty();

    CompletableFuture<Long> flushed = flushAsync(writer);
    channels.get("b").awaitSent(2);
    channels.get("c").awaitSent(2);
    channels.get("b").ack(2);
    channels.get("c").ack(2);
    assertThat(flushed.get(10, TimeUnit.SECONDS)).isEqualTo(150);
    assertThat(writer.acknowledgedBytes()).isEqualTo(150);
  }
  /**
   * A retained write in direct memory goes to the primary from where it is; the followers, sent it only after the
   * primary's answer (when the caller may already reuse that memory), get a copy, and the same bytes.
   */
  @Test
  void aRetainedWriteGoesToThePrimaryFromTheCallersMemoryAndToTheFollowersAsACopy() throws Exception {
    ReplicatedBlockWriter writer = writer(Map.of("a", 0L, "b", 0L, "c", 0L));
    byte[] data = new byte[100];
    new java.util.Random(3).nextBytes(data);
    ByteBuffer kept = ByteBuffer.allocateDirect(100).put(data).flip();
    writer.writeRetained(0, kept);
    channels.get("a").ack(1);
    CompletableFuture<Long> flushed = flushAsync(writer);
    channels.get("b").awaitSent(1);
    channels.get("c").awaitSent(1);
    kept.put(0, (byte) ~data[0]);  // acknowledged by the primary: the caller may reuse it now
    assertThat(channels.get("a").sent().get(0).wrapped()).isTrue();
    for (String follower : List.of("b", "c")) {
      RecordingChannel.Sent sent = channels.get(follower).sent().get(0);
      assertThat(sent.wrapped()).isFalse();
      byte[] payload = new byte[sent.length()];
      sent.payload().duplicate().get(payload);
      assertThat(payload).containsExactly(data);
    }
    channels.get("b").ack(1);
    channels.get("c").ack(1);
    assertThat(flushed.get(10, TimeUnit.SECONDS)).isEqualTo(100);
  }

  @Test
  void aFailedFollowerIsDroppedAndAFailedPrimaryFailsTheWriter() throws Exception {
    ReplicatedBlockWriter writer = writer(Map.of("a", 0L, "b", 0L, "c", 0L));
    CompletableFuture<Long> flushed = forwardedOnce(writer);
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
    CompletableFuture<Long> flushed = forwardedOnce(writer);
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

  private static long flushOf(ReplicatedBlockWriter writer) {
    try {
      return writer.flush();
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
  }

  private static List<Long> offsets(RecordingChannel channel) {
    return channel.sent().stream().map(sent -> sent.request().getWrite().getOffset()).toList();
  }

  /** Renews on another thread: a renewal waits for the answers the test gives meanwhile. */
  private static CompletableFuture<Void> renew(ReplicatedBlockWriter writer) {
    return CompletableFuture.runAsync(() -> {
      try {
        writer.renewToken(FRESH);
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    });
  }

  @Test
  void aFollowerThatRefusesTheTokenGetsWhatItDidNotApplyAgainAtThePrimarysStamps() throws Exception {
    ReplicatedBlockWriter writer = writer(Map.of("a", 0L, "b", 0L, "c", 0L));
    for (int i = 0; i < 3; i++) {
      writer.write(i * 100, bytes(100));
    }
    channels.get("a").ack(3);
    writer.write(300, bytes(100));  // forwards the three answered packets
    channels.get("b").awaitSent(3);
    channels.get("b").ack(1);
    channels.get("b").refuse();  // the DataNode refuses the rest of the stream too
    channels.get("b").refuse();
    channels.get("c").ack(3);
    channels.get("a").ack(1);
    assertThatThrownBy(() -> writer.write(400, bytes(100))).isInstanceOfSatisfying(FffsException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED));
    assertThat(writer.replicas()).as("still a member").extracting(DatanodeIdProto::getDatanodeUuid)
        .containsExactlyInAnyOrder("a", "b", "c");
    assertThat(offsets(channels.get("b"))).as("nothing more after the refusal").hasSize(3);

    channels.get("a").ack(1);
    CompletableFuture<Void> renewed = renew(writer);
    channels.get("c").awaitSent(5);  // the last answered packet goes on to c before the renewal
    channels.get("c").ack(2);
    renewed.get(10, TimeUnit.SECONDS);
    RecordingChannel again = reopened.get("b");
    assertThat(offsets(again)).as("what b did not apply, in order").containsExactly(100L, 200L, 300L, 400L);
    for (int i = 0; i < 4; i++) {
      RequestHeaderProto request = again.sent().get(i).request();
      assertThat(request.getTokensList()).containsExactly(FRESH.toProto());
      assertThat(request.getWrite().getReplica().getEntryHlc())
          .isEqualTo(channels.get("a").sent().get(i + 1).ack().get().getWrite().getEntryHlc());
    }
    assertThat(reopened.get("c").sent()).as("c applied everything").isEmpty();
    assertThat(reopened.get("a").sent()).as("and so did the primary").isEmpty();
    CompletableFuture<Long> flushed = CompletableFuture.supplyAsync(() -> flushOf(writer));
    again.ack(4);
    assertThat(flushed.get(10, TimeUnit.SECONDS)).isEqualTo(500);
  }

  @Test
  void aPrimaryThatRefusesTheTokenGetsWhatItDidNotApplyAgainAndTheFollowersFollow() throws Exception {
    ReplicatedBlockWriter writer = writer(Map.of("a", 0L, "b", 0L, "c", 0L));
    writer.write(0, bytes(100));
    writer.write(100, bytes(100));
    channels.get("a").ack(1);
    channels.get("a").refuse();
    assertThatThrownBy(() -> writer.write(200, bytes(100))).isInstanceOfSatisfying(FffsException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED));
    assertThat(channels.get("a").sent()).as("nothing after the refusal").hasSize(2);

    CompletableFuture<Void> renewed = renew(writer);
    for (String follower : List.of("b", "c")) {
      channels.get(follower).awaitSent(1);  // what the primary applied before the refusal
      channels.get(follower).ack(1);
    }
    renewed.get(10, TimeUnit.SECONDS);
    RecordingChannel again = reopened.get("a");
    assertThat(offsets(again)).as("the refused packet and the one not sent").containsExactly(100L, 200L);
    assertThat(again.sent().get(0).request().getTokensList()).containsExactly(FRESH.toProto());
    assertThat(again.sent().get(0).request().getWrite().hasReplica()).as("the primary stamps").isFalse();
    again.ack(2);
    CompletableFuture<Long> flushed = CompletableFuture.supplyAsync(() -> flushOf(writer));
    for (String follower : List.of("b", "c")) {
      reopened.get(follower).awaitSent(2);
      reopened.get(follower).ack(2);
      assertThat(offsets(channels.get(follower))).containsExactly(0L);
      assertThat(offsets(reopened.get(follower))).containsExactly(100L, 200L);
    }
    assertThat(flushed.get(10, TimeUnit.SECONDS)).isEqualTo(300);
  }

  @Test
  void aFollowerThatRefusesToEndThePipelineIsEndedAfterTheRenewal() throws Exception {
    ReplicatedBlockWriter writer = writer(Map.of("a", 0L, "b", 0L, "c", 0L));
    CompletableFuture<Long> flushed = forwardedOnce(writer);
    channels.get("b").ack(1);
    channels.get("c").ack(1);
    flushed.get(10, TimeUnit.SECONDS);
    refuseEnd.add("c");
    assertThatThrownBy(writer::close).isInstanceOfSatisfying(FffsException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED));
    writer.renewToken(FRESH);
    writer.close();
    synchronized (calls) {
      assertThat(calls).endsWith("REPLICA_END b", "REPLICA_END c", "REPLICA_END c");
    }
  }

  @Test
  void theNewestSurvivorStampsAfterTheLastAcknowledgedEntryAndTheOtherCatchesUp() throws Exception {
    long base = clock.now().packed();
    ReplicaPipeline pipeline = ReplicaPipeline.promote(calls(Map.of("b", base + 10, "c", base + 1_000)),
        List.of(dn("b"), dn("c")), BLOCK, null, clock, HlcTimestamp.valueOf(base + 1_000));
    assertThat(pipeline.members()).extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("c", "b");
    assertThat(calls).containsExactly("BLOCK_INFO b", "BLOCK_INFO c", "REPLICA_OPEN(PRIMARY) c", "BLOCK_INFO b",
        "TRANSFER_BLOCK(after " + (base + 10) + ") c", "REPLICA_OPEN(FOLLOWER) b");
    assertThat(requests.get(2).getHlc().getPacked()).as("the clock the new primary merges before it stamps")
        .isGreaterThanOrEqualTo(base + 1_000);
    assertThat(pipeline.epoch()).isGreaterThan(base + 1_000);
  }

  @Test
  void noSurvivorHoldingTheLastAcknowledgedEntryOpensNothing() {
    long base = clock.now().packed();
    assertThatThrownBy(() -> ReplicaPipeline.promote(calls(Map.of("b", base + 10, "c", base + 20)),
        List.of(dn("b"), dn("c")), BLOCK, null, clock, HlcTimestamp.valueOf(base + 1_000)))
        .isInstanceOf(FffsException.class).hasMessageContaining("last acknowledged entry")
        .extracting(e -> ((FffsException) e).code()).isEqualTo(ErrorCode.IO_ERROR);
    assertThat(calls).containsExactly("BLOCK_INFO b", "BLOCK_INFO c");
  }
}
