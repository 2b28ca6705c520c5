package io.fffs.datanode.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.ChainMemberProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.fffs.common.proto.DataTransferProtos.WriteResponseProto;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A chain link answers upstream in write order, each answer once the next member answered it, or broken. */
class ChainLinkTest {
  private final EmbeddedChannel upstream = new EmbeddedChannel();
  private final EmbeddedChannel downstream = new EmbeddedChannel();
  private final ChainLink link = new ChainLink(7, upstream, downstream, "next:1", TimeUnit.SECONDS.toNanos(60));

  ChainLinkTest() {
    link.connected();
  }

  @Test
  void answersGoUpstreamInOrderOnceTheNextMemberAnswered() throws Exception {
    ChainLink.Slot first = forwarded(1);
    ChainLink.Slot second = forwarded(2);
    link.local(second, applied(2));
    link.local(first, applied(1));
    assertThat(answers()).as("nothing before the next member answers").isEmpty();

    link.answered(nextApplied(1, 1));
    link.answered(nextApplied(2, 1));
    List<ResponseHeaderProto> answers = answers();
    assertThat(answers).extracting(ResponseHeaderProto::getCallId).containsExactly(1L, 2L);
    assertThat(answers).allSatisfy(a -> assertThat(a.getWrite().getDownstreamApplied()).isEqualTo(2));
    assertThat(forwardedRequests()).extracting(r -> r.getWrite().getOffset()).containsExactly(1L, 2L);
  }

  @Test
  void aBrokenLinkAnswersTheWritesInFlightAndLaterOnesWithoutTheNextMember() throws Exception {
    ChainLink.Slot first = forwarded(1);
    link.local(first, applied(1));
    link.answered(nextApplied(1, 0));
    ChainLink.Slot second = forwarded(2);
    link.local(second, applied(2));
    downstream.close();  // the next member's connection is gone before it answered the second write

    ChainLink.Slot third = link.open();
    ByteBuf payload = payload(3);
    link.forward(third, request(3), payload);
    assertThat(payload.refCnt()).as("not sent, released").isZero();
    link.local(third, applied(3));

    List<ResponseHeaderProto> answers = answers();
    assertThat(answers).extracting(ResponseHeaderProto::getCallId).containsExactly(1L, 2L, 3L);
    assertThat(answers.get(0).getWrite().getDownstreamApplied()).isEqualTo(1);
    for (ResponseHeaderProto answer : answers.subList(1, 3)) {
      assertThat(answer.getWrite().getDownstreamApplied()).isZero();
      assertThat(answer.getWrite().getDownstreamError().getMessage()).contains("next:1");
    }
  }

  @Test
  void aRefusalDownstreamBreaksTheLinkAndAnOwnRefusalGoesBackAsItIs() throws Exception {
    ChainLink.Slot first = forwarded(1);
    link.local(first, applied(1));
    link.answered(ResponseHeaderProto.newBuilder().setCallId(1).setHlc(hlc())
        .setError(new FffsException(ErrorCode.REPLICA_STALE, "behind").toProto()).build());
    ChainLink.Slot second = link.open();
    link.local(second, ResponseHeaderProto.newBuilder().setCallId(2).setHlc(hlc())
        .setError(new FffsException(ErrorCode.CORRUPT, "bad").toProto()).build());

    List<ResponseHeaderProto> answers = answers();
    assertThat(answers.get(0).getWrite().getDownstreamApplied()).isZero();
    assertThat(answers.get(0).getWrite().getDownstreamError().getMessage()).contains("next:1", "behind");
    assertThat(answers.get(1).getError().getMessage()).isEqualTo("bad");
    assertThat(downstream.isOpen()).isFalse();
  }

