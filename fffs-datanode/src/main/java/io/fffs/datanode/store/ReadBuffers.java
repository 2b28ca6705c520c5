package io.fffs.datanode.store;

import io.fffs.datanode.store.persist.PageRunLoader;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Direct buffers that reads of evicted pages load into, kept for the next read once a view is closed: a fresh
 * buffer costs a first touch of its memory (about 1 GB/s here), a kept one a memory copy. Sizes are powers of two
 * from {@link #MIN_BYTES}; at most {@link #IDLE_PER_SIZE} idle buffers of each size up to {@link #MAX_KEPT_BYTES}
 * are kept (the read requests in flight at once), larger ones are left to the collector. Thread-safe.
 */
final class ReadBuffers implements PageRunLoader.Buffers {
  static final int MIN_BYTES = 64 << 10;
  static final int MAX_KEPT_BYTES = 16 << 20;
  static final int IDLE_PER_SIZE = 8;

  @SuppressWarnings("unchecked")
  private final ArrayDeque<ByteBuffer>[] idle = new ArrayDeque[Integer.numberOfTrailingZeros(MAX_KEPT_BYTES) + 1];

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
      ArrayDeque<ByteBuffer> kept = idle[Integer.numberOfTrailingZeros(size)];
      synchronized (kept) {
        buffer = kept.poll();
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
    ArrayDeque<ByteBuffer> kept = idle[Integer.numberOfTrailingZeros(size)];
    synchronized (kept) {
      if (kept.size() < IDLE_PER_SIZE) {
        kept.push(buffer);
      }
    }
  }

  static int sizeFor(int bytes) {
    if (bytes <= MIN_BYTES) {
      return MIN_BYTES;
    }
    int size = Integer.highestOneBit(bytes - 1) << 1;
    return size > 0 ? size : bytes;  // beyond 1 GiB: the exact size, never kept
  }
}
