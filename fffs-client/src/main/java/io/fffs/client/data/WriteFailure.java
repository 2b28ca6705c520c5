package io.fffs.client.data;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The failure bookkeeping of a pipelined block writer, whatever its transport: the first failure is kept (later
 * ones are its consequences) and thrown by the writer's next call, with its code when it is an
 * {@link FffsException}.
 */
public final class WriteFailure {
  private volatile IOException failure;
  private volatile boolean reported;

  /** Keeps {@code cause} unless a failure is already kept. */
  public void fail(IOException cause) {
    if (failure == null) {
      failure = cause;
    }
  }

  /** Throws the kept failure, if any (a fresh exception with this caller's stack, the original as its cause). */
  public void throwIfFailed() throws IOException {
    IOException cause = failure;
    if (cause == null) {
      return;
    }
    reported = true;
    if (cause instanceof FffsException) {
      FffsException typed = (FffsException) cause;
      throw new FffsException(typed.code(), typed.detail(), typed);
    }
    throw new IOException(cause.getMessage(), cause);
  }

  /** Whether the kept failure is a DataNode's refusal of the writer's token ({@code ACCESS_DENIED}). */
  public boolean refusedToken() {
    return failure instanceof FffsException typed && typed.code() == ErrorCode.ACCESS_DENIED;
  }

  /** Whether a failure is kept. */
  public boolean failed() {
    return failure != null;
  }

  /** Whether a failure is kept that no call has thrown yet (closing must still report it). */
  public boolean unreported() {
    return failure == null || !reported;
  }

  /**
   * Waits for {@code lastAck}, the acknowledgement of the last write sent, and throws any failure kept meanwhile.
   *
   * @param what names the writes for a timeout message, e.g. "the writes of block 7 by DataNode …"
   */
  public void awaitAck(CompletableFuture<?> lastAck, long timeoutMillis, String what) throws IOException {
    try {
      lastAck.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      fail(new IOException(e.getCause()));
    } catch (TimeoutException e) {
      fail(new IOException(what + " were not acknowledged within " + timeoutMillis + " ms"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for the acknowledgement of " + what);
    }
    throwIfFailed();
  }
}
