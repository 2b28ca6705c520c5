package io.fffs.datanode.store.persist;

import io.fffs.datanode.store.ScrubberStatus;
import io.fffs.datanode.store.StoreStats;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verifies the persisted segment files in the background, as HDFS's block scanner does: one thread walks every
 * segment file, oldest first, checking each record's CRC32C and each page's, at most
 * {@code fffs.datanode.scrubber.bytes-per-second}; after a full pass it rests for
 * {@code fffs.datanode.scrubber.interval}. What it finds is logged, counted in {@link StoreStats}, and reported
 * to the NameNode with each heartbeat ({@code /status}). Reading never serves a damaged page either way: reloads
 * check CRCs themselves; the scrubber finds damage before a reader needs the data.
 */
public final class Scrubber implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Scrubber.class);

  private final Path dataDir;
  private final int pageSize;
  private final StoreStats stats;
  private final long bytesPerSecond;
  private final long intervalMillis;
  private final java.util.function.Predicate<Path> mayBeOpen;
  private final Thread thread;
  private final AtomicLong passes = new AtomicLong();
  private final AtomicLong bytesVerified = new AtomicLong();
  private final AtomicLong corruptions = new AtomicLong();
  private volatile String lastCorruption;
  private volatile boolean stopped;
  private long windowStartNanos;
  private long windowBytes;

  /** @param mayBeOpen whether a persistence thread may still be appending to a file (it may lack its footer) */
  public Scrubber(Path dataDir, int pageSize, StoreStats stats, long bytesPerSecond, long intervalMillis,
      java.util.function.Predicate<Path> mayBeOpen) {
    this.mayBeOpen = mayBeOpen;
    this.dataDir = dataDir;
    this.pageSize = pageSize;
    this.stats = stats;
    this.bytesPerSecond = bytesPerSecond;
    this.intervalMillis = intervalMillis;
    this.thread = new Thread(this::run, "fffs-scrubber");
    thread.setDaemon(true);
  }

  public void start() {
    thread.start();
  }

  public ScrubberStatus status() {
    return new ScrubberStatus(true, passes.get(), bytesVerified.get(), corruptions.get(), lastCorruption);
  }

  private void run() {
    try {
      while (!stopped) {
        pass();
        passes.incrementAndGet();
        TimeUnit.MILLISECONDS.sleep(intervalMillis);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One walk over every segment file. */
  void pass() throws InterruptedException {
    java.util.List<Path> files;
    try {
      files = SegmentFormat.list(dataDir);
    } catch (IOException e) {
      LOG.warn("Scrubber cannot list {}: {}", dataDir, e.getMessage());
      return;
    }
    windowStartNanos = System.nanoTime();
    windowBytes = 0;
    for (Path file : files) {
      if (stopped) {
        return;
      }
      try {
        // Its own counters: a scrub pass must not disturb the store's read-path CRC statistics.
        SegmentScanner.Verification result = SegmentScanner.verify(file, SegmentFormat.fileNumberOf(file),
            pageSize, new StoreStats(), mayBeOpen.test(file), this::throttle);
        bytesVerified.addAndGet(result.bytes());
        stats.bytesScrubbed.add(result.bytes());
        if (result.corruption() != null) {
          lastCorruption = "CORRUPT: segment file " + file + " at " + result.corruption();
          corruptions.incrementAndGet();
          stats.scrubCorruptions.increment();
          LOG.error("Scrubber found damage: {}", lastCorruption);
        }
      } catch (IOException e) {
        if (!stopped) {
          LOG.warn("Scrubber could not read {}: {}", file, e.getMessage());
        }
      } catch (ThrottleInterrupted e) {
        throw new InterruptedException("scrubber stopped");
      } catch (RuntimeException e) {
        // Damage can make a record unparseable in ways the checks above do not name; it is still damage.
        lastCorruption = "CORRUPT: segment file " + file + " cannot be parsed: " + e;
        corruptions.incrementAndGet();
        stats.scrubCorruptions.increment();
        LOG.error("Scrubber found damage: {}", lastCorruption);
      }
    }
  }

  /** Keeps the pass at or below the configured rate by sleeping when ahead of it. */
  private void throttle(long bytes) {
    if (bytesPerSecond == Long.MAX_VALUE) {
      return;
    }
    windowBytes += bytes;
    long aheadNanos = dueNanos(windowBytes, bytesPerSecond) - (System.nanoTime() - windowStartNanos);
    if (aheadNanos > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(aheadNanos);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ThrottleInterrupted();
      }
    }
  }

  /**
   * When, in nanoseconds from the start of a pass, {@code bytes} are due at {@code bytesPerSecond}. In floating
   * point: {@code bytes * 1e9} overflows a long past 9.2 GB, and a pass over a large data directory verifies more
   * than that (then the scrubber stopped sleeping for the rest of the pass).
   */
  static long dueNanos(long bytes, long bytesPerSecond) {
    return (long) (bytes * 1e9 / bytesPerSecond);
  }

  /** Carries an interrupt out of the scanner's callback. */
  private static final class ThrottleInterrupted extends RuntimeException {
    private static final long serialVersionUID = 1L;
  }

  @Override
  public void close() {
    stopped = true;
    thread.interrupt();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
