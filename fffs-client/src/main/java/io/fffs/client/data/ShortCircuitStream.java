package io.fffs.client.data;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.LocalReadResponseProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * A sequential read of a block on this host through its DataNode's files ({@link ShortCircuit}): one LOCAL_READ per
 * request-size piece, whose bytes the caller's reads copy straight into their buffers; once the caller is halfway
 * through a piece, the next {@link ShortCircuit#aheadPieces} are located, and their evicted pages brought into the
 * page cache (with direct I/O: read into a buffer of the client's), ahead of it ({@link ShortCircuit#ahead}); a
 * piece it locates itself has its first {@link #WARM_STEP} bytes (or what the first read asks for) brought in, and
 * the rest once a read goes past them: a short read of a large piece brings in little of it, a reader that reads on
 * brings the rest in one go (read-ahead costs less CPU per byte in large ranges). A piece located ahead whose
 * copy fails its check (its arena pages evicted meanwhile) is located again once; from the first copy that fails
 * otherwise, the rest of the range is read through the data port ({@code fallback}).
 */
final class ShortCircuitStream implements BlockReadStream {
  /** Bytes of a piece the reader located itself brought into the page cache for its first read, at least. */
  static final int WARM_STEP = 2 << 20;

  /** Opens a read of the block through the data port from {@code at} to the stream's end. */
  @FunctionalInterface
  interface Fallback {
    BlockReadStream open(long at) throws IOException;
  }

  private final ShortCircuit shortCircuit;
  private final DatanodeIdProto datanode;
  private final long blockId;
  private final BlockToken token;
  private final TimeSpec time;
  private final long end;
  private final Fallback fallback;
  /** Pieces located ahead, in order. */
  private final ArrayDeque<ShortCircuit.Ahead> ahead = new ArrayDeque<>();
  private long position;
  private LocalReadResponseProto answer;
  /** The current piece's pages read ahead around the page cache, or null. */
  private ShortCircuitPreload preload;
  private long answerStart;
  private long answerLength;
  private int asked;
  /** Bytes of {@link #answer} from its start brought into the page cache already (or by the ahead threads). */
  private long warmedTo;
  /** Whether {@link #answer} was located ahead (and may be located again once). */
  private boolean answeredAhead;
  private BlockReadStream socket;

  ShortCircuitStream(ShortCircuit shortCircuit, DatanodeIdProto datanode, long blockId, BlockToken token,
      TimeSpec time, long offset, long end, Fallback fallback) {
    this.shortCircuit = shortCircuit;
    this.datanode = datanode;
    this.blockId = blockId;
    this.token = token;
    this.time = time;
    this.position = offset;
    this.end = end;
    this.fallback = fallback;
  }

  @Override
  public long position() {
    return socket != null ? socket.position() : position;
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    if (socket != null) {
      return socket.read(dst);
    }
    if (position >= end) {
      return -1;
    }
    try {
      if (answer == null || position >= answerStart + answerLength) {
        if (answer != null && answerLength < asked) {
          return -1;  // the block ended within the last piece as of the time read
        }
        asked = (int) Math.min(shortCircuit.requestSize(), end - position);
        answer = located(position, asked);
        answerStart = position;
        answerLength = ShortCircuitCopy.length(answer);
        if (answerLength == 0) {
          return -1;
        }
      }
      int n;
      try {
        warmFor(dst.remaining());
        n = shortCircuit.copy(datanode, answer, preload, position - answerStart, dst);
      } catch (ShortCircuitStale e) {
        if (!answeredAhead) {
          throw e;
        }
        shortCircuit.stats().relocated.increment();
        answeredAhead = false;
        releasePreload();
        answer = shortCircuit.locate(datanode, blockId, token, answerStart, asked, time);
        answerLength = ShortCircuitCopy.length(answer);
        if (position >= answerStart + answerLength) {
          return -1;  // as of the time read now, the block ends before here
        }
        warmedTo = position - answerStart;
        warmFor(dst.remaining());
        n = shortCircuit.copy(datanode, answer, null, position - answerStart, dst);
      }
      position += n;
      if (position - answerStart >= answerLength / 2) {
        locateAhead();  // a reader that reads on: not for a header read, say
      }
      return n;
    } catch (ShortCircuitStale e) {
      dropAhead(null);
      releasePreload();
      socket = fallback.open(position);
      return socket.read(dst);
    }
  }

  /** The piece at {@code offset}: the one located ahead if it is that one, else located now. */
  private LocalReadResponseProto located(long offset, int length) throws IOException {
    releasePreload();
    ShortCircuit.Ahead next = ahead.pollFirst();
    if (next != null && next.offset() == offset && next.length() == length) {
      ShortCircuit.Piece piece = ShortCircuit.take(next);
      if (piece != null) {
        answeredAhead = true;
        preload = piece.preload();
        warmedTo = Long.MAX_VALUE;  // the ahead thread brought it in
        return piece.answer();
      }
    } else {
      dropAhead(next);
    }
    answeredAhead = false;
    warmedTo = 0;
    return shortCircuit.locate(datanode, blockId, token, offset, length, time);
  }

  /**
   * Brings in what copying the next {@code wanted} bytes reads: for the first read of the piece on to at least
   * {@link #WARM_STEP}, for a later one the rest of the piece.
   */
  private void warmFor(int wanted) {
    long from = Math.max(warmedTo, position - answerStart);
    long need = position - answerStart + wanted;
    if (need > from && from < answerLength) {
      long to = warmedTo == 0 ? Math.min(answerLength, Math.max(need, WARM_STEP)) : answerLength;
      shortCircuit.readAhead(answer, from, to - from);
      warmedTo = to;
    }
  }

  /**
   * Keeps {@link ShortCircuit#aheadPieces} pieces located past the current one, while this one was whole and the range
   * goes on.
   */
  private void locateAhead() {
    if (answerLength < asked) {
      return;
    }
    long next = ahead.isEmpty() ? answerStart + asked : ahead.peekLast().offset() + ahead.peekLast().length();
    while (ahead.size() < shortCircuit.aheadPieces() && next < end) {
      int length = (int) Math.min(shortCircuit.requestSize(), end - next);
      ahead.addLast(shortCircuit.ahead(datanode, blockId, token, next, length, time));
      next += length;
    }
  }

  /** Forgets pieces located ahead (what they read stays in the page cache for whoever reads it). */
  private void dropAhead(ShortCircuit.Ahead first) {
    if (first != null) {
      first.cancel();
    }
    for (ShortCircuit.Ahead a = ahead.pollFirst(); a != null; a = ahead.pollFirst()) {
      a.cancel();
    }
  }

  private void releasePreload() {
    if (preload != null) {
      preload.release();
      preload = null;
    }
  }

  @Override
  public void close() {
    dropAhead(null);
    releasePreload();
    if (socket != null) {
      socket.close();
    }
  }
}
