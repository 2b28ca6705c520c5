package io.fffs.client.data;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The in-flight limit of a pipelined block writer and when it sends, whatever its transport: at most {@code slots}
 * writes unacknowledged; queued bytes are sent at once in latency mode, else once {@code sendBytes} are queued (a
 * packet or more), when the window is full, and on flush. One writer thread takes slots; acknowledgements (any
 * thread) give them back.
 */
public final class WriteWindow {
  /** Sends what the transport has queued. */
  @FunctionalInterface
  public interface Flush {
    void flush() throws IOException;
  }

  private final Semaphore slots;
  private final int sendBytes;
  private final boolean latencyMode;
  private final long timeoutMillis;
  private final String peer;
  private final String what;
  private long unflushedBytes;
  /** A write was queued that no flush has sent yet (a byte count alone would miss an empty write). */
  private boolean holding;

  /**
   * @param timeoutMillis how long a full window may wait for an acknowledgement
   * @param peer names the DataNode in a timeout message, e.g. "DataNode 127.0.0.1:9866"
   * @param what names one write in messages, e.g. "write of block 7"
   */
  public WriteWindow(int slots, int sendBytes, boolean latencyMode, long timeoutMillis, String peer, String what) {
    this.slots = new Semaphore(slots);
    this.sendBytes = sendBytes;
    this.latencyMode = latencyMode;
    this.timeoutMillis = timeoutMillis;
    this.peer = peer;
    this.what = what;
  }

  /** Counts {@code bytes} queued for sending; true when they (and what is queued before them) go out now. */
  public boolean queued(int bytes) {
    unflushedBytes += bytes;
    if (latencyMode || unflushedBytes >= sendBytes) {
      flushed();
      return true;
    }
    holding = true;
    return false;
  }

  /**
   * Whether a write is queued that was not sent with it nor by a flush since. When not, a flush would find nothing
   * to send: in latency mode every write went out with its own flush, so {@code hflush} need not ask the transport
   * again (for Netty, a task and a wake-up of the event loop per {@code hflush}, for nothing).
   */
  public boolean holding() {
    return holding;
  }

  /** The writer sent everything queued. */
  public void flushed() {
    unflushedBytes = 0;
    holding = false;
  }

  /**
   * Takes a slot for the next write. When the window is full, sends what is queued first, then waits, throwing a
   * failure {@code failure} keeps meanwhile, or, after the timeout, an {@link IOException} saying that the peer
   * acknowledged no write.
   */
  public void acquire(Flush flush, WriteFailure failure) throws IOException {
    if (slots.tryAcquire()) {
      return;
    }
    flush.flush();
    flushed();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    try {
      while (!slots.tryAcquire(50, TimeUnit.MILLISECONDS)) {
        failure.throwIfFailed();
        if (System.nanoTime() > deadline) {
          // Kept, so that a close() after this does not go on as if the unacknowledged writes had landed.
          failure.fail(new IOException(peer + " acknowledged no " + what + " within " + timeoutMillis + " ms"));
          failure.throwIfFailed();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for the acknowledgement of a " + what);
    }
  }

  /** An acknowledgement (or failure) of one write came back. */
  public void release() {
    slots.release();
  }
}
