package io.fffs.client;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Copies of the writes handed to one block writer that its DataNode has not acknowledged yet, oldest first, so that
 * after the DataNode refuses the writer's token they can be sent again, once, through a writer with a fresh token.
 * Acknowledged writes are dropped as new ones come, so it holds about a write window. Not thread-safe.
 */
final class UnackedWrites {
  /** {@code start}: where the write begins in the writer's bytes, counted in the order they were sent. */
  private record Write(long offset, byte[] bytes, long start) {}

  private final ArrayDeque<Write> writes = new ArrayDeque<>();
  private long sent;

  /** Keeps a copy of {@code count} bytes of {@code bytes} written at {@code offset} of the block. */
  void add(long offset, byte[] bytes, int from, int count, long acknowledged) {
    drop(acknowledged);
    writes.add(new Write(offset, Arrays.copyOfRange(bytes, from, from + count), sent));
    sent += count;
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
      writes.poll();
    }
  }
}
