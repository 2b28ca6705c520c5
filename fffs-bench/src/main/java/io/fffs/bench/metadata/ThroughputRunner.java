package io.fffs.bench.metadata;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.fs.FileSystem;

/**
 * Runs a {@link MetadataOp} on N threads for a fixed time: every thread prepares, all start together at a barrier,
 * each repeats its action until the shared deadline, and the throughput is all completed calls over the time from
 * the start to the last thread's finish (a call in flight at the deadline is counted and its time included).
 */
final class ThroughputRunner {
  private final AtomicInteger runs = new AtomicInteger();

  /** Completed calls and the wall-clock nanoseconds they took. */
  record Measurement(long ops, long nanos) {
    static final Measurement ZERO = new Measurement(0, 0);

    Measurement plus(Measurement other) {
      return new Measurement(ops + other.ops, nanos + other.nanos);
    }

    double opsPerSecond() {
      return nanos == 0 ? 0 : ops * 1e9 / nanos;
    }
  }

  /** Runs {@code op} once for every {@code i} in [0, count), the indexes spread over all the clients' threads. */
  void forEach(List<FileSystem> clients, MetadataOp op, int count) throws IOException {
    int threads = clients.size();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> workers = new ArrayList<>();
    int run = runs.incrementAndGet();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread worker = new Thread(() -> {
        try {
          MetadataOp.Action action = op.prepare(clients.get(thread), thread, run);
          for (int i = thread; i < count && failure.get() == null; i += threads) {
            action.run(i);
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "metabench-setup-" + thread);
      workers.add(worker);
      worker.start();
    }
    join(workers);
    if (failure.get() != null) {
      throw new IOException("set-up thread failed: " + failure.get(), failure.get());
    }
  }

  Measurement run(List<FileSystem> clients, int threads, MetadataOp op, long durationNanos) throws IOException {
    if (clients.size() < threads) {
      throw new IllegalArgumentException(threads + " threads but " + clients.size() + " clients");
    }
    int run = runs.incrementAndGet();
    long[] start = new long[1];
    CyclicBarrier barrier = new CyclicBarrier(threads, () -> start[0] = System.nanoTime());
    long[] ops = new long[threads];
    long[] ends = new long[threads];
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread worker = new Thread(() -> {
        try {
          MetadataOp.Action action = op.prepare(clients.get(thread), thread, run);
          barrier.await();
          long deadline = start[0] + durationNanos;
          long i = 0;
          while (failure.get() == null && System.nanoTime() < deadline) {
            action.run(i++);
          }
          ops[thread] = i;
          ends[thread] = System.nanoTime();
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
          barrier.reset();
        }
      }, "metabench-" + thread);
      workers.add(worker);
      worker.start();
    }
    join(workers);
    Throwable e = failure.get();
    if (e != null && !(e instanceof BrokenBarrierException)) {
      throw new IOException("benchmark thread failed: " + e, e);
    } else if (e != null) {
      throw new IOException("benchmark threads did not start together", e);
    }
    long total = 0;
    long end = start[0];
    for (int t = 0; t < threads; t++) {
      total += ops[t];
      end = Math.max(end, ends[t]);
    }
    return new Measurement(total, end - start[0]);
  }

  private static void join(List<Thread> workers) throws IOException {
    for (Thread worker : workers) {
      try {
        worker.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
  }
}
