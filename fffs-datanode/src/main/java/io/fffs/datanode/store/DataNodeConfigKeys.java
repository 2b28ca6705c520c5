package io.fffs.datanode.store;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/**
 * Configuration of the DataNode block store: each key beside its default and its typed getter. Sizes accept Hadoop's
 * suffixes ({@code 64k}, {@code 1g}). The data server keeps its own keys.
 */
public final class DataNodeConfigKeys {
  /** Bytes per arena page: a power of two from 512 B to 64 KiB. Every write occupies whole pages. */
  public static final String PAGE_SIZE_KEY = "fffs.datanode.page.size";
  public static final int PAGE_SIZE_DEFAULT = 4096;
  public static final int PAGE_SIZE_MIN = 512;
  public static final int PAGE_SIZE_MAX = 64 * 1024;

  /** Directory on tmpfs for the arena's page files; owned by one DataNode (it is locked). */
  public static final String MEMORY_DIR_KEY = "fffs.datanode.memory.dir";
  public static final String MEMORY_DIR_DEFAULT = "/dev/shm/fffs-datanode-${user.name}";

  /** Bytes of page arena; the memory cap. Rounded down to whole pages. */
  public static final String MEMORY_CAPACITY_KEY = "fffs.datanode.memory.capacity";
  public static final long MEMORY_CAPACITY_DEFAULT = 1L << 30;

  /** Bytes per arena file (each mapped whole); at most 1 GiB. */
  public static final String MEMORY_SEGMENT_SIZE_KEY = "fffs.datanode.memory.segment.size";
  public static final long MEMORY_SEGMENT_SIZE_MAX = 1L << 30;

  /** Whether a background thread touches every arena page at start-up (first touch is ~10× slower). */
  public static final String MEMORY_PRETOUCH_KEY = "fffs.datanode.memory.pretouch";
  public static final boolean MEMORY_PRETOUCH_DEFAULT = true;

  /** How long a writer waits for arena space (backpressure) before giving up with {@code IO_ERROR}. */
  public static final String MEMORY_WAIT_TIMEOUT_KEY = "fffs.datanode.memory.wait.timeout";
  public static final long MEMORY_WAIT_TIMEOUT_DEFAULT_MS = 60_000;

  /** Directory of the persisted segment files (the durable copy of every block log). */
  public static final String DATA_DIR_KEY = "fffs.datanode.data.dir";
  public static final String DATA_DIR_DEFAULT = "${hadoop.tmp.dir}/fffs-datanode/data";

  /** Whether entries are written to {@link #DATA_DIR_KEY} at all; off only for benchmarks (no sync, no eviction). */
  public static final String PERSISTENCE_ENABLED_KEY = "fffs.datanode.persistence.enabled";
  public static final boolean PERSISTENCE_ENABLED_DEFAULT = true;

  /** Persistence threads; each owns its own segment files and the queues of the blocks hashed to it. */
  public static final String PERSISTENCE_THREADS_KEY = "fffs.datanode.persistence.threads";
  public static final int PERSISTENCE_THREADS_DEFAULT = 1;

  /** Upper bound of one batched segment write (entries queued together are written with one gathering write). */
  public static final String PERSISTENCE_BATCH_BYTES_KEY = "fffs.datanode.persistence.batch.bytes";
  public static final long PERSISTENCE_BATCH_BYTES_DEFAULT = 8L << 20;

  /**
   * Group commit: the least time between the starts of two batches of a persistence thread while no {@code sync}
   * waits and less than a batch is queued (0: start as soon as an entry is queued). Small acknowledged writes then
   * share one segment write and fsync per interval instead of costing one each; durability lags the write by at
   * most this much more, and a {@code sync} does not wait for it. A batch that is full, or that takes longer than
   * the interval, is not held back, so a writer faster than the disk loses nothing.
   */
  public static final String PERSISTENCE_BATCH_INTERVAL_KEY = "fffs.datanode.persistence.batch.interval-us";
  public static final long PERSISTENCE_BATCH_INTERVAL_DEFAULT_US = 10_000;

