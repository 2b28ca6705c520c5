package io.fffs.protocol.frame;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The frame decoder over generated input: good frames split anywhere come out whole and in order; arbitrary bytes
 * either decode or close the connection, and never make it allocate more than the maximum frame size.
 */
class FrameDecoderPropertiesTest {
  private static final int MAX_FRAME = 4096;

  private static EmbeddedChannel channel() {
    return channel(false);
  }

  /** {@code composite}: the client's mode, payloads (and headers) may span several received pieces. */
  private static EmbeddedChannel channel(boolean composite) {
    return new EmbeddedChannel(new FrameDecoder<>(RequestHeaderProto.parser(), MAX_FRAME, "test.max", composite));
  }

  @Property(tries = 300)
  void goodFramesSplitAnywhereComeOutWholeAndInOrder(@ForAll @Size(min = 1, max = 6) List<@Size(max = 700)
      byte[]> payloads, @ForAll @IntRange(min = 1, max = 97) int pieceSize, @ForAll boolean composite) {
    EmbeddedChannel channel = channel(composite);
    ByteBuf wire = Unpooled.buffer();
    for (int i = 0; i < payloads.size(); i++) {
      RequestHeaderProto header = RequestHeaderProto.newBuilder().setCallId(i).setOp(OpProto.WRITE)
          .setHlc(HlcProto.newBuilder().setPacked(i)).build();
      ByteBuf prefix = FrameFormat.prefix(ByteBufAllocator.DEFAULT, header, payloads.get(i).length);
      wire.writeBytes(prefix);
      prefix.release();
      wire.writeBytes(payloads.get(i));
    }
    while (wire.isReadable()) {
      channel.writeInbound(wire.readRetainedSlice(Math.min(pieceSize, wire.readableBytes())));
    }
    wire.release();
    for (int i = 0; i < payloads.size(); i++) {
      Frame<RequestHeaderProto> frame = channel.readInbound();
      assertThat(frame).isNotNull();
      assertThat(frame.header().getCallId()).isEqualTo(i);
      byte[] payload = new byte[frame.payload().readableBytes()];
      frame.payload().readBytes(payload);
      assertThat(payload).isEqualTo(payloads.get(i));
      frame.release();
    }
    Object leftover = channel.readInbound();
    assertThat(leftover).isNull();
    assertThat(channel.isOpen()).isTrue();
    channel.finishAndReleaseAll();
  }

  @Property(tries = 1000)
  void arbitraryBytesDecodeOrCloseTheConnection(@ForAll @Size(max = 2000) byte[] bytes,
      @ForAll @IntRange(min = 1, max = 300) int pieceSize) {
    EmbeddedChannel channel = channel();
    for (int at = 0; at < bytes.length && channel.isOpen(); at += pieceSize) {
      channel.writeInbound(Unpooled.wrappedBuffer(bytes, at, Math.min(pieceSize, bytes.length - at)));
    }
    for (Object frame = channel.readInbound(); frame != null; frame = channel.readInbound()) {
      @SuppressWarnings("unchecked")
      Frame<RequestHeaderProto> decoded = (Frame<RequestHeaderProto>) frame;
      assertThat(decoded.payload().readableBytes()).isLessThanOrEqualTo(MAX_FRAME);
      decoded.release();
    }
    channel.finishAndReleaseAll();
  }
}
