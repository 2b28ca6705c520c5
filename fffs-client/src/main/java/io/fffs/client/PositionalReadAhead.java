package io.fffs.client;

import io.fffs.client.data.BlockReadStream;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * Read-ahead for positioned reads: once a positioned read begins exactly where the previous one ended (a reader
 * walking a file with {@code readFully(position, ...)}, {@code readVectored} over sorted ranges), the following
 * ones are served through a {@link BlockReadStream} — requests kept in flight ahead of the caller — so they run as
 * fast as sequential reads of the same size, instead of one round trip each. The first of a run and any read
 * elsewhere go the ordinary way, so random positioned reads fetch nothing they did not ask for. A stream that fails
 * is dropped (its DataNode is tried last from then on) and the caller reads the rest the ordinary way. Not
 * thread-safe: its stream guards it.
 */
final class PositionalReadAhead {
  /** A block stream opened at a file position: the stream, where its block starts in the file, its DataNode. */
  record Opened(BlockReadStream stream, long blockStart, DatanodeIdProto replica) {}

  /** Opens a stream from a file position to the end of its block, or null when none can be opened. */
  @FunctionalInterface
  interface Opener {
    Opened open(long at) throws IOException;
  }

  private final Opener opener;
  private final Set<String> failedReplicas;
  private Opened current;
  /** Where the last positioned read ended; -1 before any. */
  private long lastEnd = -1;

  PositionalReadAhead(Opener opener, Set<String> failedReplicas) {
    this.opener = opener;
    this.failedReplicas = failedReplicas;
  }

  /**
   * Reads at {@code at} into {@code dst} through the stream when this read continues the last one, up to the end of
   * a block; returns the bytes read (0 when the read is not a continuation, or the stream failed before any).
   */
  int read(long at, ByteBuffer dst) throws IOException {
    if (at != lastEnd) {
      close();
      return 0;
    }
    int total = 0;
    boolean reopened = false;
    try {
      while (dst.hasRemaining()) {
        long next = at + total;
        if (current == null || current.blockStart() + current.stream().position() != next) {
          close();
          current = opener.open(next);
          if (current == null) {
            break;
          }
        }
        int n = current.stream().read(dst);
        if (n < 0) {
          close();  // the block's end: the next block's stream, unless this read already has bytes
          if (total > 0 || reopened) {
            break;
          }
          reopened = true;
          continue;
        }
        total += n;
      }
    } catch (InterruptedIOException e) {
      close();
      throw e;  // the caller was interrupted: no replica failed
    } catch (IOException e) {
      if (current != null) {
        failedReplicas.add(current.replica().getDatanodeUuid());
      }
      close();
    }
    return total;
  }

  /** Records where a positioned read ended. */
  void ended(long end) {
    lastEnd = end;
  }

  /** Drops the stream (answers still to come are abandoned). */
  void close() {
    if (current != null) {
      current.stream().close();
      current = null;
    }
  }
}
