package io.fffs.namenode.fs;

/**
 * Lets an RPC answer a change once it is durable without holding its handler thread meanwhile (as HDFS's
 * asynchronous edit logging does): between {@link #begin} and {@link #end} on one thread,
 * {@link Namesystem#mutate} notes the txid its change needs on disk instead of waiting for it; the caller then
 * sends its answer once the edit log has synced that txid ({@code EditLog.whenSynced}). Outside such a span
 * mutate waits, as before.
 */
public final class DeferredDurability {
  private static final ThreadLocal<long[]> PENDING = new ThreadLocal<>();

  private DeferredDurability() {}

  /** From now on this thread's changes note their txid instead of waiting for it. */
  public static void begin() {
    PENDING.set(new long[] {0});
  }

  /** Ends the span; returns the highest txid its changes need on disk (0: none). */
  public static long end() {
    long[] pending = PENDING.get();
    PENDING.remove();
    return pending == null ? 0 : pending[0];
  }

  /** In a span: notes {@code txid} and returns true; else false (the caller waits). */
  static boolean note(long txid) {
    long[] pending = PENDING.get();
    if (pending == null) {
      return false;
    }
    pending[0] = Math.max(pending[0], txid);
    return true;
  }
}
