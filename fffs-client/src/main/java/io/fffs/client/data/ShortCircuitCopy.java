package io.fffs.client.data;

import io.fffs.common.proto.DataTransferProtos.LocalExtentProto;
import io.fffs.common.proto.DataTransferProtos.LocalReadResponseProto;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;

/**
 * Copies the bytes a LOCAL_READ answer locates into the caller's buffer: arena extents straight from the read-only
 * mapping, then one check of the arena's eviction frontier (none of the copied pages may have been evicted, so no
 * slot was reused while it was copied); segment extents by positional reads of whole pages into a scratch buffer,
 * each page checked against its stored CRC32C before its bytes are used. A failed check, or a file that cannot be
 * read, is {@link ShortCircuitStale} and leaves the caller's buffer position where it was.
 */
final class ShortCircuitCopy {
  private final ShortCircuitFiles files;
  private final ShortCircuitStats stats;
  private final ByteBuffer scratch;
  private final ByteBuffer crcs;
  private final CRC32C crc = new CRC32C();

  ShortCircuitCopy(ShortCircuitFiles files, ShortCircuitStats stats, int scratchBytes) {
    this.files = files;
    this.stats = stats;
    this.scratch = ByteBuffer.allocateDirect(scratchBytes);
    this.crcs = ByteBuffer.allocateDirect(4 * Math.max(1, scratchBytes / 512)).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** Bytes {@code answer} locates. */
  static long length(LocalReadResponseProto answer) {
    long total = 0;
    for (LocalExtentProto extent : answer.getExtentsList()) {
      total += extent.getLength();
    }
    return total;
  }

  /**
   * Copies the answer's bytes from {@code skip} on into {@code dst}, as many as fit; returns how many.
   *
   * @throws ShortCircuitStale if what was copied cannot be trusted (nothing of it is left in {@code dst})
   */
  int copy(LocalReadResponseProto answer, long skip, ByteBuffer dst) throws ShortCircuitStale {
    int start = dst.position();
    try {
      return copyChecked(answer, skip, dst);
    } catch (ShortCircuitStale e) {
      dst.position(start);
      stats.stale.increment();
      throw e;
    } catch (IOException | RuntimeException e) {
      dst.position(start);
      stats.stale.increment();
      throw new ShortCircuitStale("cannot copy from the DataNode's files: " + e, e);
    }
  }

  private int copyChecked(LocalReadResponseProto answer, long skip, ByteBuffer dst) throws IOException {
    Runnable hook = stats.beforeCopy;
    if (hook != null) {
      hook.run();
    }
    long lowestSeq = Long.MAX_VALUE;
    MappedByteBuffer epoch = null;
    int copied = 0;
    int fromSegments = 0;
    long at = 0;
    for (LocalExtentProto extent : answer.getExtentsList()) {
      if (!dst.hasRemaining()) {
        break;
      }
      long extentEnd = at + extent.getLength();
      if (extentEnd <= skip) {
        at = extentEnd;
        continue;
      }
      int from = (int) Math.max(0, skip - at);
      int take = (int) Math.min(extent.getLength() - from, dst.remaining());
      if (extent.hasFirstSeq()) {
        if (epoch == null) {
          // Before any arena copy: a restarted DataNode's new files replace the mappings of the old ones first.
          epoch = files.epoch(answer.getArenaEpochFile(), answer.getArenaInstance());
        }
        MappedByteBuffer map = files.arenaFile(extent.getPath());
        dst.put(dst.position(), map, (int) (extent.getPosition() + from), take);
        dst.position(dst.position() + take);
        lowestSeq = Math.min(lowestSeq, extent.getFirstSeq());
      } else {
        copyPages(extent, from, take, dst);
        fromSegments += take;
      }
      copied += take;
      at = extentEnd;
    }
    if (epoch != null) {
      long frontier = ShortCircuitFiles.frontier(epoch);
      if (frontier > lowestSeq) {
        throw new ShortCircuitStale("arena pages from " + lowestSeq + " were evicted (frontier " + frontier
            + ") while they were copied");
      }
    }
    stats.bytes.add(copied);
    stats.segmentBytes.add(fromSegments);
    return copied;
  }

  /** Bytes [from, from + take) of a segment extent: its whole pages read, checked, and the range copied. */
  private void copyPages(LocalExtentProto extent, int from, int take, ByteBuffer dst) throws IOException {
    int pageSize = extent.getPageSize();
    int batch = Math.max(1, scratch.capacity() / pageSize);
    long rangeStart = (long) extent.getSkip() + from;  // from the extent's first page
    long rangeEnd = rangeStart + take;
    int firstPage = (int) (rangeStart / pageSize);
    int endPage = (int) ((rangeEnd + pageSize - 1) / pageSize);
    FileChannel channel;
    try {
      channel = files.segment(extent.getPath());
    } catch (IOException e) {
      throw new ShortCircuitStale("cannot open segment file " + extent.getPath() + ": " + e.getMessage(), e);
    }
    for (int page = firstPage; page < endPage; page += batch) {
      int pages = Math.min(batch, endPage - page);
      ByteBuffer bytes = scratch.clear().limit(pages * pageSize);
      ByteBuffer stored = crcs.clear().limit(4 * pages);
      try {
        readFully(channel, bytes, extent.getPosition() + (long) page * pageSize);
        readFully(channel, stored, extent.getCrcsAt() + 4L * page);
      } catch (IOException e) {
        files.forgetSegment(extent.getPath());
        throw new ShortCircuitStale("cannot read segment file " + extent.getPath() + ": " + e.getMessage(), e);
      }
      for (int j = 0; j < pages; j++) {
        crc.reset();
        crc.update(bytes.limit((j + 1) * pageSize).position(j * pageSize));
        if ((int) crc.getValue() != stored.getInt(4 * j)) {
          throw new ShortCircuitStale("page " + (page + j) + " of the record at " + extent.getPosition() + " in "
              + extent.getPath() + " fails its CRC32C");
        }
      }
      long batchStart = (long) page * pageSize;
      int lo = (int) (Math.max(rangeStart, batchStart) - batchStart);
      int hi = (int) (Math.min(rangeEnd, batchStart + (long) pages * pageSize) - batchStart);
      dst.put(dst.position(), scratch, lo, hi - lo);
      dst.position(dst.position() + hi - lo);
    }
  }

  private static void readFully(FileChannel channel, ByteBuffer dst, long position) throws IOException {
    long at = position;
    while (dst.hasRemaining()) {
      int n = channel.read(dst, at);
      if (n < 0) {
        throw new IOException("the file ends at " + at);
      }
      at += n;
    }
  }
}
