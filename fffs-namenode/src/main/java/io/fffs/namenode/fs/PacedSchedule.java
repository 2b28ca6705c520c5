package io.fffs.namenode.fs;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Runs a task on a scheduler again and again, each run starting at least an interval after the last one ended and at
 * least {@code rest} times that run's duration after it. A task whose work grows with the namespace (the replication
 * scan reads every file) then takes at most {@code 1 / (1 + rest)} of its thread's time however large the namespace
 * grows, where a fixed delay would let it take nearly all of it; on a small namespace it runs at the interval.
 */
final class PacedSchedule {
  private final ScheduledExecutorService executor;
  private final Runnable task;
  private final long intervalNanos;
  private final int rest;
  private final LongSupplier nanoTime;

  private PacedSchedule(ScheduledExecutorService executor, Runnable task, long intervalNanos, int rest,
      LongSupplier nanoTime) {
    this.executor = executor;
    this.task = task;
    this.intervalNanos = intervalNanos;
    this.rest = rest;
    this.nanoTime = nanoTime;
  }

  /** Schedules {@code task}'s first run an interval from now; the executor's {@code shutdownNow} ends the series. */
  static void start(ScheduledExecutorService executor, Runnable task, long intervalNanos, int rest,
      LongSupplier nanoTime) {
    PacedSchedule schedule = new PacedSchedule(executor, task, intervalNanos, rest, nanoTime);
    schedule.next(intervalNanos);
  }

  /** The wait after a run that took {@code tookNanos}. */
  static long delayNanos(long intervalNanos, long tookNanos, int rest) {
    return Math.max(intervalNanos, Math.max(0, tookNanos) * rest);
  }

  private void run() {
    long start = nanoTime.getAsLong();
    try {
      task.run();
    } finally {
      next(delayNanos(intervalNanos, nanoTime.getAsLong() - start, rest));
    }
  }

  private void next(long delayNanos) {
    try {
      executor.schedule(this::run, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException shutDown) {
      // the NameNode is stopping: the series ends here
    }
  }
}
