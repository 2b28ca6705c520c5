package io.fffs.datanode.store;

import java.util.concurrent.atomic.LongAdder;

/**
 * The block store's metrics, one counter per field, each documented. Counters only grow; gauges are read from the
 * arena ({@link BlockStore#memoryUsage()}).
 */
public final class StoreStats {
  /** Log entries appended (create, write, truncate, delete). */
  public final LongAdder entriesAppended = new LongAdder();
  /** Payload bytes accepted by writes. */
  public final LongAdder bytesWritten = new LongAdder();
  /** Writes refused for any reason (the exception says which). */
  public final LongAdder writesRefused = new LongAdder();
  /** Writes reserved to follow an uncommitted one ({@link PageReservation#reserveNext}). */
  public final LongAdder reservationsChained = new LongAdder();
  /** Times a writer found the arena full and had to wait for persistence or readers (backpressure). */
  public final LongAdder backpressureWaits = new LongAdder();
  /** Total nanoseconds writers spent waiting for arena space. */
  public final LongAdder backpressureNanos = new LongAdder();
  /** Pages that left memory because the arena was full (oldest persisted first). */
  public final LongAdder pagesEvicted = new LongAdder();
  /** Evicted pages read back from segment files (and checked against their CRC32C) to serve a read or a copy. */
  public final LongAdder pagesReloaded = new LongAdder();
  /**
   * Evicted pages sent to a reader straight from their segment file (a mapping of it) with chunk CRCs an earlier read
   * checked, instead of being read back and checked again.
   */
  public final LongAdder pagesSentFromFiles = new LongAdder();
  /** Positional reads of segment files made to serve reads of evicted pages (a run of pages and its CRCs each). */
  public final LongAdder segmentReads = new LongAdder();
  /** Bytes those reads brought in: the pages, and the records and padding between pages read together. */
  public final LongAdder segmentReadBytes = new LongAdder();
  /** Entries written to segment files (their pages may leave the arena; fsync'd later: {@link #entriesDurable}). */
  public final LongAdder entriesPersisted = new LongAdder();
  /** Entries fsync'd: counted in the durable frontier. */
  public final LongAdder entriesDurable = new LongAdder();
  /** Bytes written to segment files (pages and entry records). */
  public final LongAdder bytesPersisted = new LongAdder();
  /** Batched segment writes (one gathering write each). */
  public final LongAdder persistBatches = new LongAdder();
  /** Of {@link #persistBatches}, those written with O_DIRECT (around the page cache). */
  public final LongAdder persistDirectBatches = new LongAdder();
  /** Bytes of padding records written to keep O_DIRECT writes aligned (not in {@link #bytesPersisted}). */
  public final LongAdder bytesPadded = new LongAdder();
  /** Retention tables from the NameNode applied (garbage collection of history). */
  public final LongAdder retentionTablesApplied = new LongAdder();
  /** Blocks dropped whole: no kept version of any file lists them. */
  public final LongAdder blocksCollected = new LongAdder();
  /** Log entries dropped from blocks' logs: no kept moment reads them or their pages. */
  public final LongAdder entriesCollected = new LongAdder();
  /** Segment files the cleaner rewrote (their live records copied) and deleted. */
  public final LongAdder segmentsCleaned = new LongAdder();
  /** Segment files deleted because nothing in them was live any more (nothing to copy). */
  public final LongAdder segmentsDeletedEmpty = new LongAdder();
  /** Bytes of live records the cleaner copied into new segment files. */
  public final LongAdder cleanerBytesCopied = new LongAdder();
  /** Bytes of segment files the cleaner deleted (disk space that came back, before what it copied). */
  public final LongAdder cleanerBytesFreed = new LongAdder();
  /**
   * How segment files are written, a gauge set once at start-up: the O_DIRECT alignment in bytes, or 0 when they
   * go through the page cache ({@code fffs.datanode.persistence.direct-io}).
   */
  public volatile int persistenceDirectIoAlignment;
  /**
   * Persisted pages whose CRC32C was derived from the checked chunk CRCs their write came with
   * ({@link WriteOptions#chunkCrcs}) instead of read from the page.
   */
  public final LongAdder pageCrcsDerived = new LongAdder();
  /** fsyncs of segment files. */
  public final LongAdder fsyncs = new LongAdder();
  /** CRC32C mismatches found on reload or recovery. */
  public final LongAdder crcFailures = new LongAdder();
  /** Arena pages written by the start-up pre-touch. */
  public final LongAdder pagesPretouched = new LongAdder();

  @Override
  public String toString() {
    return "entries=" + entriesAppended + " bytesWritten=" + bytesWritten + " refused=" + writesRefused
        + " backpressureWaits=" + backpressureWaits + " backpressureMs=" + backpressureNanos.sum() / 1_000_000
        + " evicted=" + pagesEvicted + " reloaded=" + pagesReloaded + " sentFromFiles=" + pagesSentFromFiles
        + " persisted=" + entriesPersisted
        + " durable=" + entriesDurable + " persistedBytes=" + bytesPersisted + " batches=" + persistBatches
        + " fsyncs=" + fsyncs
        + " crcFailures=" + crcFailures + " pretouched=" + pagesPretouched;
  }
  /** Bytes of segment records the background scrubber verified. */
  public final LongAdder bytesScrubbed = new LongAdder();
  /** Damaged segment records the scrubber found. */
  public final LongAdder scrubCorruptions = new LongAdder();
}
