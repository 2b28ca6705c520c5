package io.fffs.datanode.store.persist;

import io.fffs.common.io.Unmapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The read-only mappings one open segment file keeps for data-port answers, a window of {@code windowBytes} each,
 * made when an answer first needs a stretch of it and kept while the file is open, so later answers pay no mapping,
 * page faults or unmapping. Their bytes are only ever handed to the kernel (socket writes), which fails a write
 * rather than the process if the disk cannot read a page. How many windows all files keep mapped is bounded
 * ({@link Budget}). Thread-safe.
 */
final class SegmentWindows {
  /** The windows all open segment files keep mapped: at most {@code max}, reclaiming idle files' when out. */
  static final class Budget {
    private final int max;
    private final Runnable reclaimIdle;
    private final AtomicInteger mapped = new AtomicInteger();

    /** @param reclaimIdle unmaps the windows of files no reader holds (called with no window's lock held) */
    Budget(int max, Runnable reclaimIdle) {
      this.max = max;
      this.reclaimIdle = reclaimIdle;
    }

    private boolean take() {
      if (tryTake()) {
        return true;
      }
      reclaimIdle.run();
      return tryTake();
    }

    private boolean tryTake() {
      if (mapped.incrementAndGet() <= max) {
        return true;
      }
      mapped.decrementAndGet();
      return false;
    }

    private void give(int count) {
      mapped.addAndGet(-count);
    }

    /** Windows mapped now. */
    int mapped() {
      return mapped.get();
    }
  }

  private final FileChannel channel;
  private final int windowBytes;
  private final Budget budget;
  /** Window i maps bytes [i * windowBytes, (i + 1) * windowBytes); guarded by this. */
  private MappedByteBuffer[] windows = new MappedByteBuffer[0];
  private boolean closed;
  /** A mapping of this file failed: it gets no more tries (a failed map costs the JDK a GC and a sleep). */
  private boolean refused;

  SegmentWindows(FileChannel channel, int windowBytes, Budget budget) {
    this.channel = channel;
    this.windowBytes = windowBytes;
    this.budget = budget;
  }

  /**
   * {@code length} bytes at {@code position}, read-only, from the window they lie in; null when they cross a window,
   * when the file does not hold their whole window yet (it is still being written), when the budget is spent on
   * windows readers hold, or when the file cannot be mapped. Only for a caller that holds the file until the kernel
   * has the bytes.
   */
  ByteBuffer slice(long position, int length) {
    int w = (int) (position / windowBytes);
    int at = (int) (position - (long) w * windowBytes);
    if ((long) at + length > windowBytes) {
      return null;
    }
    synchronized (this) {
      if (closed || refused) {
        return null;
      }
      if (w < windows.length && windows[w] != null) {
        return windows[w].slice(at, length);
      }
    }
    long start = (long) w * windowBytes;
    try {
      if (channel.size() < start + windowBytes) {
        return null;
      }
    } catch (IOException e) {
      return null;
    }
    if (!budget.take()) {
      return null;
    }
    MappedByteBuffer map;
    try {
      map = channel.map(FileChannel.MapMode.READ_ONLY, start, windowBytes);
    } catch (IOException | RuntimeException e) {
      budget.give(1);
      synchronized (this) {
        refused = true;
      }
      return null;
    }
    synchronized (this) {
      if (closed || (w < windows.length && windows[w] != null)) {  // closed, or another answer mapped it meanwhile
        Unmapper.unmap(map);
        budget.give(1);
        return closed ? null : windows[w].slice(at, length);
      }
      if (w >= windows.length) {
        windows = Arrays.copyOf(windows, w + 1);
      }
      windows[w] = map;
      return map.slice(at, length);
    }
  }

  /** Unmaps every window; only when no answer is being written from them (no reader holds the file). */
  synchronized void drop() {
    int count = 0;
    for (MappedByteBuffer window : windows) {
      if (window != null) {
        Unmapper.unmap(window);
        count++;
      }
    }
    windows = new MappedByteBuffer[0];
    budget.give(count);
  }

  /** {@link #drop}s the windows for good: the file is being closed. */
  synchronized void close() {
    closed = true;
    drop();
  }

  /** Windows mapped now (tests). */
  synchronized int mapped() {
    return (int) Arrays.stream(windows).filter(java.util.Objects::nonNull).count();
  }
}
