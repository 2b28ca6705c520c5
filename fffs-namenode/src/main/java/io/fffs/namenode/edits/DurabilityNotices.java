package io.fffs.namenode.edits;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The callers of a {@link Journal} waiting to be told that their txid is durable ({@link Journal#whenSynced}),
 * lowest txid first, answered on a notifier thread of their own so that the thread that made them durable goes back
 * to its work at once. Not thread-safe: the journal calls it under its lock.
 */
public final class DurabilityNotices {
  private static final Logger LOG = LoggerFactory.getLogger(DurabilityNotices.class);

  private record Notice(long txid, Runnable synced, Consumer<IOException> failed) {}

  private final PriorityQueue<Notice> notices = new PriorityQueue<>((a, b) -> Long.compare(a.txid, b.txid));
  private final ExecutorService notifier;

  /** @param threadName the notifier thread's name */
  public DurabilityNotices(String threadName) {
    this.notifier = Executors.newSingleThreadExecutor(r -> {
      Thread thread = new Thread(r, threadName);
      thread.setDaemon(true);
      return thread;
    });
  }

  public void add(long txid, Runnable synced, Consumer<IOException> failed) {
    notices.add(new Notice(txid, synced, failed));
  }

  /**
   * Hands the notices that are due to the notifier: those up to {@code durableTxid}, and every other one with
   * {@code refused} when it is set (the journal failed or closed).
   */
  public void release(long durableTxid, IOException refused) {
    List<Notice> due = new ArrayList<>();
    while (!notices.isEmpty() && (refused != null || notices.peek().txid <= durableTxid)) {
      due.add(notices.poll());
    }
    if (due.isEmpty()) {
      return;
    }
    Runnable run = () -> {
      for (Notice notice : due) {
        try {
          if (notice.txid <= durableTxid) {
            notice.synced.run();
          } else {
            notice.failed.accept(refused);
          }
        } catch (RuntimeException e) {
          LOG.error("A durability notice failed", e);
        }
      }
    };
    try {
      notifier.execute(run);
    } catch (RejectedExecutionException e) {
      run.run();  // closing: answer on this thread
    }
  }

  /** Stops the notifier once the notices handed to it have run. */
  public void shutdown() {
    notifier.shutdown();
  }
}
