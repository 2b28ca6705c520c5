package io.fffs.namenode.fs;

import io.fffs.namenode.edits.Journal;
import java.io.IOException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What a change of the namespace returns: its answer, which may be given out only once the edit log has every
 * record up to {@link #txid} on disk. A caller that may block takes the answer with {@link #await}; an RPC handler,
 * which must not block on the fsync, hands {@link #whenDurable} a callback that sends the answer later.
 *
 * @param <T> the answer
 */
public final class Logged<T> {
  private final T answer;
  private final long txid;
  private final Journal log;

  Logged(T answer, long txid, Journal log) {
    this.answer = answer;
    this.txid = txid;
    this.log = log;
  }

  /** The txid that must be on disk before the answer is given (every change logged before it answered too). */
  public long txid() {
    return txid;
  }

  /** Whether the answer may be given now. */
  public boolean isDurable() {
    return log.isSynced(txid);
  }

  /** Waits until the change is on disk and returns the answer; {@code IO_ERROR} if it never will be. */
  public T await() throws IOException {
    log.awaitSynced(txid);
    return answer;
  }

  /**
   * Without holding the calling thread: gives {@code durable} the answer once the change is on disk, or tells
   * {@code failed} why it never will be — on the edit log's notifier thread, or on this one when that is known now.
   */
  public void whenDurable(Consumer<? super T> durable, Consumer<IOException> failed) {
    log.whenSynced(txid, () -> durable.accept(answer), failed);
  }

  /**
   * The answer turned into another now (an RPC response built from it), still given only once durable. When
   * {@code f} fails, the change is already made: the failure goes out only once the change is durable too.
   */
  public <U> Logged<U> map(Function<? super T, ? extends U> f) throws IOException {
    U mapped;
    try {
      mapped = f.apply(answer);
    } catch (RuntimeException e) {
      log.awaitSynced(txid);
      throw e;
    }
    return new Logged<>(mapped, txid, log);
  }
}
