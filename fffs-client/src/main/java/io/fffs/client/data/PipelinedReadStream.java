package io.fffs.client.data;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.ReadResponseProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.TimeSpec;
import io.fffs.protocol.transport.DataChannel;
import io.fffs.protocol.transport.ReadAnswer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * {@link BlockReadStream} over one {@link DataChannel}, whatever moves its bytes: READ requests that start at
 * {@code fffs.client.read.request-size} (a short read fetches little) and double up to
 * {@code fffs.client.read.stream-request-size} (few requests: each costs both JVMs code that a fresh one interprets
 * and then compiles), up to {@code fffs.client.read.requests-in-flight} and two of the largest outstanding (fewer
 * while the transport has no room for more answers), topped up each time an answer is taken, so the DataNode serves
 * the next pieces while the caller consumes this one. There is no read-ahead thread and no stream buffer: an answer
 * stays where the transport put it (socket buffers, a registered buffer) until the caller's {@link #read} checks its
 * CRCs and copies it into the caller's buffer — in one pass when the whole answer fits, else checked whole first and
 * then copied piece by piece.
 *
 * <p>An answer shorter than asked ends the stream (the block ends there as of the time read); answers to requests
 * sent past it are abandoned. The channel goes back to its transport on {@link #close()}.
 */
final class PipelinedReadStream implements BlockReadStream {
  private final DataChannel channel;
  private final PipelinedRead reads;
  private final DataNodeClocks clocks;
  private final long blockId;
  private final BlockToken token;
  private final TimeSpec time;
  private final long end;
  private final int maxRequestSize;
  private final int inFlightMax;
  private final long inFlightBytesMax;
  private final ArrayDeque<PipelinedRead.Pending> inFlight = new ArrayDeque<>();
  /** The size of the next request, and the bytes asked by the requests in {@link #inFlight}. */
  private int requestSize;
  private long inFlightBytes;
  /** Block offset of the next request to send. */
  private long nextAsk;
  /** Block offset of the next byte returned. */
  private long position;
  /** The answer being consumed (null between answers), its pieces, and the index of the first one not consumed. */
  private ReadAnswer current;
  private ByteBuffer[] pieces;
  private int piece;
  /** Whether {@link #current} has been checked whole (it is consumed piecewise). */
  private boolean currentVerified;
  private boolean ended;
  private boolean closed;

  PipelinedReadStream(DataChannel channel, DatanodeIdProto datanode, DataNodeClocks clocks, long blockId,
      BlockToken token, TimeSpec time, long offset, long end, int requestSize, int maxRequestSize, int inFlightMax) {
    this.channel = channel;
    this.clocks = clocks;
    this.reads = new PipelinedRead(channel, datanode, clocks, requestSize, inFlightMax);
    this.blockId = blockId;
    this.token = token;
    this.time = time;
    this.nextAsk = offset;
    this.position = offset;
    this.end = end;
    this.requestSize = Math.min(requestSize, channel.maxRead());
    this.maxRequestSize = Math.max(this.requestSize, Math.min(maxRequestSize, channel.maxRead()));
    this.inFlightMax = inFlightMax;
    this.inFlightBytesMax = Math.max((long) this.requestSize * inFlightMax, 2L * this.maxRequestSize);
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
    ReadResponseProto response = current.header().getRead();
    int n;
    if (!currentVerified && dst.remaining() >= current.length()) {
      n = current.length();
      ReadChecks.verifyInto(pieces, n, response, dst, blockId, position, channel.peer());
      piece = pieces.length;
    } else {
      if (!currentVerified) {
        ReadChecks.verify(pieces, current.length(), response, blockId, position, channel.peer());
        currentVerified = true;
      }
      n = copyOut(dst);
    }
    position += n;
    if (piece == pieces.length) {
      current.release();  // consumed whole
      current = null;
      pieces = null;
    }
    return n;
  }

  /** Copies the next verified bytes of {@link #current} into {@code dst}, as many as fit. */
  private int copyOut(ByteBuffer dst) {
    int n = 0;
    while (dst.hasRemaining() && piece < pieces.length) {
      ByteBuffer from = pieces[piece];
      int take = Math.min(dst.remaining(), from.remaining());
      dst.put(dst.position(), from, from.position(), take);
      dst.position(dst.position() + take);
      from.position(from.position() + take);
      n += take;
      if (!from.hasRemaining()) {
        piece++;
      }
    }
    return n;
  }

  /** Takes the next answer into {@link #current}, sending more requests first; false at the end. */
  private boolean next() throws IOException {
    if (ended) {
      return false;
    }
    ask();
    PipelinedRead.Pending head = inFlight.poll();
    if (head == null) {
      ended = true;
      return false;
    }
    inFlightBytes -= head.asked();
    ReadAnswer answer = channel.await(head.answer());
    int got;
    try {
      reads.checked(answer, blockId, head);
      got = answer.length();
    } catch (IOException | RuntimeException e) {
      answer.release();
      throw e;
    }
    if (got < head.asked()) {
      ended = true;  // the block ends here as of the time read: drop what was asked beyond
      nextAsk = head.at() + got;
      dropInFlight();
    }
    if (got == 0) {
      answer.release();
      return false;
    }
    current = answer;
    pieces = answer.payload();
    piece = 0;
    currentVerified = false;
    return true;
  }

  /** Sends requests up to the in-flight limit and the end of the range, flushing them together. */
  private void ask() throws IOException {
    boolean sent = false;
    while (!ended && nextAsk < end && inFlight.size() < inFlightMax) {
      int asked = (int) Math.min(end - nextAsk, requestSize);
      if (!inFlight.isEmpty() && inFlightBytes + asked > inFlightBytesMax) {
        break;  // the next request goes once the caller has taken enough
      }
      RequestHeaderProto.Builder request =
          RequestHeaders.of(token, blockId, nextAsk, asked, time, clocks.clock().last());
      CompletableFuture<ReadAnswer> answer = channel.read(request, asked, inFlight.isEmpty(), false);
      if (answer == null) {
        break;  // no room for another answer until the caller consumes one
      }
      inFlight.add(new PipelinedRead.Pending(nextAsk, asked, answer));
      inFlightBytes += asked;
      nextAsk += asked;
      requestSize = (int) Math.min(maxRequestSize, 2L * requestSize);
      sent = true;
    }
    if (sent) {
      channel.flush();
    }
  }

  /** Abandons the answers to requests still outstanding. */
  private void dropInFlight() {
    for (PipelinedRead.Pending left : inFlight) {
      channel.abandon(left.answer());
    }
    inFlight.clear();
    inFlightBytes = 0;
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
    channel.release();
  }
}
