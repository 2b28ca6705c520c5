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
 * slot was reused while it was copied); segment extents from the pages read ahead for them
 * ({@link ShortCircuitPreload}), else by positional reads of whole pages into a scratch buffer (around the page cache
 * with {@code directIo} when it does not hold them), each page checked against its stored CRC32C before its bytes
 * are used. A failed check, or a file that cannot be read, is {@link ShortCircuitStale} and leaves the caller's
 * buffer position where it was.
 */
final class ShortCircuitCopy {
  private final ShortCircuitFiles files;
  private final ShortCircuitStats stats;
  private final ByteBuffer scratch;
  private final ByteBuffer crcs;
  private final CRC32C crc = new CRC32C();
  private final boolean directIo;

  ShortCircuitCopy(ShortCircuitFiles files, ShortCircuitStats stats, int scratchBytes, boolean directIo) {
    this.files = files;
    this.stats = stats;
    this.directIo = directIo;
    // Room for a batch's pages and the parts of the aligned blocks around them an O_DIRECT read takes too.
    this.scratch = ShortCircuitPreload.alignedBuffer(scratchBytes + 2 * ShortCircuitPreload.ALIGNMENT);
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
   * Copies the answer's bytes from {@code skip} on into {@code dst}, as many as fit, taking segment pages from
   * {@code preload} where it holds them (it may be null); returns how many.
   *
   * @throws ShortCircuitStale if what was copied cannot be trusted (nothing of it is left in {@code dst})
   */
  int copy(LocalReadResponseProto answer, ShortCircuitPreload preload, long skip, ByteBuffer dst)
      throws ShortCircuitStale {
    int start = dst.position();
    try {
      return copyChecked(answer, preload, skip, dst);
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

  private int copyChecked(LocalReadResponseProto answer, ShortCircuitPreload preload, long skip, ByteBuffer dst)
      throws IOException {
    Runnable hook = stats.beforeCopy;
    if (hook != null) {
      hook.run();
    }
    long lowestSeq = Long.MAX_VALUE;
    MappedByteBuffer epoch = null;
    int copied = 0;
    int fromSegments = 0;
    long at = 0;
    for (int index = 0; index < answer.getExtentsCount(); index++) {
      LocalExtentProto extent = answer.getExtents(index);
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
        copyPages(extent, preload == null ? null : preload.pages(index), from, take, dst);
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

  /**
   * Bytes [from, from + take) of a segment extent: its whole pages taken from {@code preloaded} (the extent's pages
   * read ahead, or null) or read, checked, and the range copied.
   */
  private void copyPages(LocalExtentProto extent, ByteBuffer preloaded, int from, int take, ByteBuffer dst)
      throws IOException {
    int pageSize = extent.getPageSize();
    int batch = Math.max(1, (scratch.capacity() - 2 * ShortCircuitPreload.ALIGNMENT) / pageSize);
    long rangeStart = (long) extent.getSkip() + from;  // from the extent's first page
    long rangeEnd = rangeStart + take;
    int firstPage = (int) (rangeStart / pageSize);
    int endPage = (int) ((rangeEnd + pageSize - 1) / pageSize);
    String path = extent.getPath();
    FileChannel channel;
    FileChannel direct = null;
    try {
      channel = files.segment(path);
      ShortCircuitFiles.DirectFile file = preloaded == null && directIo ? files.directSegment(path) : null;
      long first = extent.getPosition() + (long) firstPage * pageSize;
      if (file != null && !file.cached(channel, first, (long) (endPage - firstPage) * pageSize)) {
        direct = file.channel();
      }
    } catch (IOException e) {
      throw new ShortCircuitStale("cannot open segment file " + path + ": " + e.getMessage(), e);
    }
    for (int page = firstPage; page < endPage; page += batch) {
      int pages = Math.min(batch, endPage - page);
      long filePosition = extent.getPosition() + (long) page * pageSize;
      ByteBuffer src = scratch;
      int srcAt = 0;
      ByteBuffer stored = crcs.clear().limit(4 * pages);
      try {
        if (preloaded != null) {
          src = preloaded;
          srcAt = page * pageSize;
        } else if (direct != null && (srcAt = readDirect(direct, path, filePosition, pages * pageSize)) >= 0) {
          src = scratch;
        } else {
          direct = null;  // refused: this and the later batches through the page cache
          srcAt = 0;
          readFully(channel, scratch.clear().limit(pages * pageSize), filePosition);
        }
        readFully(channel, stored, extent.getCrcsAt() + 4L * page);
      } catch (IOException e) {
        files.forgetSegment(path);
        throw new ShortCircuitStale("cannot read segment file " + path + ": " + e.getMessage(), e);
      }
      for (int j = 0; j < pages; j++) {
        crc.reset();
        crc.update(src.limit(srcAt + (j + 1) * pageSize).position(srcAt + j * pageSize));
        if ((int) crc.getValue() != stored.getInt(4 * j)) {
          throw new ShortCircuitStale("page " + (page + j) + " of the record at " + extent.getPosition() + " in "
              + path + " fails its CRC32C");
        }
      }
      long batchStart = (long) page * pageSize;
      int lo = (int) (Math.max(rangeStart, batchStart) - batchStart);
      int hi = (int) (Math.min(rangeEnd, batchStart + (long) pages * pageSize) - batchStart);
      dst.put(dst.position(), src, srcAt + lo, hi - lo);
      dst.position(dst.position() + hi - lo);
    }
  }

  /**
   * Pages read around the page cache into the scratch buffer; returns where the first is in it, or -1 when the file
   * system refused (its files are read through the page cache from now on).
   */
  private int readDirect(FileChannel direct, String path, long position, int length) throws IOException {
    try {
      int at = ShortCircuitPreload.readDirect(direct, scratch.clear(), position, length);
      stats.directBytes.add(length);
      return at;
    } catch (IOException e) {
      if (!ShortCircuitPreload.refusal(e)) {
        throw e;
      }
      files.refuseDirect(path);
      return -1;
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
