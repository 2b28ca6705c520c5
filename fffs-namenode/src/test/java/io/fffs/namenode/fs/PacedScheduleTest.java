package io.fffs.namenode.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PacedScheduleTest {
  private static final long INTERVAL = TimeUnit.MILLISECONDS.toNanos(5);

  @Test
  void waitsTheIntervalOrRestTimesTheRunWhicheverIsLonger() {
    assertThat(PacedSchedule.delayNanos(3_000, 100, 9)).isEqualTo(3_000);
    assertThat(PacedSchedule.delayNanos(3_000, 1_000, 9)).isEqualTo(9_000);
    assertThat(PacedSchedule.delayNanos(3_000, -5, 9)).as("a clock that went back").isEqualTo(3_000);
  }

  @Test
  void aLongRunIsFollowedByALongRestAndAShortOneByTheInterval() throws Exception {
    ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    try {
      AtomicLong longClock = new AtomicLong();
      AtomicInteger longRuns = new AtomicInteger();
      // Each run takes a second by its clock: the next may start 9 s after it ends.
      PacedSchedule.start(executor, () -> {
        longRuns.incrementAndGet();
        longClock.addAndGet(TimeUnit.SECONDS.toNanos(1));
      }, INTERVAL, 9, longClock::get);
      AtomicInteger shortRuns = new AtomicInteger();
      PacedSchedule.start(executor, shortRuns::incrementAndGet, INTERVAL, 9, () -> 0L);

      awaitAtLeast(shortRuns, 10);
      assertThat(longRuns.get()).as("runs of the task that takes a second, while the quick one ran 10 times")
          .isEqualTo(1);
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void theRestAfterALongRunIsFilledWithTheBetweenTaskAtTheInterval() throws Exception {
    ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    try {
      // Each run and each between run take a second by this clock: a run's rest of 9 s holds 9 between runs.
      AtomicLong clock = new AtomicLong();
      List<String> order = Collections.synchronizedList(new ArrayList<>());
      PacedSchedule.start(executor, () -> {
        order.add("run");
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
      }, () -> {
        order.add("between");
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
      }, INTERVAL, 9, clock::get);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (order.size() < 21 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      List<String> expected = new ArrayList<>();
      expected.add("run");
      expected.addAll(Collections.nCopies(9, "between"));
      expected.add("run");
      expected.addAll(Collections.nCopies(9, "between"));
      expected.add("run");
      synchronized (order) {
        assertThat(order.subList(0, Math.min(order.size(), 21))).isEqualTo(expected);
      }

      AtomicInteger betweens = new AtomicInteger();
      AtomicInteger quickRuns = new AtomicInteger();
      PacedSchedule.start(executor, quickRuns::incrementAndGet, betweens::incrementAndGet, INTERVAL, 9, () -> 0L);
      awaitAtLeast(quickRuns, 10);
      assertThat(betweens.get()).as("a run shorter than the interval leaves no room between").isZero();
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void aRunThatThrowsDoesNotEndTheSeries() throws Exception {
    ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    try {
      AtomicInteger runs = new AtomicInteger();
      PacedSchedule.start(executor, () -> {
        runs.incrementAndGet();
        throw new IllegalStateException("a failed scan");
      }, INTERVAL, 9, System::nanoTime);
      awaitAtLeast(runs, 3);

      AtomicLong clock = new AtomicLong();
      AtomicInteger longRuns = new AtomicInteger();
      PacedSchedule.start(executor, () -> {
        longRuns.incrementAndGet();
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
      }, () -> {
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
        throw new IllegalStateException("a failed round between scans");
      }, INTERVAL, 9, clock::get);
      awaitAtLeast(longRuns, 3);
    } finally {
      executor.shutdownNow();
    }
  }

  private static void awaitAtLeast(AtomicInteger runs, int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (runs.get() < count && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(runs.get()).isGreaterThanOrEqualTo(count);
  }
}
