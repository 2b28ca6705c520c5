package io.fffs.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.apache.hadoop.thirdparty.protobuf.InvalidProtocolBufferException;
import org.apache.hadoop.thirdparty.protobuf.Parser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits the byte stream into {@link Frame}s ({@link FrameFormat}): parses the header with {@code parser} (from a
 * copy of its bytes when the receive buffer is direct: {@link #parseHeader}) and hands the payload on as a retained
 * slice of the receive buffer, without copying.
 *
 * <p>By default the receive buffer is one contiguous cumulation, so that a payload is a single buffer. Netty's
 * merging cumulation, though, grows its buffer by reallocating and copying as a large frame trickles in, and each new
 * pool chunk is fresh zeroed memory (profiled: most of the client event loop's time on a read). Both the client
 * receiving READ payloads and the DataNode receiving WRITE payloads ask for {@linkplain #FrameDecoder(Parser, int,
 * String, boolean) composite payloads} instead: a composite keeps the socket reads as they are and a payload becomes
 * a slice over them, so its bytes are copied at most once, by whoever consumes them. Read such a payload with
 * {@code nioBuffers()}, not {@code nioBuffer()} (which would merge into a heap buffer when it spans reads).
 *
 * <p>A frame length above {@code maxFrameBytes} is refused as soon as its four bytes arrive, before anything is
 * allocated for it; that, a header length that does not fit the frame, or a header that does not parse closes the
 * connection with one log line naming the peer. Nothing else is read from a connection once it is condemned.
 */
public final class FrameDecoder<H> extends ByteToMessageDecoder {
  private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);
  private static final int MIN_FRAME_LENGTH = FrameFormat.HEADER_LENGTH_FIELD_BYTES;

  private final Parser<H> parser;
  private final int maxFrameBytes;
  private final String maxFrameKey;
  private boolean condemned;

  /**
   * @param maxFrameBytes the largest frame length N accepted
   * @param maxFrameKey the configuration key that sets it, for the log line
   */
  public FrameDecoder(Parser<H> parser, int maxFrameBytes, String maxFrameKey) {
    this(parser, maxFrameBytes, maxFrameKey, false);
  }

  /**
   * @param compositePayloads keep received socket buffers as they are and slice payloads over them (see above)
   */
  public FrameDecoder(Parser<H> parser, int maxFrameBytes, String maxFrameKey, boolean compositePayloads) {
    this.parser = parser;
    this.maxFrameBytes = maxFrameBytes;
    this.maxFrameKey = maxFrameKey;
    if (compositePayloads) {
      setCumulator(COMPOSITE_CUMULATOR);
    }
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (condemned) {
      in.skipBytes(in.readableBytes());
      return;
    }
    while (in.readableBytes() >= FrameFormat.LENGTH_FIELD_BYTES) {
      int start = in.readerIndex();
      long frameLength = in.getUnsignedInt(start);
      if (frameLength > maxFrameBytes) {
        condemn(ctx, in, "a frame of " + frameLength + " bytes exceeds the max frame size of " + maxFrameBytes
            + " bytes (" + maxFrameKey + ")");
        return;
      }
      if (frameLength < MIN_FRAME_LENGTH) {
        condemn(ctx, in, "a frame length of " + frameLength + " bytes cannot hold the header-length field");
        return;
      }
      if (in.readableBytes() < FrameFormat.LENGTH_FIELD_BYTES + frameLength) {
        return;
      }
      long headerLength = in.getUnsignedInt(start + FrameFormat.LENGTH_FIELD_BYTES);
      if (headerLength > frameLength - FrameFormat.HEADER_LENGTH_FIELD_BYTES) {
        condemn(ctx, in, "a header length of " + headerLength + " bytes does not fit a frame of " + frameLength);
        return;
      }
      int headerStart = start + FrameFormat.LENGTH_FIELD_BYTES + FrameFormat.HEADER_LENGTH_FIELD_BYTES;
      H header;
      try {
        header = parseHeader(in, headerStart, (int) headerLength);
      } catch (InvalidProtocolBufferException e) {
        condemn(ctx, in, "the frame header does not parse (" + e.getMessage() + ")");
        return;
      }
      in.readerIndex(headerStart + (int) headerLength);
      int payloadLength = (int) (frameLength - FrameFormat.HEADER_LENGTH_FIELD_BYTES - headerLength);
      out.add(new Frame<>(header, in.readRetainedSlice(payloadLength)));
    }
  }

  /**
   * Parses the header from a heap array: in place when the buffer has one, else from a copy. Never from a direct
   * buffer, whose decoder reads with Unsafe: bytes a fuzzer found made it read outside the buffer and crash the JVM.
   */
  private H parseHeader(ByteBuf in, int start, int length) throws InvalidProtocolBufferException {
    if (in.hasArray()) {
      return parser.parseFrom(in.array(), in.arrayOffset() + start, length);
    }
    byte[] copy = new byte[length];
    in.getBytes(start, copy);
    return parser.parseFrom(copy);
  }

  private void condemn(ChannelHandlerContext ctx, ByteBuf in, String why) {
    condemned = true;
    in.skipBytes(in.readableBytes());
    LOG.warn("Closing the data-transfer connection with {}: {}", ctx.channel().remoteAddress(), why);
    ctx.close();
  }
}
