package io.fffs.rdma;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One UCX context and worker, owned by one thread. A UCP worker is not thread-safe, so every call on it (endpoints,
 * remote keys, PUT/GET) runs on this thread: other threads hand it tasks ({@link #execute}, {@link #call}) and wake
 * it with {@code ucp_worker_signal}. Between tasks the thread progresses the worker; while one-sided operations it
 * issued are outstanding it keeps polling, otherwise it sleeps in {@code ucp_worker_wait} until the network or a
 * task wakes it. That also serves peers' operations on this worker's memory: over UCX's tcp transport a GET is
 * emulated and its target must progress.
 */
final class UcxWorkerLoop implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(UcxWorkerLoop.class);

  private final UcpContext context;
  private final UcpWorker worker;
  private final Thread thread;
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private int outstanding;
  private volatile boolean running = true;

  UcxWorkerLoop(String name) {
    this.context = new UcpContext(UcxProbe.contextParams());
    try {
      this.worker = context.newWorker(new UcpWorkerParams());
    } catch (RuntimeException e) {
      context.close();
      throw e;
    }
    this.thread = new Thread(this::run, name);
    thread.setDaemon(true);
    thread.start();
  }

  /** The worker's address, for a peer to create an endpoint to it. */
  ByteBuffer address() throws IOException {
    return await(call(() -> copy(worker.getAddress())));
  }

  UcpWorker worker() {
    assertOnLoop();
    return worker;
  }

  /** Registers {@code buffer} (direct) with UCX; callable from any thread. */
  UcpMemory register(ByteBuffer buffer) throws IOException {
    return await(call(() -> context.registerMemory(buffer)));
  }

  void execute(Runnable task) {
    if (!running) {
      throw new IllegalStateException("the UCX worker " + thread.getName() + " is stopped");
    }
    tasks.add(task);
    worker.signal();
  }

  <T> CompletableFuture<T> call(Callable<T> task) {
    CompletableFuture<T> result = new CompletableFuture<>();
    execute(() -> {
      try {
        result.complete(task.call());
      } catch (Throwable e) {
        result.completeExceptionally(e);
      }
    });
    return result;
  }

  /**
   * On the loop: a callback for one operation that completes {@code done} (on the loop) and counts the operation as
   * outstanding until then. Pass the request it returns to {@link #issued}.
   */
  UcxCallback track(CompletableFuture<Void> done, String what) {
    assertOnLoop();
    outstanding++;
    AtomicBoolean finished = new AtomicBoolean();
    return new UcxCallback() {
      @Override
      public void onSuccess(UcpRequest request) {
        if (finished.compareAndSet(false, true)) {
          outstanding--;
          done.complete(null);
        }
      }

      @Override
      public void onError(int status, String message) {
        if (finished.compareAndSet(false, true)) {
          outstanding--;
          done.completeExceptionally(new IOException("UCX " + what + " failed: " + message + " (status " + status
              + ")"));
        }
      }
    };
  }

  /** On the loop: an operation that completed at once may not call back; finish it here. */
  static void issued(UcpRequest request, UcxCallback callback) {
    if (request != null && request.isCompleted()) {
      callback.onSuccess(request);
    }
  }

  private void run() {
    while (running) {
      try {
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
          task.run();
        }
        if (worker.progress() != 0 || !tasks.isEmpty()) {
          continue;
        }
        if (outstanding > 0) {
          Thread.onSpinWait();
        } else {
          worker.waitForEvents();
        }
      } catch (Exception e) {
        LOG.warn("UCX worker {}: {}", thread.getName(), e.toString());
      }
    }
  }

  private void assertOnLoop() {
    if (Thread.currentThread() != thread) {
      throw new IllegalStateException("UCX worker calls belong on " + thread.getName());
    }
  }

  static <T> T await(CompletableFuture<T> future) throws IOException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted waiting for the UCX worker");
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof IOException ? (IOException) cause : new IOException(cause.toString(), cause);
    }
  }

  private static ByteBuffer copy(ByteBuffer buffer) {
    ByteBuffer copy = ByteBuffer.allocate(buffer.remaining());
    copy.put(buffer.duplicate()).flip();
    return copy;
  }

  /**
   * Runs {@code cleanup} on the loop (closing endpoints, releasing memory), then stops the thread and closes the
   * worker and context.
   */
  void close(Runnable cleanup) {
    if (!running) {
      return;
    }
    try {
      await(call(() -> {
        cleanup.run();
        return null;
      }));
    } catch (IOException e) {
      LOG.warn("UCX worker {}: cleanup failed: {}", thread.getName(), e.toString());
    }
    running = false;
    worker.signal();
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    worker.close();
    context.close();
  }

  @Override
  public void close() {
    close(() -> { });
  }
}
