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

  /** Returns once a task is queued. */
  synchronized void awaitAny() throws InterruptedException {
    while (tasks.isEmpty()) {
      takerWaiting = true;
      try {
        wait();
      } finally {
        takerWaiting = false;
      }
    }
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
