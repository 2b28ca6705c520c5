package io.fffs.rdma.client;

import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.protocol.transport.DataChannel;
import io.fffs.protocol.transport.PacketBuffer;
import io.fffs.protocol.transport.ReadAnswer;
import io.fffs.rdma.RegisteredBuffers;
import io.fffs.rdma.SideChannelFormat.Descriptor;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link DataChannel} over a DataNode's UCX side channel: a WRITE's packet is copied into a registered buffer and
 * announced with a request naming it ({@link Descriptor}); the DataNode GETs it and answers. A READ names a
 * registered buffer of its own that the DataNode PUTs the bytes into before it answers with their chunk CRCs. A
 * registered buffer goes back once its request is answered (or failed with the side channel); one whose answer never
 * comes stays out of use, as the DataNode may still reach into it. A READ answer keeps its registered buffer until
 * its reader consumes it — unless fewer than a quarter of the client's buffers are free when it arrives: then its
 * bytes are copied out and the buffer given back at once, so answers that readers hold (a caller alternating
 * between open streams) never leave another read waiting for a buffer only their own next read would free.
 * Requests are at most one registered buffer. The side channel is shared: {@link #release()} leaves it open.
 */
final class UcxChannel implements DataChannel {
  private final SideChannel channel;
  private final RegisteredBuffers buffers;
  private final long timeoutMillis;

  UcxChannel(SideChannel channel, RegisteredBuffers buffers, long timeoutMillis) {
    this.channel = channel;
    this.buffers = buffers;
    this.timeoutMillis = timeoutMillis;
  }

  @Override
  public String peer() {
    return "DataNode " + channel.address() + " over UCX";
  }

  @Override
  public int maxPacket() {
    return buffers.slotSize();
  }

  @Override
  public int maxRead() {
    return buffers.slotSize();
  }

  @Override
  public boolean sendsEachWrite() {
    return true;
  }

  @Override
  public PacketBuffer allocate(int length) throws IOException {
    RegisteredBuffers.Slot slot = buffers.tryTake();
    if (slot == null) {
      channel.flush();  // the writes that hold buffers must be on their way before we wait for one
      slot = buffers.take(timeoutMillis, "a write to " + peer());
    }
    return new Packet(slot, length);
  }

  @Override
  public CompletableFuture<ResponseHeaderProto> write(RequestHeaderProto.Builder request, PacketBuffer payload,
      boolean flush) {
    Packet packet = (Packet) payload;
    RegisteredBuffers.Slot slot = packet.slot();
    CompletableFuture<ResponseHeaderProto> ack = channel.send(request,
        new Descriptor(slot.address(), packet.length(), buffers.rkey()), flush);
    ack.whenComplete((response, error) -> buffers.give(slot));
    return ack;
  }

  @Override
  public CompletableFuture<ReadAnswer> read(RequestHeaderProto.Builder request, int asked, boolean mayWait,
      boolean flush) throws IOException {
    RegisteredBuffers.Slot slot = buffers.tryTake();
    if (slot == null) {
      if (!mayWait) {
        return null;
      }
      channel.flush();
      slot = buffers.take(timeoutMillis, "a read from " + peer() + " (each sequential reader holds up to "
          + "fffs.client.read.requests-in-flight registered buffers; raise fffs.rdma.client.buffers for more)");
    }
    RegisteredBuffers.Slot into = slot;
    long at = request.getRead().getOffset();
    CompletableFuture<ResponseHeaderProto> response = channel.send(request,
        new Descriptor(into.address(), buffers.slotSize(), buffers.rkey()), flush);
    response.whenComplete((ok, error) -> {
      if (error != null) {
        buffers.give(into);  // failed with its side channel: nothing will reach into the buffer any more
      }
    });
    return response.thenApply(header -> new Answer(header, into, at, asked));
  }

  @Override
  public void flush() {
    channel.flush();
  }

  @Override
  public ReadAnswer await(CompletableFuture<ReadAnswer> answer) throws IOException {
    try {
      return answer.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      abandon(answer);
      throw new InterruptedIOException("interrupted waiting for " + peer());
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof IOException ? (IOException) cause : new IOException(cause.toString(), cause);
    } catch (TimeoutException e) {
      abandon(answer);
      throw new IOException(peer() + " did not answer within " + timeoutMillis + " ms");
    }
  }

  @Override
  public void abandon(CompletableFuture<ReadAnswer> answer) {
    answer.thenAccept(ReadAnswer::release);
  }

  @Override
  public void release() {
    // the side channel is shared by the client's writers and readers of this DataNode
  }

  /** A WRITE payload in a registered buffer. */
  private record Packet(RegisteredBuffers.Slot slot, int length) implements PacketBuffer {
    @Override
    public ByteBuffer bytes() {
      return slot.bytes().duplicate().clear().limit(length);
    }
  }

  /**
   * A READ answer whose bytes the DataNode PUT into a registered buffer: as many as were asked, or fewer where the
   * block ends as of the time read.
   */
  private final class Answer implements ReadAnswer {
    private final ResponseHeaderProto header;
    private final int length;
    /** The registered buffer holding the bytes, or null once they were copied out ({@link #copy}). */
    private RegisteredBuffers.Slot slot;
    private ByteBuffer copy;

    Answer(ResponseHeaderProto header, RegisteredBuffers.Slot slot, long at, int asked) {
      this.header = header;
      this.slot = slot;
      this.length = header.hasError() ? 0
          : (int) Math.max(0, Math.min(asked, header.getRead().getBlockLength() - at));
      if (buffers.free() < Math.max(1, buffers.count() / 4)) {
        copy = ByteBuffer.allocate(length).put(bytesOf(slot)).flip();
        buffers.give(slot);
        this.slot = null;
      }
    }

    private ByteBuffer bytesOf(RegisteredBuffers.Slot in) {
      return in.bytes().duplicate().clear().limit(length);
    }

    @Override
    public ResponseHeaderProto header() {
      return header;
    }

    @Override
    public synchronized ByteBuffer[] payload() {
      return new ByteBuffer[] {copy != null ? copy.duplicate() : bytesOf(slot)};
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public synchronized void release() {
      if (slot != null) {
        buffers.give(slot);
        slot = null;
      }
    }
  }
}
