package io.fffs.datanode.store.persist;

import java.util.ArrayList;
import java.util.List;

/**
 * A persistence thread's queue: writers add entries one at a time, the thread takes all of them at once, so the
 * lock writers share is touched by the thread once per batch rather than once per entry.
 */
final class WorkerInbox {
  private final List<PersistenceWorker.Task> tasks = new ArrayList<>();
  /** Record bytes of the tasks queued (written under this object's lock). */
  private volatile long queuedBytes;
  private boolean takerWaiting;

  /** Queues {@code task}, whose record takes {@code recordBytes}; returns the record bytes queued now. */
  synchronized long add(PersistenceWorker.Task task, long recordBytes) {
    tasks.add(task);
    long bytes = queuedBytes + recordBytes;
    queuedBytes = bytes;
    if (takerWaiting) {
      notifyAll();
    }
    return bytes;
  }

  /** Times {@link #wake} was called: read before checking what to wait for, handed to {@link #awaitAny}. */
  private long wakes;

  /**
   * Returns once a task is queued (true), or {@link #wake} was called since {@link #wakes} returned {@code seen},
   * or {@code timeoutNanos} passed (0: no limit) (false).
   */
  synchronized boolean awaitAny(long timeoutNanos, long seen) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    while (tasks.isEmpty() && wakes == seen) {
      long left = timeoutNanos == 0 ? 0 : deadline - System.nanoTime();
      if (timeoutNanos != 0 && left <= 0) {
        return false;
      }
      takerWaiting = true;
      try {
        wait(left / 1_000_000, (int) (left % 1_000_000));
      } finally {
        takerWaiting = false;
      }
    }
    return !tasks.isEmpty();
  }

  synchronized long wakes() {
    return wakes;
  }

  /** Ends an {@link #awaitAny} early: someone waits for an fsync of what was written. */
  synchronized void wake() {
    wakes++;
    if (takerWaiting) {
      notifyAll();
    }
  }

  synchronized boolean isEmpty() {
    return tasks.isEmpty();
  }

  /** Record bytes of the tasks queued now (a read without the lock, for the group-commit wait). */
  long queuedBytes() {
    return queuedBytes;
  }

  /** Moves every queued task, in order, to the end of {@code into}. */
  synchronized void takeAll(List<PersistenceWorker.Task> into) {
    into.addAll(tasks);
    tasks.clear();
    queuedBytes = 0;
  }
}
