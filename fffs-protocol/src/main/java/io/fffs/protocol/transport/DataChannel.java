package io.fffs.protocol.transport;

import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * The transport seam of the data client: how WRITE and READ requests ({@code DataTransfer.proto}) and their payload
 * bytes reach one DataNode and how the answers come back. A transport implements only this; the request headers,
 * chunk checksums, pipelining windows and the checks of what comes back are the caller's. Requests may be pipelined;
 * answers of one channel complete in the order the DataNode sends them. Requests are sent from one thread at a time
 * (the channel's user); answers complete on any thread.
 */
public interface DataChannel {
  /** Names the DataNode (and the transport) in messages, e.g. "DataNode 127.0.0.1:9866". */
  String peer();

  /** The largest WRITE payload one request may carry; a writer cuts its packets to this. */
  int maxPacket();

  /** The largest READ one request may ask for. */
  int maxRead();

  /**
   * Whether each WRITE should go out as soon as it is sent (the DataNode fetches the bytes only once it sees the
   * request), rather than wait in a send buffer for more packets.
   */
  boolean sendsEachWrite();

  /**
   * Room for the payload of one WRITE of {@code length} bytes, to be filled and then given to {@link #write}. May
   * wait (up to the response timeout) while the transport has no room: for UCX, until a registered buffer is free.
   */
  PacketBuffer allocate(int length) throws IOException;

  /**
   * The payload of one WRITE sent from {@code bytes} themselves (position to limit), without a copy, or null when the
   * transport needs room of its own ({@link #allocate}: UCX's registered memory) or cannot send from such memory
   * (a heap buffer). Only for bytes the caller keeps unchanged until the WRITE is answered, and for good should it
   * never be (the channel broke): a transport may read them until then.
   */
  default PacketBuffer wrap(ByteBuffer bytes) {
    return null;
  }

  /**
   * Sends a WRITE (its callId is set here) with the filled {@code payload}, which the channel owns from now on. The
   * future completes with the DataNode's answer, or fails with an {@link IOException} when the channel breaks.
   * Without {@code flush} the request may wait for a later {@link #flush()} or flushing send.
   */
  CompletableFuture<ResponseHeaderProto> write(RequestHeaderProto.Builder request, PacketBuffer payload,
      boolean flush);

  /**
   * Sends a READ of {@code asked} bytes (its callId is set here); the future completes with the answer, whose payload
   * holds the bytes read (fewer at the block's end as of the time read). Returns null, sending nothing, when
   * {@code mayWait} is false and the transport has no room for another answer now; with {@code mayWait} it waits
   * (up to the response timeout) for room. Without {@code flush} the request may wait for a later {@link #flush()}.
   */
  CompletableFuture<ReadAnswer> read(RequestHeaderProto.Builder request, int asked, boolean mayWait, boolean flush)
      throws IOException;

  /** Sends what earlier calls left in the send buffer. */
  void flush();

  /**
   * Waits for a READ's answer up to the response timeout. On a timeout the channel is condemned (its stream of
   * answers can no longer be trusted) and the late answer, should it come, is released.
   */
  ReadAnswer await(CompletableFuture<ReadAnswer> answer) throws IOException;

  /** Gives up on a READ answer nobody will consume: it is released when it arrives. */
  void abandon(CompletableFuture<ReadAnswer> answer);

  /** Gives the channel back to its transport (answers still outstanding are abandoned with it). */
  void release();
}
