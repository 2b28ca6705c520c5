package io.fffs.client.data;

import java.util.concurrent.atomic.LongAdder;

/** Counters of a client's short-circuit reads (monotonic), and a hook for tests. */
public final class ShortCircuitStats {
  /** LOCAL_READ answers the client copied bytes by. */
  public final LongAdder requests = new LongAdder();
  /** Bytes copied from the DataNodes' files and checked. */
  public final LongAdder bytes = new LongAdder();
  /** Of those, bytes of pages in segment files (each page checked against its stored CRC32C). */
  public final LongAdder segmentBytes = new LongAdder();
  /**
   * Copies found invalid after the fact (an arena page evicted or its slot reused while being copied, a segment
   * page that failed its CRC, a file gone): the read went on through the data port, or, for a piece located ahead
   * ({@link #relocated}), located it again once.
   */
  public final LongAdder stale = new LongAdder();
  /**
   * Bytes of segment pages (and their CRCs) brought into the page cache by read-ahead before their readers copied
   * them; stretches the page cache held already, or shorter than {@code PageCache.MIN_BYTES}, are not counted.
   */
  public final LongAdder warmedBytes = new LongAdder();
  /** Bytes of segment pages read around the page cache (O_DIRECT), ahead of their readers or by them. */
  public final LongAdder directBytes = new LongAdder();
  /** Of those, bytes read ahead of their readers into the client's preload buffers. */
  public final LongAdder preloadedBytes = new LongAdder();
  /** Preload buffers lent to pieces read ahead and not given back yet (a gauge: 0 once every stream is closed). */
  public final LongAdder preloadBuffersLent = new LongAdder();
  /** Pieces located ahead whose copy failed its check and that were located again (their arena pages evicted since). */
  public final LongAdder relocated = new LongAdder();
  /** Reads that went through the data port because the DataNode or its files could not be used. */
  public final LongAdder refused = new LongAdder();
  /** Tests only: runs after a DataNode answered with locations and before the client copies from them. */
  public volatile Runnable beforeCopy;
}
