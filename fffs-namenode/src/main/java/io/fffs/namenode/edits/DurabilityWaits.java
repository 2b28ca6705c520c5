package io.fffs.namenode.edits;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The highest txid a {@link Journal} has made durable, and the callers waiting for theirs: threads blocked in
 * {@link #await}, and callbacks ({@link #whenSynced}) answered lowest txid first once their txid is durable, or
 * failed once the journal {@link #refuse}s. The journal only says how far it got ({@link #advance}) or why it will
 * go no further; the waiting logic is the same for every journal.
 *
 * <p>Callbacks run either on a notifier thread of their own, so that a journal's writer goes straight back to its
 * next fsync, or on the thread that advanced the txid, after this class's lock is released, where that thread has
 * nothing more urgent to do (the Raft state machine, which skips the leader's own ops) and a thread switch would
 * only add latency.
 */
public final class DurabilityWaits {
  private static final Logger LOG = LoggerFactory.getLogger(DurabilityWaits.class);

  private record Notice(long txid, Runnable synced, Consumer<IOException> failed) {}

  /** Notices taken under the lock, with the durable txid and refusal they are answered by. */
  private record Due(List<Notice> notices, long durable, IOException refusal) {}

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition advanced = lock.newCondition();
  private final PriorityQueue<Notice> notices = new PriorityQueue<>((a, b) -> Long.compare(a.txid, b.txid));
  /** Null: callbacks run on the thread that advanced or refused. */
  private final ExecutorService notifier;
  private long durable;
  private long rounds;
  private IOException refusal;

  private DurabilityWaits(long durable, ExecutorService notifier) {
    this.durable = durable;
    this.notifier = notifier;
  }

  /** Txids up to {@code durable} are durable; callbacks run on a notifier thread named {@code threadName}. */
  public static DurabilityWaits withNotifier(long durable, String threadName) {
    return new DurabilityWaits(durable, Executors.newSingleThreadExecutor(r -> {
      Thread thread = new Thread(r, threadName);
      thread.setDaemon(true);
      return thread;
    }));
  }

  /** Txids up to {@code durable} are durable; callbacks run on the thread that advances (or refuses). */
  public static DurabilityWaits inline(long durable) {
    return new DurabilityWaits(durable, null);
  }

  /** Every txid up to {@code txid} is durable now: one durability round when that is further than before. */
  public void advance(long txid) {
    Due due;
    lock.lock();
    try {
      if (txid <= durable) {
        return;
      }
      durable = txid;
      rounds++;
      advanced.signalAll();
      due = takeDue();
    } finally {
      lock.unlock();
    }
    answer(due);
  }

  /**
   * No txid beyond the durable ones will ever be durable, for {@code why}: waiters of those fail with it. Only the
   * first reason counts.
   */
  public void refuse(IOException why) {
    Due due;
    lock.lock();
    try {
      if (refusal != null) {
        return;
      }
      refusal = why;
      advanced.signalAll();
      due = takeDue();
    } finally {
      lock.unlock();
    }
    answer(due);
  }

  /** Returns once every txid up to {@code txid} is durable; throws the refusal if it never will be. */
  public void await(long txid) throws IOException {
    lock.lock();
    try {
      while (durable < txid) {
        if (refusal != null) {
          throw refusal;
        }
        try {
          advanced.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted waiting for txid " + txid + " to be durable");
        }
      }
    } finally {
      lock.unlock();
    }
  }

  public boolean isSynced(long txid) {
    lock.lock();
    try {
      return durable >= txid;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Without holding the calling thread: runs {@code synced} once every txid up to {@code txid} is durable, or
   * {@code failed} with the refusal — later, or on the caller's thread when that is known already.
   */
  public void whenSynced(long txid, Runnable synced, Consumer<IOException> failed) {
    IOException refused;
    lock.lock();
    try {
      if (durable >= txid) {
        refused = null;
      } else if (refusal != null) {
        refused = refusal;
      } else {
        notices.add(new Notice(txid, synced, failed));
        return;
      }
    } finally {
      lock.unlock();
    }
    if (refused != null) {
      failed.accept(refused);
    } else {
      synced.run();
    }
  }

  /** The last durable txid. */
  public long durable() {
    lock.lock();
    try {
      return durable;
    } finally {
      lock.unlock();
    }
  }

  /** How many times the durable txid advanced (fsyncs, or Raft commits observed). */
  public long rounds() {
    lock.lock();
    try {
      return rounds;
    } finally {
      lock.unlock();
    }
  }

  /** Stops the notifier once the callbacks handed to it have run; call after the last {@link #refuse}. */
  public void shutdown() {
    if (notifier != null) {
      notifier.shutdown();
    }
  }

  /** The notices due now, lowest txid first. Caller holds the lock. */
  private Due takeDue() {
    List<Notice> due = new ArrayList<>();
    while (!notices.isEmpty() && (refusal != null || notices.peek().txid <= durable)) {
      due.add(notices.poll());
    }
    return new Due(due, durable, refusal);
  }

  private void answer(Due due) {
    if (due.notices.isEmpty()) {
      return;
    }
    Runnable run = () -> {
      for (Notice notice : due.notices) {
        try {
          if (notice.txid <= due.durable) {
            notice.synced.run();
          } else {
            notice.failed.accept(due.refusal);
          }
        } catch (RuntimeException e) {
          LOG.error("A durability callback failed", e);
        }
      }
    };
    if (notifier == null) {
      run.run();
      return;
    }
    try {
      notifier.execute(run);
    } catch (RejectedExecutionException e) {
      run.run();  // shut down: answer on this thread
    }
  }
}
