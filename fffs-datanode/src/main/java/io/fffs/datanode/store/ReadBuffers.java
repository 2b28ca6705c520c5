package io.fffs.datanode.store;

import io.fffs.datanode.store.persist.PageRunLoader;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Direct buffers that reads of evicted pages load into, kept for the next read once a view is closed: a fresh
 * buffer costs a first touch of its memory (about 1 GB/s here), a kept one nothing. Sizes are multiples of a
 * quarter of a power of two from {@link #MIN_BYTES} (a 1 MiB read's pages with their CRC table, 1 MiB + 1 KiB, take
 * 1.25 MiB, not 2); at most {@link #IDLE_PER_SIZE} idle buffers of each size up to {@link #MAX_KEPT_BYTES}, and
 * {@link #MAX_IDLE_BYTES} in all, are kept (about the read requests in flight at once); the rest are left to the
 * collector. Thread-safe.
 */
final class ReadBuffers implements PageRunLoader.Buffers {
  static final int MIN_BYTES = 64 << 10;
  static final int MAX_KEPT_BYTES = 16 << 20;
  static final int IDLE_PER_SIZE = 16;
  static final long MAX_IDLE_BYTES = 32L << 20;

  /** Idle buffers by capacity; guarded by this. */
  private final Map<Integer, ArrayDeque<ByteBuffer>> idle = new HashMap<>();
  /** Bytes of the buffers kept idle; guarded by this. */
  private long idleBytes;

  /** A buffer of at least {@code bytes}, its position 0 and limit {@code bytes}. */
  @Override
  public ByteBuffer take(int bytes) {
    int size = sizeFor(bytes);
    ByteBuffer buffer = null;
    if (size <= MAX_KEPT_BYTES) {
      synchronized (this) {
        ArrayDeque<ByteBuffer> kept = idle.get(size);
        buffer = kept == null ? null : kept.poll();
        if (buffer != null) {
          idleBytes -= size;
        }
      }
    }
    if (buffer == null) {
      buffer = ByteBuffer.allocateDirect(size);
    }
    return buffer.clear().limit(bytes);
  }

  /** Gives back a buffer {@link #take} returned; nothing may use it afterwards. */
  @Override
  public void give(ByteBuffer buffer) {
    int size = buffer.capacity();
    if (size > MAX_KEPT_BYTES || size < MIN_BYTES || sizeFor(size) != size) {
      return;
    }
    synchronized (this) {
      ArrayDeque<ByteBuffer> kept = idle.computeIfAbsent(size, s -> new ArrayDeque<>());
      if (kept.size() < IDLE_PER_SIZE && idleBytes + size <= MAX_IDLE_BYTES) {
        kept.push(buffer);
        idleBytes += size;
      }
    }
  }

  /** Bytes kept idle now (tests). */
  synchronized long idleBytes() {
    return idleBytes;
  }

  /** {@code bytes} rounded up to a quarter of the power of two below it (at least {@link #MIN_BYTES}). */
  static int sizeFor(int bytes) {
    if (bytes <= MIN_BYTES) {
      return MIN_BYTES;
    }
    int step = Math.max(MIN_BYTES / 4, Integer.highestOneBit(bytes - 1) / 4);
    long size = ((long) bytes + step - 1) / step * step;
    return size <= Integer.MAX_VALUE ? (int) size : bytes;  // beyond: the exact size, never kept
  }
}
