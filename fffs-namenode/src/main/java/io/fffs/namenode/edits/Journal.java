package io.fffs.namenode.edits;

import io.fffs.common.error.FffsException;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.time.HlcTimestamp;
import java.io.Closeable;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * Where the namespace's stamped ops go before their changes may be acknowledged: the local {@link EditLog} (one
 * NameNode; durable = fsync'd) or a Raft log (highly available NameNodes; durable = committed by a majority). The
 * namespace appends under its write lock, in txid order, and answers a change once its txid is durable.
 */
public interface Journal extends Closeable {
  /** Queues a stamped op; txids are consecutive. {@code IO_ERROR} or {@code NOT_LEADER} once it takes no more. */
  void append(long txid, HlcTimestamp hlc, EditOpProto op) throws FffsException;

  /** Returns once every op up to {@code txid} is durable; fails if it never will be. */
  void awaitSynced(long txid) throws IOException;

  /** Whether every op up to {@code txid} is durable. */
  boolean isSynced(long txid);

  /**
   * Runs {@code synced} once every op up to {@code txid} is durable, or {@code failed} with why it never will be,
   * without holding the calling thread.
   */
  void whenSynced(long txid, Runnable synced, Consumer<IOException> failed);

  /** The last txid appended (or, on a follower, applied). */
  long lastQueuedTxid();

  /**
   * Hands the ops appended so far on towards durability, if the journal does not on its own; called after each
   * change, once the namespace's write lock is released. Never throws: a failure fails the ops' waiters.
   */
  default void flush() {}

  /** Durability rounds since start (fsyncs, or Raft commits observed). */
  long batchesSynced();
}
