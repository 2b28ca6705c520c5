package io.fffs.protocol.netty;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * An allocator for data connections that keeps released direct buffers of a power-of-two size from
 * {@code smallest} to {@code largest} and hands them to the next request of that size; every other buffer comes from
 * {@code others} (Netty's pooled allocator). The DataNode's data server uses it for its socket reads, the client
 * for the packets it writes.
 *
 * <p>Why: Netty's pooled allocator keeps no per-thread cache for buffers above 32 KiB. Those come from its 4 MiB
 * chunks, and a chunk whose buffers are all released again is given back — and a new one allocated, zeroed and
 * first-touched for the next buffers. A DataNode receiving 64 KiB writes in reads of up to 1 MiB spent about a third
 * of its event loop's CPU that way, and a client writing 4 MiB packets (a whole chunk each) more than half of its
 * writer thread's (async-profiler: {@code ByteBuffer.allocateDirect} under {@code PoolArena.newChunk}). Here a
 * buffer is allocated (and its pages touched, by the JDK's zeroing) once and then reused.
 *
 * <p>At most {@code retainBytes} of released buffers are kept; beyond that, and after {@link #close()}, a released
 * buffer is freed. Thread-safe: buffers are taken and released on any thread.
 */
public final class KeptBufferAllocator extends AbstractByteBufAllocator implements AutoCloseable {
  private final ByteBufAllocator others;
  private final int smallest;
  private final int largest;
  private final long retainBytes;
  private final LongAdder allocated;
  private final LongAdder reused;
  private final Queue<ByteBuffer>[] free;
  private final AtomicLong retained = new AtomicLong();
  private volatile boolean closed;

  /**
   * @param allocated counts the buffers of the kept sizes that had to be allocated
   * @param reused counts the requests served with a kept buffer
   */
  @SuppressWarnings("unchecked")
  public KeptBufferAllocator(int smallest, int largest, long retainBytes, ByteBufAllocator others,
      LongAdder allocated, LongAdder reused) {
    super(true);
    if (Integer.bitCount(smallest) != 1 || Integer.bitCount(largest) != 1 || smallest > largest) {
      throw new IllegalArgumentException("sizes must be powers of two, smallest ≤ largest: " + smallest + ", "
          + largest);
    }
    this.others = others;
    this.smallest = smallest;
    this.largest = largest;
    this.retainBytes = retainBytes;
    this.allocated = allocated;
    this.reused = reused;
    this.free = new Queue[Integer.numberOfTrailingZeros(largest) - Integer.numberOfTrailingZeros(smallest) + 1];
    for (int i = 0; i < free.length; i++) {
      free[i] = new ConcurrentLinkedQueue<>();
    }
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    if (sizeClass(initialCapacity) < 0 || !PlatformDependent.hasUnsafe()) {
      return others.directBuffer(initialCapacity, maxCapacity);
    }
    return new Kept(this, initialCapacity, maxCapacity);
  }

  @Override
  protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    return others.heapBuffer(initialCapacity, maxCapacity);
  }

  @Override
  public boolean isDirectBufferPooled() {
    return true;
  }

  /** Frees the kept buffers; buffers released from now on are freed at once. */
  @Override
  public void close() {
    closed = true;
    for (Queue<ByteBuffer> queue : free) {
      for (ByteBuffer buffer; (buffer = queue.poll()) != null; ) {
        retained.addAndGet(-buffer.capacity());
        PlatformDependent.freeDirectBuffer(buffer);
      }
    }
  }

  /** The index of {@code capacity}'s free list, or -1 if buffers of that size are not kept. */
  private int sizeClass(int capacity) {
    if (capacity < smallest || capacity > largest || Integer.bitCount(capacity) != 1) {
      return -1;
    }
    return Integer.numberOfTrailingZeros(capacity) - Integer.numberOfTrailingZeros(smallest);
  }

  private ByteBuffer take(int capacity) {
    int sizeClass = sizeClass(capacity);
    ByteBuffer buffer = sizeClass < 0 ? null : free[sizeClass].poll();
    if (buffer == null) {
      allocated.increment();
      return ByteBuffer.allocateDirect(capacity); // zeroed: its pages are resident before first use
    }
    retained.addAndGet(-capacity);
    reused.increment();
    return buffer.clear();
  }

  /** Keeps a released buffer for reuse; false if it is not kept (the caller frees it). */
  private boolean keep(ByteBuffer buffer) {
    int sizeClass = sizeClass(buffer.capacity());
    if (sizeClass < 0 || closed) {
      return false;
    }
    if (retained.addAndGet(buffer.capacity()) > retainBytes) {
      retained.addAndGet(-buffer.capacity());
      return false;
    }
    // A buffer kept while close() runs is not freed here but by its cleaner, once unreachable.
    free[sizeClass].add(buffer);
    return true;
  }

  /** A direct buffer whose memory comes from, and goes back to, the allocator's free lists. */
  private static final class Kept extends UnpooledUnsafeDirectByteBuf {
    Kept(KeptBufferAllocator alloc, int initialCapacity, int maxCapacity) {
      super(alloc, initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuffer allocateDirect(int capacity) {
      return ((KeptBufferAllocator) alloc()).take(capacity);
    }

    @Override
    protected void freeDirect(ByteBuffer buffer) {
      if (!((KeptBufferAllocator) alloc()).keep(buffer)) {
        super.freeDirect(buffer);
      }
    }
  }
}
