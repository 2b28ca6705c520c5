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
 * remote keys, PUT/GET) runs on this thread: other threads hand it tasks ({@link #execute}, {@link #call}).
 *
 * <p>The thread does not busy-poll: it runs queued tasks and calls {@code ucp_worker_progress} until neither
 * yields anything, optionally spins for {@code fffs.rdma.worker.spin} more (in case the answer to an operation it
 * just issued is about to arrive), then blocks in {@code ucp_worker_wait} ({@link UcpWorker#waitForEvents}), which
 * arms the worker and sleeps on its event fd. That fd covers every transport the context chose (the wakeup
 * feature is requested, {@link UcxProbe#contextParams}): the completion of its own GETs, PUTs and flushes, a peer's
 * operations on this worker's memory (over UCX's tcp transport a GET is emulated and its target must progress: the
 * request arrives on the socket and wakes the target's worker), endpoint errors, and {@code ucp_worker_signal}. A
 * task handed in from another thread signals the worker only when the thread may be asleep ({@link #sleeping}):
 * a signal is sticky (it makes the next arm return busy), so a task queued just before the thread sleeps is never
 * missed; the worst case is one spurious wake-up. {@link #close} signals too, so a sleeping thread wakes and exits.
 * The thread sleeps rather than polls, since polling while operations are outstanding costs CPU per packet.
 */
public final class UcxWorkerLoop implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(UcxWorkerLoop.class);

  private final UcpContext context;
  private final UcpWorker worker;
  private final Thread thread;
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final long spinNanos;
  private int outstanding;
  private volatile boolean running = true;
  /** True while the thread is (about to be) blocked in {@code ucp_worker_wait}: a new task must signal it. */
  private volatile boolean sleeping;

  /** {@code spinNanos}: how long to keep polling after the last progress before blocking (0: block at once). */
  public UcxWorkerLoop(String name, long spinNanos) {
    this.spinNanos = Math.max(0, spinNanos);
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
  public ByteBuffer address() throws IOException {
    return await(call(() -> copy(worker.getAddress())));
  }

  public UcpWorker worker() {
    assertOnLoop();
    return worker;
  }

  /** Registers {@code buffer} (direct) with UCX; callable from any thread. */
  public UcpMemory register(ByteBuffer buffer) throws IOException {
    return await(call(() -> context.registerMemory(buffer)));
  }

  public void execute(Runnable task) {
    if (!running) {
      throw new IllegalStateException("the UCX worker " + thread.getName() + " is stopped");
    }
    tasks.add(task);
    if (sleeping) {
      worker.signal();
    }
  }

  public <T> CompletableFuture<T> call(Callable<T> task) {
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
  public UcxCallback track(CompletableFuture<Void> done, String what) {
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
  public static void issued(UcpRequest request, UcxCallback callback) {
    if (request != null && request.isCompleted()) {
      callback.onSuccess(request);
    }
  }

  private void run() {
    long idleSince = 0;
    while (running) {
      try {
        boolean worked = false;
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
          task.run();
          worked = true;
        }
        if (worker.progress() != 0 || worked) {
          idleSince = 0;
          continue;
        }
        if (spinNanos > 0 && outstanding > 0) {
          long now = System.nanoTime();
          if (idleSince == 0) {
            idleSince = now;
          }
          if (now - idleSince < spinNanos) {
            Thread.onSpinWait();
            continue;
          }
        }
        idleSince = 0;
        sleeping = true;
        // A task queued before the flag was visible did not signal: look once more before sleeping.
        if (tasks.isEmpty() && running) {
          worker.waitForEvents();
        }
        sleeping = false;
      } catch (Exception e) {
        sleeping = false;
        LOG.warn("UCX worker {}: {}", thread.getName(), e.toString());
      }
    }
  }

  /** True once the thread has exited (after {@link #close}). */
  public boolean stopped() {
    return !thread.isAlive();
  }

  private void assertOnLoop() {
    if (Thread.currentThread() != thread) {
      throw new IllegalStateException("UCX worker calls belong on " + thread.getName());
    }
  }

  public static <T> T await(CompletableFuture<T> future) throws IOException {
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
  public void close(Runnable cleanup) {
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
