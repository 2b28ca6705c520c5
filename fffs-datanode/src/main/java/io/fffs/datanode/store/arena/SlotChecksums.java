package io.fffs.datanode.store.arena;

import io.fffs.protocol.frame.ChunkChecksums;
import java.util.Arrays;

/**
 * The CRC32Cs of each resident page's {@value ChunkChecksums#CHUNK_BYTES}-byte chunks, kept from the write that
 * filled the page (the checksums a WRITE carries, checked against its bytes on arrival), so that a READ of arena pages
 * sends them instead of computing them again. Kept on the heap beside the arena: per slot the sequence number of the
 * page whose CRCs it holds, then {@code pageSize / 512} CRCs — 40 bytes per 4 KiB page, about 1 % of the arena.
 *
 * <p>Only pages a write covers whole, starting on a chunk boundary of the write, have CRCs kept; any other page
 * (partly written, its other bytes copied from the previous version; a write without checksums) is unknown here and
 * its reader computes them. A slot's CRCs are those of the sequence number recorded with them: a slot reused for a
 * later page holds nothing for the earlier one.
 *
 * <p>Arena pages never change after their entry is published, and their slot is not reused while a reader pins it.
 * The writer keeps a page's CRCs before it publishes the entry under the block's write lock, and a reader looks them
 * up for pages it resolved under the block's read lock while it pins them: that lock orders the two, so the arrays
 * need no lock of their own.
 */
public final class SlotChecksums {
  private static final long NONE = -1;

  private final int pageSize;
  private final int chunksPerPage;
  private final int slotCount;
  /** Per slot: the sequence number of the page whose CRCs follow, or {@link #NONE}. */
  private final long[] seqs;
  /** Per slot, {@link #chunksPerPage} CRC32Cs. */
  private final int[] crcs;

  public SlotChecksums(int slotCount, int pageSize) {
    this.pageSize = pageSize;
    this.chunksPerPage = pageSize / ChunkChecksums.CHUNK_BYTES;
    this.slotCount = slotCount;
    this.seqs = new long[slotCount];
    Arrays.fill(seqs, NONE);
    this.crcs = new int[Math.multiplyExact(slotCount, chunksPerPage)];
  }

  /** CRCs kept per page. */
  public int chunksPerPage() {
    return chunksPerPage;
  }

  /**
   * Keeps the CRCs of the pages from {@code firstSeq} that a write of {@code length} bytes at block offset
   * {@code offset} covers whole, from its {@code chunkCrcs} (chunk 0 starting at {@code offset}; null: none kept).
   */
  public void keep(long firstSeq, long offset, int length, int[] chunkCrcs) {
    if (chunkCrcs == null || length == 0 || offset % ChunkChecksums.CHUNK_BYTES != 0) {
      return;
    }
    long firstPageStart = offset / pageSize * pageSize;
    int pages = (int) ((offset + length - firstPageStart + pageSize - 1) / pageSize);
    for (int j = 0; j < pages; j++) {
      long pageStart = firstPageStart + (long) j * pageSize;
      if (pageStart < offset || pageStart + pageSize > offset + length) {
        continue;  // partly written: unknown (its slot's entry is some other sequence number)
      }
      int first = (int) ((pageStart - offset) / ChunkChecksums.CHUNK_BYTES);
      if (first + chunksPerPage > chunkCrcs.length) {
        return;
      }
      int slot = (int) ((firstSeq + j) % slotCount);
      System.arraycopy(chunkCrcs, first, crcs, slot * chunksPerPage, chunksPerPage);
      seqs[slot] = firstSeq + j;
    }
  }

  /** Forgets the CRCs of the {@code count} pages from {@code firstSeq}, whose sequence numbers are handed out again. */
  public void forget(long firstSeq, int count) {
    for (long seq = firstSeq; seq < firstSeq + count; seq++) {
      int slot = (int) (seq % slotCount);
      if (seqs[slot] == seq) {
        seqs[slot] = NONE;
      }
    }
  }

  /**
   * Copies the kept CRCs of page {@code seq} (resident and pinned by the caller) into {@code dst} at {@code at};
   * false, and nothing copied, when none are kept for it.
   */
  public boolean copy(long seq, int[] dst, int at) {
    int slot = (int) (seq % slotCount);
    if (seqs[slot] != seq) {
      return false;
    }
    System.arraycopy(crcs, slot * chunksPerPage, dst, at, chunksPerPage);
    return true;
  }
}