  /**
   * With O_DIRECT and pages of a multiple of the alignment: an entry of at least this many pages is written from the
   * memory arena in place, after a padding record that puts its pages on the alignment, instead of being copied into
   * the staging buffer (0: never). The padding costs up to one alignment block per entry on disk (≤ 3 % at 32 pages
   * of 4 KiB), which for large entries is cheaper than the persistence thread's copy it saves.
   */
  public static final String PERSISTENCE_IN_PLACE_MIN_PAGES_KEY = "fffs.datanode.persistence.in-place-min-pages";
  public static final int PERSISTENCE_IN_PLACE_MIN_PAGES_DEFAULT = 32;

  /**
   * Heap for the checked chunk CRCs that queued writes carry to persistence ({@code WriteOptions.chunkCrcs}, 4
   * bytes per 512 bytes written), from which it derives page CRCs instead of reading the pages. While the queued
   * entries hold this much, further writes are queued without theirs, and persistence checksums their pages. Bounds
   * the heap a persistence backlog takes (default 16 MiB: a 2 GiB backlog); 0 turns the derivation off.
   */
  public static final String PERSISTENCE_CHUNK_CRC_BUDGET_KEY = "fffs.datanode.persistence.chunk-crc-budget";
  public static final long PERSISTENCE_CHUNK_CRC_BUDGET_DEFAULT = 16L << 20;

  /**
   * Heap for the chunk CRC32Cs of evicted pages that reads loaded and checked (4 bytes per 512 B: 32 MiB covers 4 GiB
   * of pages): a later data-port read of those pages is sent straight from the segment file (a mapping of it) and
   * these CRCs, which the reader checks, instead of being read and checked again. Unset, a sixteenth of the JVM's
   * heap ({@link #readCheckedCrcsDefault}). 0: every read of an evicted page loads and checks it.
   */
  public static final String READ_CHECKED_CRCS_KEY = "fffs.datanode.read.checked-crcs";
  /** The least heap {@link #READ_CHECKED_CRCS_KEY} takes when unset. */
  public static final long READ_CHECKED_CRCS_MIN_DEFAULT = 32L << 20;
  /** The most heap {@link #READ_CHECKED_CRCS_KEY} takes when unset: the CRCs of 128 GiB of pages. */
  public static final long READ_CHECKED_CRCS_MAX_DEFAULT = 1L << 30;

  /**
   * How segment files are written: {@code auto} (default) with O_DIRECT where the data directory's file system takes
   * it and through the page cache where it does not; {@code true} O_DIRECT or refuse to start; {@code false} always
   * through the page cache, as HDFS writes its block files. O_DIRECT spares every replica's persistence thread the
   * copy of each page into fresh page-cache pages (about half of a replicated write's CPU through the page cache);
   * the first read of an evicted page then reads it from the disk into the page cache rather than finding it there.
   * Durability is the same in every mode: an entry is durable once its segment file is fsync'd
   * ({@link #PERSISTENCE_SYNC_INTERVAL_KEY}).
   */
  public static final String PERSISTENCE_DIRECT_IO_KEY = "fffs.datanode.persistence.direct-io";
  public static final String PERSISTENCE_DIRECT_IO_DEFAULT = "auto";

  /**
   * How long a persistence thread may leave what it wrote to its segment file without an fsync while no {@code
   * sync} (hsync) asks for one (0: fsync after every batch). Pages leave the memory arena once written, without
   * waiting for the disk, as HDFS writes its block files; the durable frontier (what {@code sync} waits for and the
   * NameNode is told) advances at each fsync. A power loss can lose the entries written since the last fsync that no
   * hsync covered — at most this long, or {@link #PERSISTENCE_SYNC_BYTES_KEY} — as HDFS loses what the kernel had
   * not written back; a crash of the DataNode's process alone loses nothing written.
   */
  public static final String PERSISTENCE_SYNC_INTERVAL_KEY = "fffs.datanode.persistence.sync-interval";
  public static final String PERSISTENCE_SYNC_INTERVAL_DEFAULT = "30s";

  /** Bytes a persistence thread may write without an fsync before it makes one (0: after every batch). */
  public static final String PERSISTENCE_SYNC_BYTES_KEY = "fffs.datanode.persistence.sync-bytes";
  public static final long PERSISTENCE_SYNC_BYTES_DEFAULT = 2L << 30;

  /** Size at which a segment file is closed (footer, fsync) and the next one started. */
  public static final String SEGMENT_FILE_SIZE_KEY = "fffs.datanode.segment.file.size";
  public static final long SEGMENT_FILE_SIZE_DEFAULT = 1L << 30;

