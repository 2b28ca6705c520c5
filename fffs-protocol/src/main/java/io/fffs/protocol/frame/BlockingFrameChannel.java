package io.fffs.protocol.frame;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.apache.hadoop.thirdparty.protobuf.MessageLite;
import org.apache.hadoop.thirdparty.protobuf.Parser;

/**
 * One blocking TCP connection that sends and receives whole {@link FrameFormat} frames, one call at a time: for
 * servers that talk to each other on the data path (a DataNode streaming a block's log to another), where a Netty
 * pipeline and a window buy nothing. Not thread-safe; one owner.
 */
public final class BlockingFrameChannel implements AutoCloseable {
  private final Socket socket;
  private final DataOutputStream out;
  private final DataInputStream in;
  private final int maxFrameBytes;
  /** The header length of the frame being received. */
  private int headerLength;

  private BlockingFrameChannel(Socket socket, int maxFrameBytes) throws IOException {
    this.socket = socket;
    this.maxFrameBytes = maxFrameBytes;
    this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 64 * 1024));
    this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024));
  }

  /**
   * Connects to {@code address}; every later receive fails after {@code timeoutMillis} without a byte, and a frame
   * longer than {@code maxFrameBytes} is refused before it is read.
   */
  public static BlockingFrameChannel connect(InetSocketAddress address, int timeoutMillis, int maxFrameBytes)
      throws IOException {
    Socket socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.connect(address, timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      return new BlockingFrameChannel(socket, maxFrameBytes);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  /** Sends one frame: {@code header} and the remaining bytes of {@code payload} (null: none; not moved). */
  public void send(MessageLite header, ByteBuffer payload) throws IOException {
    int payloadLength = payload == null ? 0 : payload.remaining();
    byte[] headerBytes = header.toByteArray();
    long frameLength = FrameFormat.HEADER_LENGTH_FIELD_BYTES + (long) headerBytes.length + payloadLength;
    if (frameLength > maxFrameBytes) {
      throw new IOException("a frame of " + frameLength + " bytes exceeds the max frame size of " + maxFrameBytes);
    }
    out.writeInt((int) frameLength);
    out.writeInt(headerBytes.length);
    out.write(headerBytes);
    if (payloadLength > 0) {
      if (payload.hasArray()) {
        out.write(payload.array(), payload.arrayOffset() + payload.position(), payloadLength);
      } else {
        byte[] copy = new byte[payloadLength];
        payload.duplicate().get(copy);
        out.write(copy);
      }
    }
    out.flush();
  }

  /** Receives one frame: its header parsed with {@code parser}, and its payload (empty when it has none). */
  public <H> Frame<H> receive(Parser<H> parser) throws IOException {
    int payloadLength = receiveLengths();
    byte[] header = new byte[headerLength];
    in.readFully(header);
    byte[] payload = new byte[payloadLength];
    in.readFully(payload);
    return new Frame<>(parser.parseFrom(header), io.netty.buffer.Unpooled.wrappedBuffer(payload));
  }

  /**
   * Receives one frame of a call whose answer has no payload, and returns its header parsed with {@code parser}:
   * touches no buffer library, for a caller that has none loaded yet. A payload is an error.
   */
  public <H> H receiveHeader(Parser<H> parser) throws IOException {
    int payloadLength = receiveLengths();
    if (payloadLength != 0) {
      throw new IOException("the peer " + socket.getRemoteSocketAddress() + " answered with a payload of "
          + payloadLength + " bytes where none was expected");
    }
    byte[] header = new byte[headerLength];
    in.readFully(header);
    return parser.parseFrom(header);
  }

  /** Reads a frame's two length fields; keeps the header's, returns the payload's. */
  private int receiveLengths() throws IOException {
    int frameLength;
    try {
      frameLength = in.readInt();
    } catch (EOFException e) {
      throw new EOFException("the peer " + socket.getRemoteSocketAddress() + " closed the connection");
    }
    if (frameLength < FrameFormat.HEADER_LENGTH_FIELD_BYTES || frameLength > maxFrameBytes) {
      throw new IOException("the peer " + socket.getRemoteSocketAddress() + " sent a frame length of "
          + Integer.toUnsignedString(frameLength) + " bytes (at most " + maxFrameBytes + ")");
    }
    headerLength = in.readInt();
    if (headerLength < 0 || headerLength > frameLength - FrameFormat.HEADER_LENGTH_FIELD_BYTES) {
      throw new IOException("the peer " + socket.getRemoteSocketAddress() + " sent a header length of "
          + Integer.toUnsignedString(headerLength) + " bytes in a frame of " + frameLength);
    }
    return frameLength - FrameFormat.HEADER_LENGTH_FIELD_BYTES - headerLength;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