  @Test
  void writesForwardedWhileItConnectsGoOutInOrderOnceItIsUp() throws Exception {
    EmbeddedChannel connecting = new EmbeddedChannel();
    ChainLink later = new ChainLink(8, upstream, connecting, "next:2", TimeUnit.SECONDS.toNanos(60));
    for (long offset = 1; offset <= 3; offset++) {
      ChainLink.Slot slot = later.open();
      later.forward(slot, request(offset), payload(offset));
      later.local(slot, applied(offset));
    }
    assertThat(forwardedRequests(connecting)).as("nothing sent before the connection is up").isEmpty();
    assertThat(answers()).isEmpty();

    later.connected();
    assertThat(forwardedRequests(connecting)).extracting(r -> r.getWrite().getOffset()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aNextMemberThatIsNeverReachedIsReportedAtTheTimeoutAndWhatWaitedIsLetGo() throws Exception {
    EmbeddedChannel unreachable = new EmbeddedChannel();
    ChainLink stuck = new ChainLink(9, upstream, unreachable, "next:3", TimeUnit.MILLISECONDS.toNanos(40));
    ChainLink.Slot slot = stuck.open();
    ByteBuf payload = payload(1);
    stuck.forward(slot, request(1), payload);
    stuck.local(slot, applied(1));

    List<ResponseHeaderProto> answers = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (answers.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
      upstream.runScheduledPendingTasks();
      answers.addAll(answers());
    }
    assertThat(answers).as("answered without the next member").hasSize(1);
    assertThat(answers.get(0).getWrite().getDownstreamApplied()).isZero();
    assertThat(answers.get(0).getWrite().getDownstreamError().getMessage()).contains("next:3", "could not be reached");
    assertThat(payload.refCnt()).as("the waiting write let go").isZero();
    assertThat(unreachable.isOpen()).as("the connect given up").isFalse();
  }

  private ChainLink.Slot forwarded(long offset) {
    ChainLink.Slot slot = link.open();
    link.forward(slot, request(offset), payload(offset));
    return slot;
  }

  private static RequestHeaderProto.Builder request(long offset) {
    return RequestHeaderProto.newBuilder().setOp(OpProto.WRITE).setHlc(hlc())
        .setWrite(WriteRequestProto.newBuilder().setBlockId(5).setOffset(offset));
  }

  private static ResponseHeaderProto applied(long callId) {
    return ResponseHeaderProto.newBuilder().setCallId(callId).setHlc(hlc())
        .setWrite(WriteResponseProto.newBuilder().setEntryHlc(hlc()).setBlockLength(8)).build();
  }

  private static ResponseHeaderProto nextApplied(long callId, int further) {
    return ResponseHeaderProto.newBuilder().setCallId(callId).setHlc(hlc()).setWrite(WriteResponseProto
        .newBuilder().setEntryHlc(hlc()).setBlockLength(8).setDownstreamApplied(further)).build();
  }

  private static HlcProto hlc() {
    return HlcProto.newBuilder().setPacked(1L << 20).build();
  }

  private List<ResponseHeaderProto> answers() throws Exception {
    List<ResponseHeaderProto> answers = new ArrayList<>();
    for (ByteBuf frame = upstream.readOutbound(); frame != null; frame = upstream.readOutbound()) {
      answers.add(ResponseHeaderProto.parseFrom(header(frame)));
      frame.release();
    }
    return answers;
  }

  private List<RequestHeaderProto> forwardedRequests() throws Exception {
    return forwardedRequests(downstream);
  }

  private static List<RequestHeaderProto> forwardedRequests(EmbeddedChannel downstream) throws Exception {
    List<RequestHeaderProto> requests = new ArrayList<>();
    for (ByteBuf frame = downstream.readOutbound(); frame != null; frame = downstream.readOutbound()) {
      RequestHeaderProto request = RequestHeaderProto.parseFrom(header(frame));
      byte[] payload = new byte[frame.readableBytes()];
      frame.readBytes(payload);
      assertThat(payload).as("the payload follows its header in the same message")
          .isEqualTo(ByteBufUtil.getBytes(payload(request.getWrite().getOffset())));
      requests.add(request);
      frame.release();
    }
    return requests;
  }

  /** The 8 bytes forwarded with the write at {@code offset}, each the offset's low byte. */
  private static ByteBuf payload(long offset) {
    byte[] bytes = new byte[8];
    Arrays.fill(bytes, (byte) offset);
    return Unpooled.wrappedBuffer(bytes);
  }

  private static byte[] header(ByteBuf prefix) {
    prefix.readInt();
    byte[] header = new byte[prefix.readInt()];
    prefix.readBytes(header);
    return header;
  }

  /** A request cannot make a member wait for the next one longer than its own response timeout. */
  @Test
  void theChainTimeoutIsBoundedByTheDataNodesResponseTimeout() {
    WriteRequestProto.Builder request = WriteRequestProto.newBuilder().setBlockId(1).setOffset(0)
        .addDownstream(ChainMemberProto.newBuilder().setHost("h").setDataPort(1));
    assertThat(ChainConnector.timeoutNanos(request.setChainTimeoutMs(0xFFFF_FFFF).build(), 10_000))
        .as("2^32 - 1 ms asked, 10 s allowed, one member after").isEqualTo(TimeUnit.SECONDS.toNanos(10) / 2);
    assertThat(ChainConnector.timeoutNanos(request.setChainTimeoutMs(3_000).build(), 10_000))
        .isEqualTo(TimeUnit.SECONDS.toNanos(3) / 2);
    assertThat(ChainConnector.timeoutNanos(request.clearChainTimeoutMs().build(), 10_000))
        .isEqualTo(TimeUnit.SECONDS.toNanos(10) / 2);
  }
}
