package io.fffs.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.thirdparty.protobuf.MessageLite;

/**
 * The frame layout of the data-transfer protocol ({@code DataTransfer.proto}), shared by clients and DataNodes.
 * All integers big-endian:
 * <pre>
 *    0                   4                   8
 *   +-------------------+-------------------+----------------------+---------------------+
 *   | frame length (N)  | header length (H) | header (H bytes)     | payload (N-4-H)     |
 *   +-------------------+-------------------+----------------------+---------------------+
 * </pre>
 * N counts everything after the first four bytes; the header is a protobuf message, the payload raw bytes. A
 * sender writes the {@linkplain #prefix prefix} (N, H, header) and then the payload from wherever it lives (a
 * {@code ByteBuf} slice, a file region), so the payload is never copied to build a frame.
 */
public final class FrameFormat {
  /** Bytes of the frame-length field. */
  public static final int LENGTH_FIELD_BYTES = 4;
  /** Bytes of the header-length field. */
  public static final int HEADER_LENGTH_FIELD_BYTES = 4;

  private FrameFormat() {}

  /**
   * The first part of a frame: frame length, header length and the serialized header, for a payload of
   * {@code payloadLength} bytes sent right after it.
   */
  public static ByteBuf prefix(ByteBufAllocator alloc, MessageLite header, long payloadLength) {
    int headerLength = header.getSerializedSize();
    long frameLength = HEADER_LENGTH_FIELD_BYTES + (long) headerLength + payloadLength;
    if (frameLength > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("frame of " + frameLength + " bytes cannot be encoded");
    }
    ByteBuf prefix = alloc.buffer(LENGTH_FIELD_BYTES + HEADER_LENGTH_FIELD_BYTES + headerLength);
    prefix.writeInt((int) frameLength).writeInt(headerLength);
    try (ByteBufOutputStream out = new ByteBufOutputStream(prefix)) {
      header.writeTo(out);
    } catch (IOException e) {
      prefix.release();
      throw new UncheckedIOException("cannot serialize a frame header", e);
    }
    return prefix;
  }

  /** Total bytes on the wire of a frame with this header and payload length. */
  public static long wireBytes(MessageLite header, long payloadLength) {
    return LENGTH_FIELD_BYTES + HEADER_LENGTH_FIELD_BYTES + header.getSerializedSize() + payloadLength;
  }
}