  /**
   * Segment files kept open for reading evicted pages back when no reader holds them (the least recently used idle
   * ones are closed beyond it; files a reader holds stay open however many there are).
   */
  public static final String SEGMENT_OPEN_FILES_KEY = "fffs.datanode.segment.open-files";
  public static final int SEGMENT_OPEN_FILES_DEFAULT = 256;

  /** Rate of the background scrubber over the segment files; 0 switches it off. Units as Hadoop byte sizes. */
  public static final String SCRUBBER_RATE_KEY = "fffs.datanode.scrubber.bytes-per-second";

  /**
   * Whether recovery quarantines the blocks a damaged segment record touches (they are set aside, listed in the data
   * directory's {@code quarantine} file and reported corrupt, so the NameNode re-replicates them from a good copy)
   * and starts with the rest; false: damage stops start-up ({@code CORRUPT}).
   */
  public static final String RECOVERY_QUARANTINE_KEY = "fffs.datanode.recovery.quarantine";
  public static final boolean RECOVERY_QUARANTINE_DEFAULT = true;
  public static final long SCRUBBER_RATE_DEFAULT = 1L << 20;
  /** Rest between two full passes of the scrubber. */
  public static final String SCRUBBER_INTERVAL_KEY = "fffs.datanode.scrubber.interval";
  public static final long SCRUBBER_INTERVAL_DEFAULT_MS = 24L * 3600 * 1000;

  /**
   * Rate at which the segment cleaner copies live records out of mostly-dead segment files (docs/history.md); 0
   * switches it off. Units as Hadoop byte sizes.
   */
  public static final String CLEANER_RATE_KEY = "fffs.datanode.cleaner.bytes-per-second";
  public static final long CLEANER_RATE_DEFAULT = 32L << 20;
  /** Rest between two passes of the segment cleaner. */
  public static final String CLEANER_INTERVAL_KEY = "fffs.datanode.cleaner.interval";
  public static final long CLEANER_INTERVAL_DEFAULT_MS = 60_000;
  /** A closed segment file whose live records fill less than this fraction of it is rewritten and deleted. */
  public static final String CLEANER_LIVE_RATIO_KEY = "fffs.datanode.cleaner.live-ratio";
  public static final float CLEANER_LIVE_RATIO_DEFAULT = 0.5f;

  /** The largest block length this store accepts, whatever the file's block size says. */
  public static final String BLOCK_MAX_SIZE_KEY = "fffs.datanode.block.max-size";
  public static final long BLOCK_MAX_SIZE_DEFAULT = 1L << 30;

  private DataNodeConfigKeys() {}

  public static int pageSize(Configuration conf) {
    int size = conf.getInt(PAGE_SIZE_KEY, PAGE_SIZE_DEFAULT);
    if (size < PAGE_SIZE_MIN || size > PAGE_SIZE_MAX || Integer.bitCount(size) != 1) {
      throw new IllegalArgumentException(PAGE_SIZE_KEY + " must be a power of two from " + PAGE_SIZE_MIN + " to "
          + PAGE_SIZE_MAX + " bytes, got " + conf.get(PAGE_SIZE_KEY));
    }
    return size;
  }

  public static Path memoryDir(Configuration conf) {
    return Paths.get(conf.get(MEMORY_DIR_KEY, MEMORY_DIR_DEFAULT));
  }

  public static long memoryCapacity(Configuration conf) {
    return positive(conf, MEMORY_CAPACITY_KEY, conf.getLongBytes(MEMORY_CAPACITY_KEY, MEMORY_CAPACITY_DEFAULT));
  }

  /** Defaults to the capacity, capped at 1 GiB. */
  public static long memorySegmentSize(Configuration conf) {
    long size = conf.getLongBytes(MEMORY_SEGMENT_SIZE_KEY,
        Math.min(MEMORY_SEGMENT_SIZE_MAX, memoryCapacity(conf)));
    if (size <= 0 || size > MEMORY_SEGMENT_SIZE_MAX) {
      throw new IllegalArgumentException(MEMORY_SEGMENT_SIZE_KEY + " must be from 1 byte to 1 GiB, got "
          + conf.get(MEMORY_SEGMENT_SIZE_KEY));
    }
    return size;
  }

  public static boolean memoryPretouch(Configuration conf) {
    return conf.getBoolean(MEMORY_PRETOUCH_KEY, MEMORY_PRETOUCH_DEFAULT);
  }

