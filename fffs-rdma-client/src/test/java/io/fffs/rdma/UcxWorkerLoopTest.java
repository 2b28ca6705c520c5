package io.fffs.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The worker thread blocks in {@code ucp_worker_wait} when it has nothing to do: tasks handed in from other threads
 * must wake it every time (a lost wake-up would leave a task queued forever, caught here by the bounded waits), with
 * and without polling before it blocks, and closing must wake and stop it. Run by the ucx-tcp and ucx-shm surefire
 * executions (UCX must load).
 */
class UcxWorkerLoopTest {
  private static final int TASKS = 2000;

  private static void assumeUcx() {
    Assumptions.assumeTrue(System.getProperty("fffs.test.ucx.tls") != null,
        "run by the ucx-tcp and ucx-shm surefire executions");
  }

  @Test
  void everyTaskHandedToASleepingWorkerRuns() throws Exception {
    assumeUcx();
    for (long spin : new long[] {0, TimeUnit.MICROSECONDS.toNanos(50)}) {
      UcxWorkerLoop loop = new UcxWorkerLoop("fffs-ucx-test", spin);
      try {
        int ran = 0;
        for (int i = 0; i < TASKS; i++) {
          if (i % 500 == 0) {
            Thread.sleep(20); // let the thread reach ucp_worker_wait
          }
          int n = i;
          // One at a time: each task finds the thread idle or going to sleep, the racy moment for a wake-up.
          ran += loop.call(() -> n).get(30, TimeUnit.SECONDS) == n ? 1 : 0;
        }
        assertThat(ran).isEqualTo(TASKS);
        // Many at once from two threads: every one runs.
        CompletableFuture<?>[] all = new CompletableFuture<?>[TASKS];
        Thread other = new Thread(() -> {
          for (int i = 0; i < TASKS; i += 2) {
            all[i] = loop.call(() -> 1);
          }
        });
        other.start();
        for (int i = 1; i < TASKS; i += 2) {
          all[i] = loop.call(() -> 1);
        }
        other.join();
        CompletableFuture.allOf(all).get(30, TimeUnit.SECONDS);
      } finally {
        loop.close();
      }
      assertThat(loop.stopped()).as("the worker thread woke from ucp_worker_wait and exited on close").isTrue();
    }
  }

  @Test
  void closingWakesAnIdleWorkerAndRefusesLaterTasks() throws Exception {
    assumeUcx();
    UcxWorkerLoop loop = new UcxWorkerLoop("fffs-ucx-test", 0);
    Thread.sleep(50); // asleep in ucp_worker_wait
    loop.close();
    assertThat(loop.stopped()).isTrue();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> loop.execute(() -> { }))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("stopped");
  }
}
