package io.fffs.client.data.netty;

import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.protocol.frame.Frame;
import io.fffs.protocol.transport.DataChannel;
import io.fffs.protocol.transport.PacketBuffer;
import io.fffs.protocol.transport.ReadAnswer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link DataChannel} over one leased {@link DataConnection}: a WRITE's payload is a direct buffer sent after its
 * frame header; a READ's answer keeps its bytes in the socket buffers they arrived in (composite payloads), so the
 * reader's copy out of them is the only one. Given back to the pool on {@link #release()}.
 */
final class NettyChannel implements DataChannel {
  private final ConnectionPool pool;
  private final DataConnection connection;
  private final long timeoutMillis;

  NettyChannel(ConnectionPool pool, DataConnection connection, long timeoutMillis) {
    this.pool = pool;
    this.connection = connection;
    this.timeoutMillis = timeoutMillis;
  }

  @Override
  public String peer() {
    return "DataNode " + connection.address();
  }

  @Override
  public int maxPacket() {
    return Integer.MAX_VALUE;
  }

  @Override
  public int maxRead() {
    return Integer.MAX_VALUE;
  }

  @Override
  public boolean sendsEachWrite() {
    return false;
  }

  @Override
  public PacketBuffer allocate(int length) {
    return new Packet(connection.alloc().directBuffer(length), length);
  }

  /** Direct memory goes out from where it is (a heap buffer would be copied into a direct one on the way). */
  @Override
  public PacketBuffer wrap(ByteBuffer bytes) {
    if (!bytes.isDirect() || !bytes.hasRemaining()) {
      return null;
    }
    return new Packet(Unpooled.wrappedBuffer(bytes.slice()), bytes.remaining());
  }

  @Override
  public CompletableFuture<ResponseHeaderProto> write(RequestHeaderProto.Builder request, PacketBuffer payload,
      boolean flush) {
    Packet packet = (Packet) payload;
    packet.buffer.writerIndex(packet.length);
    return connection.send(request, packet.buffer, flush).thenApply(frame -> {
      try {
        return frame.header();
      } finally {
        frame.release();
      }
    });
  }

  @Override
  public CompletableFuture<ReadAnswer> read(RequestHeaderProto.Builder request, int asked, boolean mayWait,
      boolean flush) {
    return connection.send(request, null, flush).thenApply(Answer::new);
  }

  @Override
  public void flush() {
    connection.flush();
  }

  @Override
  public ReadAnswer await(CompletableFuture<ReadAnswer> answer) throws IOException {
    return connection.await(answer, timeoutMillis, ReadAnswer::release);
  }

  @Override
  public void abandon(CompletableFuture<ReadAnswer> answer) {
    answer.thenAccept(ReadAnswer::release);
  }

  @Override
  public void release() {
    pool.release(connection);
  }

  /** A WRITE payload: a direct buffer of exactly the packet's length (its own, or the caller's memory wrapped). */
  private record Packet(ByteBuf buffer, int length) implements PacketBuffer {
    @Override
    public ByteBuffer bytes() {
      return buffer.nioBuffer(0, length);
    }
  }

  /** A READ answer: the decoded frame, its payload a slice of the socket buffers. */
  private static final class Answer implements ReadAnswer {
    private final Frame<ResponseHeaderProto> frame;

    Answer(Frame<ResponseHeaderProto> frame) {
      this.frame = frame;
    }

    @Override
    public ResponseHeaderProto header() {
      return frame.header();
    }

    @Override
    public ByteBuffer[] payload() {
      return frame.payload().nioBuffers();
    }

    @Override
    public int length() {
      return frame.payload().readableBytes();
    }

    @Override
    public void release() {
      frame.release();
    }
  }
}
