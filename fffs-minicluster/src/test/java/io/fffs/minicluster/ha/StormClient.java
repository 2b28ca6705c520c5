package io.fffs.minicluster.ha;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One client of a failover test, working until it is told to stop: the latch it counts down once it is under way
 * (and when it ends), and what failed it.
 */
abstract class StormClient implements Runnable {
  final int client;
  final AtomicBoolean stop;
  final CountDownLatch warmedUp;
  volatile Throwable failure;

  StormClient(int client, AtomicBoolean stop, CountDownLatch warmedUp) {
    this.client = client;
    this.stop = stop;
    this.warmedUp = warmedUp;
  }

  @Override
  public final void run() {
    try {
      work();
    } catch (Throwable t) {
      failure = t;
    } finally {
      warmedUp.countDown();  // a client that failed early must not keep the test waiting
    }
  }

  /** The client's work until {@link #stop} is set; counts {@link #warmedUp} down once it is under way. */
  abstract void work() throws Exception;

  /**
   * Waits (up to 60 s) until {@code wentOn} holds or a client failed, polling: a fixed sleep is too short for a
   * client still in a failover's back-off on a loaded machine. The caller asserts what it waited for.
   */
  static void awaitProgress(java.util.function.BooleanSupplier wentOn, java.util.List<? extends StormClient> clients)
      throws InterruptedException {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!wentOn.getAsBoolean() && clients.stream().allMatch(c -> c.failure == null)
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
  }
}
