package io.fffs.datanode.store.persist;

import io.fffs.datanode.store.StoreFaultInjector;
import io.fffs.datanode.store.StoreStats;
import io.fffs.datanode.store.log.Block;
import io.fffs.datanode.store.log.BlockLog;
import io.fffs.datanode.store.log.BlockMap;
import io.fffs.datanode.store.log.Pages;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives disk space back once garbage collection has dropped entries (docs/history.md), as BlueSky's cleaner does:
 * a closed segment file whose live records — those an entry of some block's log still points to — fill less than
 * {@code fffs.datanode.cleaner.live-ratio} of it has them copied, checked, into a new segment file, and is deleted.
 * One thread, at most {@code fffs.datanode.cleaner.bytes-per-second} copied, a pass every
 * {@code fffs.datanode.cleaner.interval}.
 *
 * <p>Crash-safe at every step, because each step leaves the files in a state recovery reads right:
 * <ol>
 *   <li>copy the live records of the victims into a new file and close it cleanly (footer, fsync) — a crash before
 *       the footer leaves a torn copy that recovery cuts, and the originals are all still there;</li>
 *   <li>point each entry at its copy — in memory only; until the victims are gone, recovery finds each record twice
 *       and keeps the copy (the newer file);</li>
 *   <li>take each victim away from new readers ({@link SegmentPageReader#retire}; readers already in it finish) and
 *       delete it, then force the directory.</li>
 * </ol>
 * Nothing dropped here was kept: the retention state that dropped the entries was on disk before any was dropped
 * ({@code HistoryCollector}), so recovery drops again what it finds of them in files not yet rewritten.
 */
public final class SegmentCleaner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentCleaner.class);

  /** A live record: the entry (by block and HLC, which survive renumbering) and where its record is. */
  private record Live(long blockId, long hlc, long location, int pages) {}

  private final Path dataDir;
  private final int pageSize;
  private final long segmentFileSize;
  private final AtomicLong fileNumbers;
  private final BlockMap blocks;
  private final SegmentPageReader disk;
  private final Predicate<Path> writtenByPersistence;
  private final java.util.function.BooleanSupplier anythingCollected;
  private final Runnable beforePass;
  private final StoreStats stats;
  private final long bytesPerSecond;
  private final long intervalMillis;
  private final double liveRatio;
  private final Thread thread;
  private volatile boolean stopped;
  private volatile Path output;
  private long windowStartNanos;
  private long windowBytes;

  /**
   * @param anythingCollected whether garbage collection ever dropped anything here: until then every record is
   *     live, and recovery insists on each block's records in log order, which copying would break
   * @param beforePass run first in each pass (the collector's pending trims: what they drop need not be copied)
   * @param bytesPerSecond copy rate; {@code Long.MAX_VALUE} for no limit
   */
  public SegmentCleaner(Path dataDir, int pageSize, long segmentFileSize, PersistenceService persistence,
      BlockMap blocks, SegmentPageReader disk, java.util.function.BooleanSupplier anythingCollected,
      Runnable beforePass, StoreStats stats, long bytesPerSecond, long intervalMillis, double liveRatio) {
    this.dataDir = dataDir;
    this.pageSize = pageSize;
    this.segmentFileSize = segmentFileSize;
    this.fileNumbers = persistence.fileNumbers();
    this.writtenByPersistence = persistence::isOpenFile;
    this.anythingCollected = anythingCollected;
    this.beforePass = beforePass;
    this.blocks = blocks;
    this.disk = disk;
    this.stats = stats;
    this.bytesPerSecond = bytesPerSecond;
    this.intervalMillis = intervalMillis;
    this.liveRatio = liveRatio;
    this.thread = new Thread(this::run, "fffs-segment-cleaner");
    thread.setDaemon(true);
  }

  public void start() {
    thread.start();
  }

  /** Whether {@code file} is the one the cleaner is writing (it has no footer yet). */
  public boolean isOpenFile(Path file) {
    return file.equals(output);
  }

  private void run() {
    while (!stopped) {
      try {
        TimeUnit.MILLISECONDS.sleep(intervalMillis);
        clean();
      } catch (InterruptedException e) {
        return;
      } catch (IOException | RuntimeException e) {
        LOG.warn("Segment cleaner pass failed; will try again: {}", e.toString());
      }
    }
  }

  /**
   * One pass: cleans every closed segment file whose live records fill less than the live ratio; returns how many
   * files it deleted. A fault hook that throws stops the pass where it is (a simulated crash).
   */
  public synchronized int clean() throws IOException {
    if (!anythingCollected.getAsBoolean()) {
      return 0;
    }
    beforePass.run();
    Map<Long, List<Live>> live = liveRecords();
    List<Path> victims = new ArrayList<>();
    Map<Path, Long> liveBytes = new HashMap<>();
    for (Path file : SegmentFormat.list(dataDir)) {
      if (writtenByPersistence.test(file) || isOpenFile(file)) {
        continue;
      }
      long bytes = 0;
      for (Live record : live.getOrDefault(SegmentFormat.fileNumberOf(file), List.of())) {
        bytes += SegmentFormat.recordBytes(record.pages, pageSize);
      }
      long size = Files.size(file);
      if (bytes < liveRatio * size) {
        victims.add(file);
        liveBytes.put(file, bytes);
      }
    }
    if (victims.isEmpty()) {
      return 0;
    }
    victims.sort(Comparator.comparingDouble(f -> liveBytes.get(f) / (double) Math.max(1, sizeOf(f))));
    Map<Long, Long> moved = copy(victims, live);
    remap(victims, live, moved);
    StoreFaultInjector injector = StoreFaultInjector.get();
    for (Path victim : victims) {
      injector.cleanerBeforeDelete(victim);
      long size = sizeOf(victim);
      disk.retire(SegmentFormat.fileNumberOf(victim));
      Files.deleteIfExists(victim);
      stats.cleanerBytesFreed.add(size);
      if (liveBytes.get(victim) == 0) {
        stats.segmentsDeletedEmpty.increment();
      } else {
        stats.segmentsCleaned.increment();
      }
    }
    forceDirectory();
    LOG.info("Segment cleaner: {} files deleted, {} live records copied", victims.size(), moved.size());
    return victims.size();
  }

  /** Every record an entry points to, by file number. */
  private Map<Long, List<Live>> liveRecords() {
    Map<Long, List<Live>> live = new HashMap<>();
    for (Block block : blocks.all()) {
      block.readLock().lock();
      try {
        BlockLog log = block.log();
        for (int i = 0; i < log.count(); i++) {
          long location = log.diskLoc(i);
          if (location != BlockLog.NONE) {
            live.computeIfAbsent(SegmentFormat.fileOf(location), f -> new ArrayList<>()).add(new Live(block.id(),
                log.hlc(i), location, Pages.ofEntry(log.op(i), log.offset(i), log.length(i), pageSize)));
          }
        }
      } finally {
        block.readLock().unlock();
      }
    }
    return live;
  }

  /**
   * Copies the live records of the victims, checked, into new segment files closed cleanly (footer, fsync); returns
   * each old location's new one.
   */
  private Map<Long, Long> copy(List<Path> victims, Map<Long, List<Live>> live) throws IOException {
    Map<Long, Long> moved = new HashMap<>();
    SegmentWriter writer = new SegmentWriter(dataDir, pageSize, segmentFileSize, fileNumbers, 0, 1 << 20);
    windowStartNanos = System.nanoTime();
    windowBytes = 0;
    StoreFaultInjector injector = StoreFaultInjector.get();
    boolean wrote = false;
    try {
      for (Path victim : victims) {
        List<Live> records = new ArrayList<>(live.getOrDefault(SegmentFormat.fileNumberOf(victim), List.of()));
        records.sort(Comparator.comparingLong(Live::location));
        try (FileChannel in = FileChannel.open(victim, StandardOpenOption.READ)) {
          for (Live record : records) {
            ByteBuffer bytes = readChecked(in, victim, record);
            writer.ensureRoom(bytes.remaining());
            output = writer.path();
            long location = SegmentFormat.location(writer.fileNumber(), writer.position());
            writer.write(new ByteBuffer[] {bytes});
            writer.countEntries(1);
            moved.put(record.location, location);
            stats.cleanerBytesCopied.add(bytes.limit());
            if (!wrote) {
              wrote = true;
              injector.cleanerMidCopy(victim);
            }
            throttle(bytes.limit());
          }
        }
      }
      Path written = writer.path();
      writer.closeCleanly();
      if (written != null) {
        injector.cleanerAfterCopy(written);
      }
      return moved;
    } catch (IOException | RuntimeException e) {
      writer.abandon();
      throw e;
    } finally {
      output = null;
    }
  }

  /**
   * The record of {@code record} read whole and checked: its record CRC32C and every page's. A damaged record is
   * not copied over a good original: the pass stops and the file stays.
   */
  private ByteBuffer readChecked(FileChannel in, Path file, Live record) throws IOException {
    int bytes = (int) SegmentFormat.recordBytes(record.pages, pageSize);
    ByteBuffer buffer = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    SegmentPageReader.readFully(in, buffer, SegmentFormat.offsetOf(record.location));
    buffer.flip();
    int body = (int) SegmentFormat.bodyOffset(record.pages, pageSize);
    int fixed = SegmentFormat.BODY_FIXED_BYTES + 4 * record.pages;
    CRC32C crc = new CRC32C();
    crc.update(buffer.array(), 0, SegmentFormat.PREFIX_BYTES);
    crc.update(buffer.array(), body, fixed);
    boolean good = buffer.getInt(0) == SegmentFormat.ENTRY_MAGIC && (int) crc.getValue() == buffer.getInt(body + fixed)
        && buffer.getLong(body + 16) == record.hlc;
    for (int j = 0; good && j < record.pages; j++) {
      crc.reset();
      crc.update(buffer.array(), SegmentFormat.PREFIX_BYTES + j * pageSize, pageSize);
      good = (int) crc.getValue() == buffer.getInt(body + SegmentFormat.BODY_FIXED_BYTES + 4 * j);
    }
    if (!good) {
      stats.crcFailures.increment();
      throw new IOException("segment file " + file + " is corrupt at offset " + SegmentFormat.offsetOf(
          record.location) + ": the record of block " + record.blockId + " fails its checks; it is left in place");
    }
    return buffer;
  }

  /** Points each moved entry at its copy, if it still points at the original. */
  private void remap(List<Path> victims, Map<Long, List<Live>> live, Map<Long, Long> moved) throws IOException {
    for (Path victim : victims) {
      for (Live record : live.getOrDefault(SegmentFormat.fileNumberOf(victim), List.of())) {
        Block block = blocks.get(record.blockId);
        Long copy = moved.get(record.location);
        if (block == null || copy == null) {
          continue;
        }
        block.writeLock().lock();
        try {
          BlockLog log = block.log();
          int index = log.indexOfHlc(record.hlc);
          if (index >= 0 && log.diskLoc(index) == record.location) {
            log.setDiskLoc(index, copy);
          }
        } finally {
          block.writeLock().unlock();
        }
      }
    }
  }

  private long sizeOf(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return 0;
    }
  }

  private void forceDirectory() throws IOException {
    try (FileChannel dir = FileChannel.open(dataDir, StandardOpenOption.READ)) {
      dir.force(true);
    }
  }

  /** Keeps the copying at or below the configured rate by sleeping when ahead of it. */
  private void throttle(long bytes) throws IOException {
    if (bytesPerSecond == Long.MAX_VALUE) {
      return;
    }
    windowBytes += bytes;
    long aheadNanos = Scrubber.dueNanos(windowBytes, bytesPerSecond) - (System.nanoTime() - windowStartNanos);
    if (aheadNanos > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(aheadNanos);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("the segment cleaner was stopped");
      }
    }
  }

  @Override
  public void close() {
    stopped = true;
    thread.interrupt();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
