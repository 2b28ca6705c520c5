package io.fffs.client.data;

import io.fffs.client.data.frame.Frame;
import io.fffs.client.data.netty.ConnectionPool;
import io.fffs.client.data.netty.DataConnection;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.ReadResponseProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.TimeSpec;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * {@link BlockReadStream} over one leased Netty connection: READ requests of {@code fffs.client.read.request-size},
 * up to {@code fffs.client.read.requests-in-flight} outstanding, topped up each time an answer is taken, so the
 * DataNode serves the next pieces while the caller consumes this one. There is no read-ahead thread and no stream
 * buffer: an answer stays in the socket buffers it arrived in until the caller's {@link #read} checks its CRCs and
 * copies it into the caller's buffer — in one pass when the whole answer fits, else checked whole first and then
 * copied piece by piece.
 *
 * <p>An answer shorter than asked ends the stream (the block ends there as of the time read); answers to requests
 * sent past it are dropped, an error among them too when it asks past the block's end. The connection goes back to
 * the pool on {@link #close()}: reused when nothing is outstanding, else closed by the pool (answers to abandoned
 * requests are released as they arrive).
 */
final class NettyBlockReadStream implements BlockReadStream {
  private final ConnectionPool pool;
  private final DataConnection connection;
  private final HybridLogicalClock clock;
  private final long blockId;
  private final BlockToken token;
  private final TimeSpec time;
  private final long end;
  private final int requestSize;
  private final int inFlightMax;
  private final long timeoutMillis;
  private final ArrayDeque<PendingRead> inFlight = new ArrayDeque<>();
  /** Block offset of the next request to send. */
  private long nextAsk;
  /** Block offset of the next byte returned. */
  private long position;
  /** The answer being consumed (null between answers); its payload's reader index is the next byte. */
  private Frame<ResponseHeaderProto> current;
  /** Whether {@link #current} has been checked whole (it is consumed piecewise). */
  private boolean currentVerified;
  private boolean ended;
  private boolean closed;

  NettyBlockReadStream(ConnectionPool pool, DataConnection connection, HybridLogicalClock clock, long blockId,
      BlockToken token, TimeSpec time, long offset, long end, int requestSize, int inFlightMax,
      long timeoutMillis) {
    this.pool = pool;
    this.connection = connection;
    this.clock = clock;
    this.blockId = blockId;
    this.token = token;
    this.time = time;
    this.nextAsk = offset;
    this.position = offset;
    this.end = end;
    this.requestSize = requestSize;
    this.inFlightMax = inFlightMax;
    this.timeoutMillis = timeoutMillis;
  }

  @Override
  public long position() {
    return position;
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    if (closed) {
      throw new IOException("the read stream of block " + blockId + " is closed");
    }
    if (!dst.hasRemaining()) {
      return 0;
    }
    if (current == null && !next()) {
      return -1;
    }
    ByteBuf payload = current.payload();
    ReadResponseProto response = current.header().getRead();
    int n;
    if (!currentVerified && dst.remaining() >= payload.readableBytes()) {
      n = payload.readableBytes();
      NettyDataTransferClient.verifyInto(payload, response, dst, blockId, position, connection.address());
    } else {
      if (!currentVerified) {
        NettyDataTransferClient.verify(payload, response, blockId, position, connection.address());
        currentVerified = true;
      }
      n = Math.min(dst.remaining(), payload.readableBytes());
      ByteBuffer window = dst.duplicate();
      window.limit(window.position() + n);
      payload.readBytes(window);
      dst.position(dst.position() + n);
    }
    position += n;
    if (!currentVerified || !payload.isReadable()) {
      current.release();  // consumed whole
      current = null;
    }
    return n;
  }

  /** Takes the next answer into {@link #current}, sending more requests first; false at the end. */
  private boolean next() throws IOException {
    if (ended) {
      return false;
    }
    ask();
    while (true) {
      PendingRead head = inFlight.poll();
      if (head == null) {
        ended = true;
        return false;
      }
      Frame<ResponseHeaderProto> frame = connection.await(head.call(), timeoutMillis);
      ResponseHeaderProto header = frame.header();
      clock.observe(HlcTimestamp.fromProto(header.getHlc()));
      if (header.hasError()) {
        frame.release();
        throw FffsException.fromProto(header.getError());
      }
      int got = frame.payload().readableBytes();
      if (got > head.asked()) {
        frame.release();
        throw new FffsException(ErrorCode.INTERNAL, "DataNode " + connection.address() + " sent " + got
            + " bytes of block " + blockId + " for a read of " + head.asked());
      }
      if (got < head.asked()) {
        ended = true;  // the block ends here as of the time read: drop what was asked beyond
        nextAsk = head.at() + got;
        dropInFlight();
      }
      if (got == 0) {
        frame.release();
        return false;
      }
      current = frame;
      currentVerified = false;
      return true;
    }
  }

  /** Sends requests up to the in-flight limit and the end of the range, flushing them together. */
  private void ask() {
    boolean sent = false;
    while (!ended && nextAsk < end && inFlight.size() < inFlightMax) {
      int asked = (int) Math.min(end - nextAsk, requestSize);
      RequestHeaderProto.Builder request = ReadRequests.of(token, blockId, nextAsk, asked, time, clock.last());
      inFlight.add(new PendingRead(nextAsk, asked, connection.send(request, null, false)));
      nextAsk += asked;
      sent = true;
    }
    if (sent) {
      connection.flush();
    }
  }

  /** Releases the answers to requests still outstanding as they arrive. */
  private void dropInFlight() {
    for (PendingRead left : inFlight) {
      left.call().thenAccept(Frame::release);
    }
    inFlight.clear();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (current != null) {
      current.release();
      current = null;
    }
    dropInFlight();
    pool.release(connection);
  }

  /** One READ request on the wire: block offset, bytes asked, and its answer to come. */
  private record PendingRead(long at, int asked, CompletableFuture<Frame<ResponseHeaderProto>> call) {}
}
