package io.fffs.datanode.server;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps an event loop's own write apart from reads in flight. A read pins its pages from {@code store.read} until the
 * event loop has handed them to the kernel, and a write that finds the arena full waits for pinned pages to be
 * released: if an event loop applied a write ({@link StoreWriter#tryApplyHere}) while a read it must still send held
 * the pages that write waits for, neither would move. So an event loop applies a write only when no read is in
 * flight, and reads (on handler threads, which may wait) start only when no such write is being applied.
 *
 * <p>State: the number of reads in flight, or -1 while an event loop applies a write.
 */
final class ReadGate {
  private final AtomicInteger state = new AtomicInteger();

  /** Handler thread, before {@code store.read}: waits while an event loop applies a write (microseconds). */
  void enterRead() {
    while (true) {
      int s = state.get();
      if (s >= 0 && state.compareAndSet(s, s + 1)) {
        return;
      }
      if (s < 0) {
        LockSupport.parkNanos(1_000);
      }
    }
  }

  /** Once the read's view is closed (or the read failed before it had one). */
  void exitRead() {
    state.decrementAndGet();
  }

  /** Event loop: true (and reads held off) if no read is in flight; then {@link #exitWrite} must follow. */
  boolean tryEnterWrite() {
    return state.compareAndSet(0, -1);
  }

  void exitWrite() {
    state.set(0);
  }
}
