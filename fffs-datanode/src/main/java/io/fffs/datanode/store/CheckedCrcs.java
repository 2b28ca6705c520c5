package io.fffs.datanode.store;

import io.fffs.protocol.frame.ChunkChecksums;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The chunk CRC32Cs of evicted pages that a read loaded from a segment file and checked against their stored CRC, per
 * entry record, so that a later read of the same pages can send them straight from the file (from a mapping) with
 * these CRCs instead of loading and checking them again: the reader's end-to-end check then covers the bytes as they
 * leave the file, and a page damaged since fails it (the reader reports the replica and reads another).
 *
 * <p>A record's location (segment file number and offset) names the same bytes for as long as the file exists: files
 * are only appended to and retired whole, and file numbers are never reused while the store runs. Bounded to
 * {@code budgetBytes} of CRCs (4 bytes per 512-byte chunk: 32 MiB covers 4 GiB of pages), least recently used
 * records dropped first. Thread-safe.
 */
final class CheckedCrcs {
  /**
   * Heap a record takes beyond its two arrays' elements: the record, two array headers, the map's entry and boxed
   * key, its table slot (about 120 bytes with compressed references), so the budget bounds what is really used.
   */
  static final int RECORD_OVERHEAD_BYTES = 128;

  private final long budgetBytes;
  private final int chunksPerPage;
  /** By record location, least recently used first; guarded by this. */
  private final Map<Long, Record> records = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;

  /** @param budgetBytes heap for the CRCs; 0 keeps none (every read of an evicted page loads and checks it) */
  CheckedCrcs(long budgetBytes, int pageSize) {
    this.budgetBytes = budgetBytes;
    this.chunksPerPage = pageSize / ChunkChecksums.CHUNK_BYTES;
  }

  boolean enabled() {
    return budgetBytes > 0;
  }

  /**
   * Keeps the CRCs of pages {@code [firstPage, firstPage + pages)} of the {@code entryPages}-page record at
   * {@code location}, which a read just checked: {@code chunkCrcs} from index 0 for its first page.
   */
  synchronized void keep(long location, int entryPages, int firstPage, int pages, int[] chunkCrcs) {
    if (!enabled() || chunkCrcs == null) {
      return;
    }
    Record record = records.get(location);
    if (record == null) {
      record = new Record(entryPages, chunksPerPage);
      bytes += record.bytes();
      records.put(location, record);
    }
    System.arraycopy(chunkCrcs, 0, record.crcs, firstPage * chunksPerPage, pages * chunksPerPage);
    for (int p = firstPage; p < firstPage + pages; p++) {
      record.checked[p >>> 6] |= 1L << p;
    }
    Iterator<Record> eldest = records.values().iterator();
    while (bytes > budgetBytes && eldest.hasNext()) {
      Record dropped = eldest.next();
      if (dropped == record) {
        break;
      }
      eldest.remove();
      bytes -= dropped.bytes();
    }
  }

  /**
   * Copies the checked CRCs of page {@code page} of the record at {@code location} into {@code dst} at {@code at};
   * false (nothing copied) when that page was not checked or its CRCs were dropped.
   */
  synchronized boolean copy(long location, int page, int[] dst, int at) {
    Record record = records.get(location);
    if (record == null || (record.checked[page >>> 6] & (1L << page)) == 0) {
      return false;
    }
    System.arraycopy(record.crcs, page * chunksPerPage, dst, at, chunksPerPage);
    return true;
  }

  /** Records kept now (tests). */
  synchronized int records() {
    return records.size();
  }

  /** One entry record's chunk CRCs, and which of its pages have them. */
  private static final class Record {
    final int[] crcs;
    final long[] checked;

    Record(int entryPages, int chunksPerPage) {
      this.crcs = new int[entryPages * chunksPerPage];
      this.checked = new long[(entryPages + 63) >>> 6];
    }

    long bytes() {
      return 4L * crcs.length + 8L * checked.length + RECORD_OVERHEAD_BYTES;
    }
  }
}
