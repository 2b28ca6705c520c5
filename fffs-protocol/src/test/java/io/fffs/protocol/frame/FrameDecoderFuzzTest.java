package io.fffs.protocol.frame;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * Whatever bytes a peer sends, in whatever pieces, the frame decoder hands on only well-formed frames (a header
 * that parsed, a payload exactly the frame's remaining length) or closes the connection; it never throws into the
 * pipeline and never leaks a buffer. Seeds under {@code FrameDecoderFuzzTestInputs}; fuzzed by
 * {@code dev-support/fuzz.sh}.
 */
class FrameDecoderFuzzTest {
  private static final int MAX_FRAME = 64 * 1024;

  @FuzzTest(maxDuration = "5m")
  void anyByteStreamGivesWellFormedFramesOrAClosedConnection(FuzzedDataProvider data) {
    EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder<>(RequestHeaderProto.parser(), MAX_FRAME,
        "fffs.datatransfer.max-frame-size", data.consumeBoolean()));
    try {
      while (data.remainingBytes() > 0 && channel.isOpen()) {
        byte[] piece = data.consumeBytes(1 + data.consumeInt(0, 4096));
        channel.writeInbound(Unpooled.wrappedBuffer(piece));
        for (Object out = channel.readInbound(); out != null; out = channel.readInbound()) {
          @SuppressWarnings("unchecked")
          Frame<RequestHeaderProto> frame = (Frame<RequestHeaderProto>) out;
          try {
            ByteBuf payload = frame.payload();
            assertThat(frame.header()).isNotNull();
            assertThat(FrameFormat.wireBytes(frame.header(), payload.readableBytes())).isLessThanOrEqualTo(
                FrameFormat.LENGTH_FIELD_BYTES + MAX_FRAME);
          } finally {
            frame.release();
          }
        }
      }
    } finally {
      channel.finishAndReleaseAll();
    }
  }
}