  public static long memoryWaitTimeoutNanos(Configuration conf) {
    return positive(conf, MEMORY_WAIT_TIMEOUT_KEY, conf.getTimeDuration(MEMORY_WAIT_TIMEOUT_KEY,
        MEMORY_WAIT_TIMEOUT_DEFAULT_MS, TimeUnit.MILLISECONDS, TimeUnit.NANOSECONDS));
  }

  public static Path dataDir(Configuration conf) {
    return Paths.get(conf.get(DATA_DIR_KEY, DATA_DIR_DEFAULT));
  }

  public static boolean persistenceEnabled(Configuration conf) {
    return conf.getBoolean(PERSISTENCE_ENABLED_KEY, PERSISTENCE_ENABLED_DEFAULT);
  }

  public static int persistenceThreads(Configuration conf) {
    return (int) positive(conf, PERSISTENCE_THREADS_KEY,
        conf.getInt(PERSISTENCE_THREADS_KEY, PERSISTENCE_THREADS_DEFAULT));
  }

  public static long persistenceBatchBytes(Configuration conf) {
    return positive(conf, PERSISTENCE_BATCH_BYTES_KEY,
        conf.getLongBytes(PERSISTENCE_BATCH_BYTES_KEY, PERSISTENCE_BATCH_BYTES_DEFAULT));
  }

  public static long persistenceBatchIntervalNanos(Configuration conf) {
    long us = conf.getLong(PERSISTENCE_BATCH_INTERVAL_KEY, PERSISTENCE_BATCH_INTERVAL_DEFAULT_US);
    if (us < 0 || us > 60_000_000) {
      throw new IllegalArgumentException(PERSISTENCE_BATCH_INTERVAL_KEY + " must be from 0 to 60000000 µs (1 min),"
          + " got " + conf.get(PERSISTENCE_BATCH_INTERVAL_KEY));
    }
    return us * 1_000;
  }

  /** {@link #PERSISTENCE_SYNC_INTERVAL_KEY} in nanoseconds (suffixes ms, s, m; plain numbers are milliseconds). */
  public static long persistenceSyncIntervalNanos(Configuration conf) {
    long ms = conf.getTimeDuration(PERSISTENCE_SYNC_INTERVAL_KEY, PERSISTENCE_SYNC_INTERVAL_DEFAULT,
        java.util.concurrent.TimeUnit.MILLISECONDS);
    if (ms < 0 || ms > 3_600_000) {
      throw new IllegalArgumentException(PERSISTENCE_SYNC_INTERVAL_KEY + " must be from 0 (every batch) to 1h,"
          + " got " + conf.get(PERSISTENCE_SYNC_INTERVAL_KEY));
    }
    return ms * 1_000_000;
  }

  /** {@link #PERSISTENCE_SYNC_BYTES_KEY} in bytes. */
  public static long persistenceSyncBytes(Configuration conf) {
    return sizeOrZero(conf, PERSISTENCE_SYNC_BYTES_KEY, PERSISTENCE_SYNC_BYTES_DEFAULT, "every batch", "2g");
  }

  /** {@link #PERSISTENCE_CHUNK_CRC_BUDGET_KEY} in bytes. */
  public static long persistenceChunkCrcBudget(Configuration conf) {
    return sizeOrZero(conf, PERSISTENCE_CHUNK_CRC_BUDGET_KEY, PERSISTENCE_CHUNK_CRC_BUDGET_DEFAULT, "off", "16m");
  }

  /** {@link #READ_CHECKED_CRCS_KEY} in bytes. */
  public static long readCheckedCrcs(Configuration conf) {
    return sizeOrZero(conf, READ_CHECKED_CRCS_KEY, readCheckedCrcsDefault(Runtime.getRuntime().maxMemory()), "off",
        "256m");
  }

  /**
   * The heap for checked CRCs when {@link #READ_CHECKED_CRCS_KEY} is unset, per DataNode: a sixteenth of
   * {@code maxHeap}, within [32 MiB, 1 GiB]; it grows with the heap because data re-read in order that exceeds it
   * is loaded and checked every time (the least recently used records go first).
   */
  static long readCheckedCrcsDefault(long maxHeap) {
    return Math.min(READ_CHECKED_CRCS_MAX_DEFAULT, Math.max(READ_CHECKED_CRCS_MIN_DEFAULT, maxHeap / 16));
  }

