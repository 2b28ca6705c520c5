package io.fffs.namenode.fs;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Runs a task on a scheduler again and again, each run starting at least an interval after the last one ended and at
 * least {@code rest} times that run's duration after it. A task whose work grows with the namespace (the replication
 * scan reads every file) then takes at most {@code 1 / (1 + rest)} of its thread's time however large the namespace
 * grows, where a fixed delay would let it take nearly all of it; on a small namespace it runs at the interval. While
 * a rest is longer than the interval, a cheaper task runs at each interval that ends within it (the replication
 * monitor's copies from the last scan's findings).
 */
final class PacedSchedule {
  private final ScheduledExecutorService executor;
  private final Runnable task;
  private final Runnable between;
  private final long intervalNanos;
  private final int rest;
  private final LongSupplier nanoTime;

  private PacedSchedule(ScheduledExecutorService executor, Runnable task, Runnable between, long intervalNanos,
      int rest, LongSupplier nanoTime) {
    this.executor = executor;
    this.task = task;
    this.between = between;
    this.intervalNanos = intervalNanos;
    this.rest = rest;
    this.nanoTime = nanoTime;
  }

  /** Schedules {@code task}'s first run an interval from now; the executor's {@code shutdownNow} ends the series. */
  static void start(ScheduledExecutorService executor, Runnable task, long intervalNanos, int rest,
      LongSupplier nanoTime) {
    start(executor, task, () -> { }, intervalNanos, rest, nanoTime);
  }

  /** {@link #start(ScheduledExecutorService, Runnable, long, int, LongSupplier)}, with {@code between} in the rests. */
  static void start(ScheduledExecutorService executor, Runnable task, Runnable between, long intervalNanos, int rest,
      LongSupplier nanoTime) {
    PacedSchedule schedule = new PacedSchedule(executor, task, between, intervalNanos, rest, nanoTime);
    schedule.next(schedule::run, intervalNanos);
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
      long end = nanoTime.getAsLong();
      rest(end + delayNanos(intervalNanos, end - start, rest));
    }
  }

  /** Runs {@code between} at each interval that ends before {@code dueNanos}, then the task. */
  private void rest(long dueNanos) {
    long left = dueNanos - nanoTime.getAsLong();
    if (left <= intervalNanos) {
      next(this::run, Math.max(0, left));
      return;
    }
    next(() -> {
      try {
        between.run();
      } finally {
        rest(dueNanos);
      }
    }, intervalNanos);
  }

  private void next(Runnable run, long delayNanos) {
    try {
      executor.schedule(run, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException shutDown) {
      // the NameNode is stopping: the series ends here
    }
  }
}
