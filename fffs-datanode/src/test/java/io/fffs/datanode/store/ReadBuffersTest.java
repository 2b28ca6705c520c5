package io.fffs.datanode.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The buffers evicted pages are loaded into are reused, sized in quarters of a power of two, and kept within a
 * bound.
 */
class ReadBuffersTest {
  @Test
  void aGivenBackBufferIsTheNextOneOfItsSize() {
    ReadBuffers buffers = new ReadBuffers();
    ByteBuffer first = buffers.take(1_000_000);
    assertThat(first.capacity()).isEqualTo(1 << 20);
    assertThat(first.limit()).isEqualTo(1_000_000);
    assertThat(first.isDirect()).isTrue();
    buffers.give(first);
    assertThat(buffers.take(950_000)).isSameAs(first).satisfies(b -> assertThat(b.limit()).isEqualTo(950_000));
    assertThat(buffers.take(950_000)).isNotSameAs(first);  // taken: a new one
    assertThat(buffers.take(10).capacity()).isEqualTo(ReadBuffers.MIN_BYTES);
  }

  @Test
  void idleBuffersStayWithinTheirBound() {
    ReadBuffers buffers = new ReadBuffers();
    List<ByteBuffer> taken = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      taken.add(buffers.take(4 << 20));
    }
    taken.forEach(buffers::give);
    assertThat(buffers.idleBytes()).isLessThanOrEqualTo(ReadBuffers.MAX_IDLE_BYTES).isPositive();
    buffers.give(ByteBuffer.allocateDirect(64 << 20));  // beyond the largest kept size: left to the collector
    assertThat(buffers.idleBytes()).isLessThanOrEqualTo(ReadBuffers.MAX_IDLE_BYTES);
  }

  @Test
  void aReadOfOneMebibyteWithItsCrcTableTakesAQuarterMoreNotTwice() {
    assertThat(ReadBuffers.sizeFor((1 << 20) + 1024)).isEqualTo((1 << 20) + (256 << 10));
    assertThat(ReadBuffers.sizeFor(1 << 20)).isEqualTo(1 << 20);
    assertThat(ReadBuffers.sizeFor((4 << 20) + 4096)).isEqualTo(5 << 20);
    assertThat(ReadBuffers.sizeFor(ReadBuffers.MIN_BYTES + 1)).isEqualTo(ReadBuffers.MIN_BYTES + (16 << 10));
    ReadBuffers buffers = new ReadBuffers();
    ByteBuffer loaded = buffers.take((1 << 20) + 1024);
    buffers.give(loaded);
    assertThat(buffers.take((1 << 20) + 4096)).isSameAs(loaded);  // the same size class
  }
}
