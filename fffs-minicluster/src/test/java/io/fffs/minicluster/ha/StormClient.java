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
}
