package io.fffs.client;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Copies of the writes handed to one block writer that were not acknowledged yet, oldest first, so that they can be
 * sent again, once: through a writer with a fresh token after a single DataNode refused the writer's token (a
 * replicated writer renews in place: {@link io.fffs.client.data.BlockWriter#renewsInPlace}), or to the follower
 * promoted when a replicated writer's primary failed.
 * Acknowledged writes are dropped as new ones come, so it holds about a write window; their arrays take the next
 * copies of the same size (no allocation and zeroing per packet). A full packet gathered in the output stream's own
 * buffer is kept without a copy ({@link #handOver}): the stream goes on in a spare array. Not thread-safe.
 */
final class UnackedWrites {
  /** {@code start}: where the write begins in the writer's bytes, counted in the order they were sent. */
  private record Write(long offset, byte[] bytes, long start) {}

  private static final int SPARE_ARRAYS = 64;

  private final ArrayDeque<Write> writes = new ArrayDeque<>();
  private final ArrayDeque<byte[]> spare = new ArrayDeque<>();
  private long sent;

  /**
   * Keeps a copy of {@code count} bytes of {@code bytes} written at {@code offset} of the block; returns the copy,
   * unchanged until {@code acknowledged} counts it (a writer may keep it by reference).
   */
  ByteBuffer add(long offset, byte[] bytes, int from, int count, long acknowledged) {
    drop(acknowledged);
    byte[] copy = spare(count);
    System.arraycopy(bytes, from, copy, 0, count);
    keep(offset, copy);
    return ByteBuffer.wrap(copy);
  }

  /** Keeps a copy of {@code write}, which is being sent again; returns the copy, as {@link #add} does. */
  ByteBuffer add(Remainder write, long acknowledged) {
    ByteBuffer bytes = write.bytes();
    return add(write.offset(), bytes.array(), bytes.position(), bytes.remaining(), acknowledged);
  }

  /**
   * Keeps {@code packet} itself, all of it written at {@code offset} of the block, instead of a copy: the caller
   * hands it over and writes into another ({@link #spare}) from now on.
   */
  ByteBuffer handOver(long offset, byte[] packet, long acknowledged) {
    drop(acknowledged);
    keep(offset, packet);
    return ByteBuffer.wrap(packet);
  }

  /** An array of {@code size} bytes no kept write uses: an acknowledged write's, or a new one. */
  byte[] spare(int size) {
    return spare.isEmpty() || spare.peek().length != size ? new byte[size] : spare.poll();
  }

  private void keep(long offset, byte[] bytes) {
    writes.add(new Write(offset, bytes, sent));
    sent += bytes.length;
  }

  /** The writes, or their tails, past the first {@code acknowledged} bytes, in order: offset in the block and bytes. */
  List<Remainder> after(long acknowledged) {
    drop(acknowledged);
    List<Remainder> rest = new ArrayList<>();
    for (Write write : writes) {
      int skip = (int) Math.max(0, acknowledged - write.start());
      rest.add(new Remainder(write.offset() + skip, ByteBuffer.wrap(write.bytes(), skip,
          write.bytes().length - skip)));
    }
    return rest;
  }

  /** A write to send again: at {@code offset} of the block. */
  record Remainder(long offset, ByteBuffer bytes) {}

  private void drop(long acknowledged) {
    while (!writes.isEmpty() && writes.peek().start() + writes.peek().bytes().length <= acknowledged) {
      byte[] done = writes.poll().bytes();
      if (spare.size() < SPARE_ARRAYS) {
        spare.push(done);
      }
    }
  }
}
