package io.fffs.client.data;

import io.fffs.common.proto.DataTransferProtos.LocalExtentProto;
import io.fffs.common.proto.DataTransferProtos.LocalReadResponseProto;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The segment pages of one located piece, read around the page cache (O_DIRECT) into a buffer of the client's before
 * its reader copies them ({@code fffs.client.read.shortcircuit.direct-io}). Extents in the arena, extents whose pages
 * the page cache holds, files whose file system refuses O_DIRECT and extents that no longer fit the buffer are left
 * for the copy to read itself. Nothing here is trusted: the copy checks every page against its stored CRC32C.
 */
final class ShortCircuitPreload {
  /** What O_DIRECT reads start and end on: file offsets, lengths and buffer addresses. */
  static final int ALIGNMENT = 4096;

  private final ByteBuffer buffer;
  /** Per extent of the answer: where its first page is in {@link #buffer}, or -1 when the copy reads it. */
  private final int[] firstPageAt;
  private final int[] bytes;
  private final Consumer<ByteBuffer> release;
  private final AtomicBoolean released = new AtomicBoolean();

  private ShortCircuitPreload(ByteBuffer buffer, int[] firstPageAt, int[] bytes, Consumer<ByteBuffer> release) {
    this.buffer = buffer;
    this.firstPageAt = firstPageAt;
    this.bytes = bytes;
    this.release = release;
  }

  /** A direct buffer of {@code capacity} bytes whose address is a multiple of {@link #ALIGNMENT}. */
  static ByteBuffer alignedBuffer(int capacity) {
    // An aligned slice ends on a multiple too: room for the whole last block and the shift of the start.
    int blocks = (capacity + ALIGNMENT - 1) & -ALIGNMENT;
    return ByteBuffer.allocateDirect(blocks + ALIGNMENT).alignedSlice(ALIGNMENT).limit(capacity).slice();
  }

  /**
   * Reads the segment pages of {@code answer} that the page cache does not hold into {@code buffer} (aligned, from
   * {@link #alignedBuffer}), which goes back through {@code release} once the piece is copied.
   */
  static ShortCircuitPreload read(LocalReadResponseProto answer, ShortCircuitFiles files, ShortCircuitStats stats,
      ByteBuffer buffer, Consumer<ByteBuffer> release) {
    int extents = answer.getExtentsCount();
    int[] at = new int[extents];
    int[] lengths = new int[extents];
    Arrays.fill(at, -1);
    buffer.clear();
    for (int i = 0; i < extents; i++) {
      LocalExtentProto extent = answer.getExtents(i);
      if (extent.hasFirstSeq()) {
        continue;
      }
      long length = (long) extent.getPages() * extent.getPageSize();
      if (length + 2L * ALIGNMENT > buffer.remaining()) {
        break;
      }
      int mark = buffer.position();
      ShortCircuitFiles.DirectFile direct = files.directSegment(extent.getPath());
      try {
        if (direct == null || direct.cached(files.segment(extent.getPath()), extent.getPosition(), length)) {
          continue;
        }
        at[i] = readDirect(direct.channel(), buffer, extent.getPosition(), (int) length);
        lengths[i] = (int) length;
        stats.directBytes.add(length);
        stats.preloadedBytes.add(length);
      } catch (IOException e) {
        buffer.limit(buffer.capacity()).position(mark);
        if (refusal(e)) {
          files.refuseDirect(extent.getPath());
        }
        // Anything else (a file the cleaner removed, say) is the copy's to find and report.
      }
    }
    return new ShortCircuitPreload(buffer, at, lengths, release);
  }

  /**
   * Whether {@code failure} of an O_DIRECT open or read is the file system refusing it (EINVAL, or the JDK finding an
   * offset or length off its block size), not a failure of this file.
   */
  static boolean refusal(IOException failure) {
    String message = String.valueOf(failure.getMessage());
    return message.contains("Invalid argument") || message.contains("multiple of the block size");
  }

  /**
   * Reads bytes [from, from + length) of {@code channel}'s file (opened with O_DIRECT) into {@code dst} from its
   * position (a multiple of {@link #ALIGNMENT} in an aligned buffer): the whole aligned blocks that hold them. Returns
   * where byte {@code from} is in {@code dst}; dst's position ends after the last block, its limit at its capacity.
   *
   * @throws EOFException when the file ends before {@code from + length}
   */
  static int readDirect(FileChannel channel, ByteBuffer dst, long from, int length) throws IOException {
    long start = from & -ALIGNMENT;
    long end = from + length;
    int blocks = (int) (((end + ALIGNMENT - 1) & -ALIGNMENT) - start);
    int base = dst.position();
    dst.limit(base + blocks);
    try {
      long at = start;
      while (at < end) {
        int n = channel.read(dst, at);
        at += Math.max(n, 0);
        // A short read ends the file (the next read would start unaligned).
        if (n <= 0 || at < end && (at & (ALIGNMENT - 1)) != 0) {
          throw new EOFException("the file ends before byte " + end);
        }
      }
    } finally {
      dst.limit(dst.capacity()).position(base + blocks);
    }
    return base + (int) (from - start);
  }

  /** Extent {@code index}'s pages, its first at position 0, or null when the copy is to read them itself. */
  ByteBuffer pages(int index) {
    if (index >= firstPageAt.length || firstPageAt[index] < 0) {
      return null;
    }
    return buffer.slice(firstPageAt[index], bytes[index]);
  }

  /** Gives the buffer back (once; the pages must not be used afterwards). */
  void release() {
    if (released.compareAndSet(false, true)) {
      release.accept(buffer);
    }
  }
}