  /** A size setting that may be 0 (meaning {@code zeroMeans}) but not negative. */
  private static long sizeOrZero(Configuration conf, String key, long defaultBytes, String zeroMeans,
      String example) {
    long bytes = conf.getLongBytes(key, defaultBytes);
    if (bytes < 0) {
      throw new IllegalArgumentException(key + " must be 0 (" + zeroMeans + ") or a size such as " + example
          + ", got " + conf.get(key));
    }
    return bytes;
  }

  /** {@link #PERSISTENCE_IN_PLACE_MIN_PAGES_KEY}; {@link Integer#MAX_VALUE} for 0 (never). */
  public static int persistenceInPlaceMinPages(Configuration conf) {
    int pages = conf.getInt(PERSISTENCE_IN_PLACE_MIN_PAGES_KEY, PERSISTENCE_IN_PLACE_MIN_PAGES_DEFAULT);
    if (pages < 0) {
      throw new IllegalArgumentException(PERSISTENCE_IN_PLACE_MIN_PAGES_KEY + " must be 0 (never) or a page count,"
          + " got " + pages);
    }
    return pages == 0 ? Integer.MAX_VALUE : pages;
  }

  public static io.fffs.datanode.store.persist.DirectIo.Mode persistenceDirectIo(Configuration conf) {
    return io.fffs.datanode.store.persist.DirectIo.Mode.parse(PERSISTENCE_DIRECT_IO_KEY,
        conf.get(PERSISTENCE_DIRECT_IO_KEY, PERSISTENCE_DIRECT_IO_DEFAULT));
  }

  public static long segmentFileSize(Configuration conf) {
    return positive(conf, SEGMENT_FILE_SIZE_KEY,
        conf.getLongBytes(SEGMENT_FILE_SIZE_KEY, SEGMENT_FILE_SIZE_DEFAULT));
  }

  public static int segmentOpenFiles(Configuration conf) {
    return (int) positive(conf, SEGMENT_OPEN_FILES_KEY, conf.getInt(SEGMENT_OPEN_FILES_KEY, SEGMENT_OPEN_FILES_DEFAULT));
  }

  public static long blockMaxSize(Configuration conf) {
    return positive(conf, BLOCK_MAX_SIZE_KEY, conf.getLongBytes(BLOCK_MAX_SIZE_KEY, BLOCK_MAX_SIZE_DEFAULT));
  }

  private static long positive(Configuration conf, String key, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(key + " must be positive, got " + conf.get(key));
    }
    return value;
  }

  /** {@link #CLEANER_RATE_KEY} in bytes per second (0: off). */
  public static long cleanerRate(Configuration conf) {
    return conf.getLongBytes(CLEANER_RATE_KEY, CLEANER_RATE_DEFAULT);
  }

  /** {@link #CLEANER_INTERVAL_KEY} in milliseconds. */
  public static long cleanerIntervalMillis(Configuration conf) {
    return conf.getTimeDuration(CLEANER_INTERVAL_KEY, CLEANER_INTERVAL_DEFAULT_MS,
        java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** {@link #CLEANER_LIVE_RATIO_KEY}, between 0 and 1. */
  public static double cleanerLiveRatio(Configuration conf) {
    float ratio = conf.getFloat(CLEANER_LIVE_RATIO_KEY, CLEANER_LIVE_RATIO_DEFAULT);
    if (ratio < 0 || ratio > 1) {
      throw new IllegalArgumentException(CLEANER_LIVE_RATIO_KEY + " must be between 0 and 1, got " + ratio);
    }
    return ratio;
  }

  public static boolean recoveryQuarantine(Configuration conf) {
    return conf.getBoolean(RECOVERY_QUARANTINE_KEY, RECOVERY_QUARANTINE_DEFAULT);
  }

  /** {@link #SCRUBBER_RATE_KEY} in bytes per second (0: off). */
  public static long scrubberRate(Configuration conf) {
    return conf.getLongBytes(SCRUBBER_RATE_KEY, SCRUBBER_RATE_DEFAULT);
  }

  /** {@link #SCRUBBER_INTERVAL_KEY} in milliseconds. */
  public static long scrubberIntervalMillis(Configuration conf) {
    return conf.getTimeDuration(SCRUBBER_INTERVAL_KEY, SCRUBBER_INTERVAL_DEFAULT_MS,
        java.util.concurrent.TimeUnit.MILLISECONDS);
  }
}
