package io.fffs.protocol.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Buffers of the kept sizes are reused once released; other sizes and other buffers are not kept. */
class KeptBufferAllocatorTest {
  private static final int KIB = 1024;
  private final LongAdder allocated = new LongAdder();
  private final LongAdder reused = new LongAdder();
  private final KeptBufferAllocator allocator = new KeptBufferAllocator(64 * KIB, 1024 * KIB, 2048 * KIB,
      PooledByteBufAllocator.DEFAULT, allocated, reused);

  @BeforeEach
  void needsUnsafe() {
    // Without Unsafe every buffer comes from the other allocator (not kept); this JDK has it.
    assertThat(PlatformDependent.hasUnsafe()).isTrue();
  }

  @Test
  void aReleasedBufferIsHandedToTheNextRequestOfItsSize() {
    ByteBuf first = allocator.ioBuffer(1024 * KIB);
    long address = first.memoryAddress();
    first.writeLong(42);
    first.release();
    ByteBuf second = allocator.ioBuffer(1024 * KIB);
    assertThat(second.memoryAddress()).isEqualTo(address);
    assertThat(second.capacity()).isEqualTo(1024 * KIB);
    assertThat(second.readableBytes()).isZero();
    ByteBuf other = allocator.ioBuffer(64 * KIB);
    assertThat(other.memoryAddress()).isNotEqualTo(address);
    assertThat(allocated.sum()).isEqualTo(2);
    assertThat(reused.sum()).isEqualTo(1);
    second.release();
    other.release();
  }

  @Test
  void buffersOfOtherSizesAreNotKept() {
    for (int size : new int[] {512, 32 * KIB, 100 * KIB, 2048 * KIB}) {
      ByteBuf buffer = allocator.directBuffer(size);
      assertThat(buffer.capacity()).isEqualTo(size);
      buffer.release();
    }
    ByteBuf heap = allocator.heapBuffer(1024 * KIB);
    assertThat(heap.hasArray()).isTrue();
    heap.release();
    assertThat(allocated.sum()).isZero();
    assertThat(reused.sum()).isZero();
  }

  @Test
  void atMostTheRetainedBytesAreKept() {
    ByteBuf[] buffers = new ByteBuf[3];
    for (int i = 0; i < buffers.length; i++) {
      buffers[i] = allocator.ioBuffer(1024 * KIB);
    }
    for (ByteBuf buffer : buffers) {
      buffer.release(); // the third is over the 2 MiB kept and is freed
    }
    for (int i = 0; i < buffers.length; i++) {
      buffers[i] = allocator.ioBuffer(1024 * KIB);
    }
    assertThat(reused.sum()).isEqualTo(2);
    assertThat(allocated.sum()).isEqualTo(4);
    for (ByteBuf buffer : buffers) {
      buffer.release();
    }
  }

  @Test
  void aKeptBufferThatGrowsKeepsItsBytesAndGivesItsOldMemoryBack() {
    ByteBuf buffer = allocator.ioBuffer(64 * KIB, 1024 * KIB);
    for (int i = 0; i < 64 * KIB / 8; i++) {
      buffer.writeLong(i);
    }
    buffer.writeLong(-1); // grows to the next power of two: 128 KiB, from the allocator
    assertThat(buffer.capacity()).isEqualTo(128 * KIB);
    for (int i = 0; i < 64 * KIB / 8; i++) {
      assertThat(buffer.readLong()).isEqualTo(i);
    }
    assertThat(buffer.readLong()).isEqualTo(-1);
    ByteBuf next = allocator.ioBuffer(64 * KIB); // the memory the buffer grew out of
    assertThat(reused.sum()).isEqualTo(1);
    buffer.release();
    next.release();
  }

  @Test
  void afterCloseNothingIsKept() {
    ByteBuf kept = allocator.ioBuffer(256 * KIB);
    ByteBuf late = allocator.ioBuffer(256 * KIB);
    kept.release();
    allocator.close();
    late.release();
    allocator.ioBuffer(256 * KIB).release();
    assertThat(reused.sum()).isZero();
    assertThat(allocated.sum()).isEqualTo(3);
  }

  @Test
  void sizesMustBePowersOfTwo() {
    assertThatThrownBy(() -> new KeptBufferAllocator(60 * KIB, 1024 * KIB, 0, PooledByteBufAllocator.DEFAULT,
        allocated, reused)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("powers of two");
  }
}
