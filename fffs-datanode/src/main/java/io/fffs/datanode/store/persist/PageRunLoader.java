package io.fffs.datanode.store.persist;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.io.PageCache;
import io.fffs.datanode.store.StoreStats;
import io.fffs.protocol.frame.ChunkChecksums;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Loads the evicted pages of one read from the segment files with few large reads and checks each page against the
 * CRC32C stored in its entry record ({@link SegmentFormat}). A read asks for {@link Piece}s — consecutive pages of
 * one entry record — in the order it returns them; each piece's pages and its stretch of the record's CRC table are
 * one byte range of the file, and ranges that follow each other in a file with at most {@link #MAX_GAP} bytes
 * between them (the record, padding) are read with one positional read into one buffer. A block written
 * sequentially is thus read back with one read per few MiB instead of two per page, and sequential positional reads
 * of a buffered file let the kernel's read-ahead and page cache help. The caller gets the verified bytes in memory
 * and sends those, so bytes that were not checked are never served; the pass that checks a page also yields the
 * CRC32Cs of its 512-byte chunks, which a READ answer carries. Thread-safe (stateless besides its stats).
 */
public final class PageRunLoader {
  /** Bytes between two wanted ranges of a file that are read through rather than split into two reads. */
  static final int MAX_GAP = 64 << 10;

  /** Pages {@code [firstPage, firstPage + pages)} of the {@code entryPages}-page entry record at {@code location}. */
  public static final class Piece {
    final SegmentPageReader.Handle file;
    final long location;
    final int firstPage;
    final int pages;
    final int entryPages;
    final long blockId;
    final int blockPage;
    int bufferOffset;
    int crcOffset;
    /** The CRC32C of each 512-byte chunk of the piece's pages, computed while checking them. */
    int[] chunkCrcs;
    /** Whether the piece is read with the one before it (same file, close after it). */
    boolean joined;

    /**
     * @param blockId the block the pages belong to, and {@code blockPage} the block page of {@code firstPage}
     *     (for the error message)
     */
    public Piece(SegmentPageReader.Handle file, long location, int firstPage, int pages, int entryPages,
        long blockId, int blockPage) {
      this.file = file;
      this.location = location;
      this.firstPage = firstPage;
      this.pages = pages;
      this.entryPages = entryPages;
      this.blockId = blockId;
      this.blockPage = blockPage;
    }

    /** The piece's first page, counted in its entry. */
    public int firstPage() {
      return firstPage;
    }

    /** Where its entry record is ({@link SegmentFormat#location}). */
    public long location() {
      return location;
    }

    /** Pages in the piece. */
    public int pages() {
      return pages;
    }

    /** Pages in its entry record. */
    public int entryPages() {
      return entryPages;
    }

    /** Where the piece's first page starts in the buffer {@link #load} returned. */
    public int bufferOffset() {
      return bufferOffset;
    }

    /**
     * The CRC32C of each {@value ChunkChecksums#CHUNK_BYTES}-byte chunk of the piece's pages, in order, computed in
     * the pass that checked them (valid once {@link #load} returned).
     */
    public int[] chunkCrcs() {
      return chunkCrcs;
    }

    /** Whether {@code next} continues this piece: the entry's next page, in the same file. */
    public boolean continuedBy(SegmentPageReader.Handle nextFile, long nextLocation, int nextPage) {
      return nextFile == file && nextLocation == location && nextPage == firstPage + pages;
    }

    /** This piece one page longer. */
    public Piece extend() {
      return new Piece(file, location, firstPage, pages + 1, entryPages, blockId, blockPage);
    }
  }

  /** Where a buffer comes from and goes back to. */
  public interface Buffers {
    ByteBuffer take(int bytes);

    void give(ByteBuffer buffer);
  }

  private final int pageSize;
  private final StoreStats stats;

  public PageRunLoader(int pageSize, StoreStats stats) {
    this.pageSize = pageSize;
    this.stats = stats;
  }

  /**
   * Reads and checks every piece's pages into one buffer from {@code buffers} and returns it (its contents are the
   * pieces' pages at their {@link Piece#bufferOffset()}, with the records between them). The files must stay
   * acquired until this returns.
   *
   * @throws FffsException {@code CORRUPT} naming the file, offset, block and page when a page fails its CRC32C;
   *     {@code IO_ERROR} when a file cannot be read
   */
  public ByteBuffer load(List<Piece> pieces, Buffers buffers) throws FffsException {
    int total = plan(pieces);
    ByteBuffer buffer = buffers.take(total);
    try {
      read(pieces, buffer);
      verify(pieces, buffer);
      return buffer;
    } catch (FffsException | RuntimeException e) {
      buffers.give(buffer);
      throw e;
    }
  }

  /**
   * Assigns each piece its place in the buffer: pieces whose ranges follow each other in a file within
   * {@link #MAX_GAP} share one read and keep their distance; returns the buffer's length.
   */
  private int plan(List<Piece> pieces) throws FffsException {
    long total = 0;
    Piece previous = null;
    for (Piece piece : pieces) {
      long start = pagesStart(piece);
      long crcStart = crcStart(piece);
      if (crcStart - (start + (long) piece.pages * pageSize) > MAX_GAP) {
        // The piece's pages are far from its CRCs (a short read of a long entry): its CRCs go after its pages.
        piece.bufferOffset = (int) total;
        piece.crcOffset = (int) (total + (long) piece.pages * pageSize);
        total += (long) piece.pages * pageSize + 4L * piece.pages;
      } else if (previous != null && joins(previous, piece)) {
        piece.joined = true;
        long base = previous.bufferOffset - pagesStart(previous);
        piece.bufferOffset = (int) (base + start);
        piece.crcOffset = (int) (base + crcStart);
        total = Math.max(total, base + crcStart + 4L * piece.pages);
      } else {
        piece.bufferOffset = (int) total;
        piece.crcOffset = (int) (total + crcStart - start);
        total += crcStart - start + 4L * piece.pages;
      }
      previous = piece;
      if (total > Integer.MAX_VALUE - 8) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a read of " + pieces.size() + " evicted page runs"
            + " needs more than 2 GiB of segment bytes; read in smaller pieces");
      }
    }
    return (int) total;
  }

  /** Whether {@code next}'s range can be read with {@code previous}'s: same file, after it, within the gap. */
  private boolean joins(Piece previous, Piece next) {
    if (previous.file != next.file || apart(previous)) {
      return false;
    }
    long previousEnd = crcStart(previous) + 4L * previous.pages;
    long nextStart = pagesStart(next);
    return nextStart >= previousEnd && nextStart - previousEnd <= MAX_GAP;
  }

  private long pagesStart(Piece piece) {
    return SegmentFormat.offsetOf(piece.location) + SegmentFormat.PREFIX_BYTES + (long) piece.firstPage * pageSize;
  }

  private long crcStart(Piece piece) {
    return SegmentFormat.offsetOf(piece.location)
        + SegmentFormat.pageCrcOffset(piece.firstPage, piece.entryPages, pageSize);
  }

  /** One positional read per stretch of pieces read together, two for a piece that keeps its CRCs apart. */
  private void read(List<Piece> pieces, ByteBuffer buffer) throws FffsException {
    int i = 0;
    while (i < pieces.size()) {
      Piece first = pieces.get(i);
      if (apart(first)) {
        readRange(first, pagesStart(first), first.bufferOffset, first.pages * pageSize, buffer);
        readRange(first, crcStart(first), first.crcOffset, 4 * first.pages, buffer);
        i++;
        continue;
      }
      int end = first.crcOffset + 4 * first.pages;
      int j = i + 1;
      while (j < pieces.size() && pieces.get(j).joined) {
        end = Math.max(end, pieces.get(j).crcOffset + 4 * pieces.get(j).pages);
        j++;
      }
      readRange(first, pagesStart(first), first.bufferOffset, end - first.bufferOffset, buffer);
      i = j;
    }
  }

  /** Whether the piece's CRCs sit right after its pages in the buffer rather than where the file has them. */
  private boolean apart(Piece piece) {
    return piece.crcOffset - piece.bufferOffset != crcStart(piece) - pagesStart(piece);
  }

  private void readRange(Piece piece, long position, int at, int length, ByteBuffer buffer) throws FffsException {
    try {
      // Read-ahead first: far less CPU than the read bringing the pages in (PageCache). The DataNode owns its files,
      // so mincore's answer is true.
      PageCache.warm(piece.file.channel(), position, length, true);
    } catch (IOException | RuntimeException e) {
      // The read below meets the same file and reports what is wrong with it.
    }
    try {
      SegmentPageReader.readFully(piece.file.channel(), buffer.slice(at, length), position);
    } catch (IOException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "cannot read " + length + " bytes of block " + piece.blockId
          + " from " + piece.file.path() + " at offset " + position + ": " + e.getMessage(), e);
    }
    stats.segmentReads.increment();
    stats.segmentReadBytes.add(length);
  }

  /**
   * Checks every page against its stored CRC32C in one pass that also yields the CRCs of its 512-byte chunks (what a
   * READ answer carries): the page's CRC is derived from its chunks' ({@link PageChecksums#concat}).
   */
  private void verify(List<Piece> pieces, ByteBuffer buffer) throws FffsException {
    ByteBuffer crcs = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int chunksPerPage = pageSize / ChunkChecksums.CHUNK_BYTES;
    CRC32C crc = new CRC32C();
    for (Piece piece : pieces) {
      piece.chunkCrcs = new int[piece.pages * chunksPerPage];
      for (int j = 0; j < piece.pages; j++) {
        int at = piece.bufferOffset + j * pageSize;
        int page = 0;
        for (int k = 0; k < chunksPerPage; k++) {
          crc.reset();
          crc.update(buffer.slice(at + k * ChunkChecksums.CHUNK_BYTES, ChunkChecksums.CHUNK_BYTES));
          int chunk = (int) crc.getValue();
          piece.chunkCrcs[j * chunksPerPage + k] = chunk;
          page = k == 0 ? chunk : PageChecksums.concat(page, chunk);
        }
        if (page != crcs.getInt(piece.crcOffset + 4 * j)) {
          stats.crcFailures.increment();
          long position = pagesStart(piece) + (long) j * pageSize;
          throw new FffsException(ErrorCode.CORRUPT, "segment file " + piece.file.path() + " is corrupt at offset "
              + position + ": page " + (piece.blockPage + j) + " of block " + piece.blockId + " fails its CRC32C;"
              + " the page cannot be served — restore the block from another replica");
        }
      }
      stats.pagesReloaded.add(piece.pages);
    }
  }
}
