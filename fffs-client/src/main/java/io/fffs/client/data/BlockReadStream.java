package io.fffs.client.data;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A sequential read of one block from a start offset to a known end, as of one time, that keeps requests in flight
 * ahead of its caller: the bytes wait in the connection's receive buffers until {@link #read} verifies them against
 * their chunk CRCs and copies them straight into the caller's buffer (one copy, on the caller's thread). Not
 * thread-safe; {@link #close()} it when done (abandoning answers still to come).
 */
public interface BlockReadStream extends Closeable {
  /** The block offset of the next byte {@link #read} returns. */
  long position();

  /**
   * Reads the next bytes into {@code dst} (from its position; up to its remaining room, fewer at the end or at the
   * boundary of a DataNode answer) and advances it; -1 at the end of the range or of the block as of the time read.
   * A failure leaves {@code dst}'s position where the last verified byte ended; the stream is then unusable.
   */
  int read(ByteBuffer dst) throws IOException;

  @Override
  void close();
}
