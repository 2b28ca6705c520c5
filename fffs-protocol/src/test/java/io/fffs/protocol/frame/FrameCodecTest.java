package io.fffs.protocol.frame;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FrameCodecTest {
  private static final RequestHeaderProto HEADER = RequestHeaderProto.newBuilder().setCallId(42).setOp(OpProto.SYNC)
      .setHlc(HlcProto.newBuilder().setPacked(7)).build();

  private static EmbeddedChannel channel(int maxFrame) {
    return new EmbeddedChannel(new FrameDecoder<>(RequestHeaderProto.parser(), maxFrame, "test.max"));
  }

  private static ByteBuf frame(byte[] payload) {
    return Unpooled.wrappedBuffer(FrameFormat.prefix(ByteBufAllocator.DEFAULT, HEADER, payload.length),
        Unpooled.wrappedBuffer(payload));
  }

  @Test
  void framesSplitAnywhereAreReassembledWithTheirPayload() {
    EmbeddedChannel channel = channel(1 << 20);
    byte[] first = "first payload".getBytes(StandardCharsets.UTF_8);
    ByteBuf bytes = Unpooled.wrappedBuffer(frame(first), frame(new byte[0]));
    int total = bytes.readableBytes();
    assertThat(total).isEqualTo(FrameFormat.wireBytes(HEADER, first.length) + FrameFormat.wireBytes(HEADER, 0));
    for (int i = 0; i < total; i += 3) {
      channel.writeInbound(bytes.readRetainedSlice(Math.min(3, bytes.readableBytes())));
    }
    Frame<RequestHeaderProto> a = channel.readInbound();
    Frame<RequestHeaderProto> b = channel.readInbound();
    assertThat(a.header()).isEqualTo(HEADER);
    assertThat(a.payload().toString(StandardCharsets.UTF_8)).isEqualTo("first payload");
    assertThat(b.payload().readableBytes()).isZero();
    Object none = channel.readInbound();
    assertThat(none).isNull();
    a.release();
    b.release();
    bytes.release();
    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void anOversizedLengthClosesTheChannelBeforeTheFrameArrives() {
    EmbeddedChannel channel = channel(1024);
    channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 4, 1}));
    assertThat(channel.isOpen()).isFalse();
    Object none = channel.readInbound();
    assertThat(none).isNull();
  }

  @Test
  void aHeaderThatDoesNotParseClosesTheChannel() {
    EmbeddedChannel channel = channel(1024);
    channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 7, 0, 0, 0, 3, 1, 2, 3}));
    assertThat(channel.isOpen()).isFalse();
  }
}
