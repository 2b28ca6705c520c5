package io.fffs.client;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Copies of the writes handed to one block writer that were not acknowledged yet, oldest first, so that they can be
 * sent again, once: through a writer with a fresh token after a single DataNode refused the writer's token (a
 * replicated writer renews in place: {@link io.fffs.client.data.BlockWriter#renewsInPlace}), or to the follower
 * promoted when a replicated writer's primary failed.
 *
 * <p>A copy is made into direct memory, which a TCP transport sends from as it is
 * ({@link io.fffs.protocol.transport.DataChannel#wrap}): the copy kept for a resend is the only copy the client
 * makes of a write when its calls are a packet or more and the pipeline is a chain or one DataNode (smaller calls
 * are gathered in the stream's array first; by fan-out each follower is sent a copy of its own). Acknowledged writes
 * are dropped as new ones come, so it holds about a write window; their buffers take the next copies that fit (no
 * allocation and zeroing per packet). A buffer is reused only once the writer's acknowledged bytes cover its write,
 * and an acknowledged write was received by its DataNode, so no transport still reads it then; once a writer is
 * closed or replaced, its acknowledged buffers go to a JVM-wide pool ({@link #release}). A full packet gathered in
 * the output stream's own array is kept without a copy ({@link #handOver}): the stream goes on in a spare array,
 * from spares the copies of all of the stream's blocks share, so a stream holds about a window of packet arrays
 * however many blocks it writes. Not thread-safe.
 */
final class UnackedWrites {
  /** {@code start}: where the write begins in the writer's bytes, counted in the order they were sent. */
  private record Write(long offset, ByteBuffer bytes, long start) {}

  private static final int SPARE_BUFFERS = 64;
  /**
   * Direct buffers given back by the writes of blocks done ({@link #release}), for the next block's copies: fresh
   * direct memory costs a page fault and zeroing per page. Shared by the streams of this JVM, at most
   * {@link #SHARED_BYTES} in all (the rest is left to the garbage collector).
   */
  private static final BlockingDeque<ByteBuffer> SHARED = new LinkedBlockingDeque<>();
  private static final long SHARED_BYTES = 32L << 20;
  private static final AtomicLong sharedBytes = new AtomicLong();

  private final ArrayDeque<Write> writes = new ArrayDeque<>();
  /** Acknowledged handed-over packet arrays, for the stream to gather its next packets in. */
  private final ArrayDeque<byte[]> spare;
  /** Direct buffers of acknowledged copies. */
  private final ArrayDeque<ByteBuffer> spareDirect = new ArrayDeque<>();
  private long sent;

  /** Copies with spare packet arrays of their own. */
  UnackedWrites() {
    this(new ArrayDeque<>());
  }

  /**
   * Copies whose acknowledged packet arrays go to {@code spare}, and whose {@link #spare} takes from it: one deque
   * for all the blocks of a stream.
   */
  UnackedWrites(ArrayDeque<byte[]> spare) {
    this.spare = spare;
  }

  /**
   * Keeps a copy of {@code count} bytes of {@code bytes} written at {@code offset} of the block; returns the copy
   * (direct memory), unchanged until {@code acknowledged} counts it (a writer may keep it, or send from it, by
   * reference).
   */
  ByteBuffer add(long offset, byte[] bytes, int from, int count, long acknowledged) {
    return add(offset, ByteBuffer.wrap(bytes, from, count), acknowledged);
  }

  /** Keeps a copy of {@code write}, which is being sent again; returns the copy, as {@link #add} does. */
  ByteBuffer add(Remainder write, long acknowledged) {
    return add(write.offset(), write.bytes(), acknowledged);
  }

  private ByteBuffer add(long offset, ByteBuffer bytes, long acknowledged) {
    drop(acknowledged);
    int count = bytes.remaining();
    ByteBuffer copy = spareDirect(count);
    copy.put(0, bytes, bytes.position(), count);
    keep(offset, copy);
    return copy.duplicate();
  }

  /**
   * Keeps {@code packet} itself, all of it written at {@code offset} of the block, instead of a copy: the caller
   * hands it over and writes into another ({@link #spare}) from now on.
   */
  ByteBuffer handOver(long offset, byte[] packet, long acknowledged) {
    drop(acknowledged);
    ByteBuffer kept = ByteBuffer.wrap(packet);
    keep(offset, kept);
    return kept.duplicate();
  }

  /** An array of {@code size} bytes no kept write uses: a handed-over packet acknowledged since, or a new one. */
  byte[] spare(int size) {
    return spare.isEmpty() || spare.peek().length != size ? new byte[size] : spare.poll();
  }

  /** Direct memory of exactly {@code size} bytes no kept write uses. */
  private ByteBuffer spareDirect(int size) {
    ByteBuffer buffer = spareDirect.poll();
    if (buffer == null) {
      buffer = SHARED.pollFirst();
      if (buffer != null) {
        sharedBytes.addAndGet(-buffer.capacity());
      }
    }
    if (buffer == null || buffer.capacity() < size) {
      buffer = ByteBuffer.allocateDirect(size);
    }
    return buffer.clear().limit(size);
  }

  private void keep(long offset, ByteBuffer bytes) {
    writes.add(new Write(offset, bytes, sent));
    sent += bytes.remaining();
  }

  /** The writes, or their tails, past the first {@code acknowledged} bytes, in order: offset in the block and bytes. */
  List<Remainder> after(long acknowledged) {
    drop(acknowledged);
    List<Remainder> rest = new ArrayList<>();
    for (Write write : writes) {
      int skip = (int) Math.max(0, acknowledged - write.start());
      ByteBuffer bytes = write.bytes().duplicate();
      rest.add(new Remainder(write.offset() + skip, bytes.position(bytes.position() + skip).slice()));
    }
    return rest;
  }

  /**
   * The writer's acknowledged bytes are {@code acknowledged} and it may never write again (its block is done, or
   * nothing is written to it for now, or it was closed or replaced): the direct buffers of the writes those bytes
   * cover, and the spare ones, go to the JVM-wide pool for the next copies, each once (it leaves these copies as it
   * enters the pool). Writes not acknowledged stay kept, unchanged: a transport may still send from them, so once
   * these copies are discarded they are left to the garbage collector.
   */
  void release(long acknowledged) {
    drop(acknowledged);
    for (ByteBuffer buffer = spareDirect.poll(); buffer != null; buffer = spareDirect.poll()) {
      if (sharedBytes.addAndGet(buffer.capacity()) <= SHARED_BYTES) {
        SHARED.offerFirst(buffer);
      } else {
        sharedBytes.addAndGet(-buffer.capacity());
      }
    }
  }

  /** The bytes of direct memory in the JVM-wide pool. */
  static long pooledBytes() {
    return sharedBytes.get();
  }

  /** A write to send again: at {@code offset} of the block. */
  record Remainder(long offset, ByteBuffer bytes) {}

  private void drop(long acknowledged) {
    while (!writes.isEmpty() && writes.peek().start() + writes.peek().bytes().remaining() <= acknowledged) {
      ByteBuffer done = writes.poll().bytes();
      if (done.hasArray()) {
        if (spare.size() < SPARE_BUFFERS) {
          spare.push(done.array());
        }
      } else if (spareDirect.size() < SPARE_BUFFERS) {
        spareDirect.push(done);
      }
    }
  }
}
