package io.fffs.datanode.store;

import io.fffs.datanode.store.persist.PageRunLoader;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Direct buffers that reads of evicted pages load into, kept for the next read once a view is closed: a fresh
 * buffer costs a first touch of its memory (about 1 GB/s here), a kept one nothing. Sizes are powers of two from
 * {@link #MIN_BYTES}; at most {@link #IDLE_PER_SIZE} idle buffers of each size up to {@link #MAX_KEPT_BYTES}, and
 * {@link #MAX_IDLE_BYTES} in all, are kept (about the read requests in flight at once); the rest are left to the
 * collector. Thread-safe.
 */
final class ReadBuffers implements PageRunLoader.Buffers {
  static final int MIN_BYTES = 64 << 10;
  static final int MAX_KEPT_BYTES = 16 << 20;
  static final int IDLE_PER_SIZE = 8;
  static final long MAX_IDLE_BYTES = 32L << 20;

  @SuppressWarnings("unchecked")
  private final ArrayDeque<ByteBuffer>[] idle = new ArrayDeque[Integer.numberOfTrailingZeros(MAX_KEPT_BYTES) + 1];
  /** Bytes of the buffers kept idle; guarded by this. */
  private long idleBytes;

  ReadBuffers() {
    for (int i = 0; i < idle.length; i++) {
      idle[i] = new ArrayDeque<>();
    }
  }

  /** A buffer of at least {@code bytes}, its position 0 and limit {@code bytes}. */
  @Override
  public ByteBuffer take(int bytes) {
    int size = sizeFor(bytes);
    ByteBuffer buffer = null;
    if (size <= MAX_KEPT_BYTES) {
      synchronized (this) {
        buffer = idle[Integer.numberOfTrailingZeros(size)].poll();
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
    if (size > MAX_KEPT_BYTES || Integer.bitCount(size) != 1 || size < MIN_BYTES) {
      return;
    }
    synchronized (this) {
      ArrayDeque<ByteBuffer> kept = idle[Integer.numberOfTrailingZeros(size)];
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

  static int sizeFor(int bytes) {
    if (bytes <= MIN_BYTES) {
      return MIN_BYTES;
    }
    int size = Integer.highestOneBit(bytes - 1) << 1;
    return size > 0 ? size : bytes;  // beyond 1 GiB: the exact size, never kept
  }
}
