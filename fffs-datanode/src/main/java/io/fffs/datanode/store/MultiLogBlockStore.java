package io.fffs.datanode.store;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.arena.ArenaFiles;
import io.fffs.datanode.store.arena.PageArena;
import io.fffs.datanode.store.history.HistoryCollector;
import io.fffs.datanode.store.log.Block;
import io.fffs.datanode.store.log.BlockLog;
import io.fffs.datanode.store.log.BlockMap;
import io.fffs.datanode.store.log.PageVersionIndex;
import io.fffs.datanode.store.log.Pages;
import io.fffs.datanode.store.persist.DirectIo;
import io.fffs.datanode.store.persist.DirectoryLock;
import io.fffs.datanode.store.persist.DurabilityTracker;
import io.fffs.datanode.store.persist.PersistenceService;
import io.fffs.datanode.store.persist.PipelineEpochFile;
import io.fffs.datanode.store.persist.QuarantineFile;
import io.fffs.datanode.store.persist.Recovery;
import io.fffs.datanode.store.history.RetentionTable;
import io.fffs.datanode.store.persist.SegmentCleaner;
import io.fffs.datanode.store.persist.Scrubber;
import io.fffs.datanode.store.persist.SegmentPageReader;
import io.fffs.datanode.store.persist.SegmentUsage;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;

/**
 * The multi-log block store (paper §5, docs/design.md §4): one append-only log per block over a page arena on tmpfs,
 * a page version index per block, persistence threads writing log-structured segment files, FIFO eviction and
 * recovery. This class wires the parts together and holds the block map; the work is done by {@link BlockWriter},
 * {@link BlockReader}, {@link PersistenceService} and {@link Recovery}.
 *
 * <p>Open with {@link #open(Configuration, HybridLogicalClock)}: it recovers the blocks from
 * {@code fffs.datanode.data.dir}, creates the arena in {@code fffs.datanode.memory.dir}, starts pre-touching it
 * and starts the persistence threads. The clock is the DataNode's; every log entry ticks it once.
 */
public final class MultiLogBlockStore implements BlockStore {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MultiLogBlockStore.class);
  private final HybridLogicalClock clock;
  private final BlockMap blocks;
  private final PageArena arena;
  private final DurabilityTracker tracker;
  private final PersistenceService persistence;
  private final SegmentPageReader disk;
  private final DirectoryLock dataLock;
  private final BlockReader reader;
  private final BlockWriter writer;
  private final StoreStats stats;
  private final Scrubber scrubber;
  private final HistoryCollector collector;
  private final SegmentCleaner cleaner;
  private volatile boolean closed;
  private final java.util.Set<Long> quarantined;
  /** Null without persistence: epochs are then kept in memory only. */
  private final PipelineEpochFile epochs;
  private final Path dataDir;

  private MultiLogBlockStore(HybridLogicalClock clock, BlockMap blocks, PageArena arena, DurabilityTracker tracker,
      PersistenceService persistence, SegmentPageReader disk, DirectoryLock dataLock, StoreStats stats,
      long maxBlockSize, Scrubber scrubber, HistoryCollector collector, SegmentCleaner cleaner,
      java.util.Set<Long> quarantined, Path dataDir, PipelineEpochFile epochs, long checkedCrcBytes) {
    this.epochs = epochs;
    this.quarantined = quarantined;
    this.dataDir = dataDir;
    this.clock = clock;
    this.blocks = blocks;
    this.arena = arena;
    this.tracker = tracker;
    this.persistence = persistence;
    this.disk = disk;
    this.dataLock = dataLock;
    this.stats = stats;
    this.scrubber = scrubber;
    this.collector = collector;
    this.cleaner = cleaner;
    this.reader = new BlockReader(arena, disk, stats, checkedCrcBytes);
    this.writer = new BlockWriter(arena, reader, tracker, persistence, stats, maxBlockSize);
  }

  /** Recovers and opens the store configured by {@code conf} ({@link DataNodeConfigKeys}). */
  public static MultiLogBlockStore open(Configuration conf, HybridLogicalClock clock) throws FffsException {
    int pageSize = DataNodeConfigKeys.pageSize(conf);
    boolean persistent = DataNodeConfigKeys.persistenceEnabled(conf);
    StoreStats stats = new StoreStats();
    BlockMap blocks = new BlockMap();
    DurabilityTracker tracker = new DurabilityTracker(clock, persistent);
    Path dataDir = DataNodeConfigKeys.dataDir(conf);
    DirectoryLock dataLock = null;
    PageArena arena = null;
    HistoryCollector collector = new HistoryCollector(dataDir, blocks, pageSize, persistent, stats);
    java.util.Set<Long> quarantined = java.util.concurrent.ConcurrentHashMap.newKeySet();
    PipelineEpochFile epochs = null;
    try {
      long nextFile = 0;
      if (persistent) {
        dataLock = DirectoryLock.acquire(dataDir, DataNodeConfigKeys.DATA_DIR_KEY);
        java.util.Set<Long> listed = QuarantineFile.read(dataDir);
        quarantined.addAll(listed);
        Recovery.Result recovered = Recovery.run(dataDir, pageSize, blocks, stats,
            !HistoryCollector.hasCollected(dataDir), DataNodeConfigKeys.recoveryQuarantine(conf) ? quarantined : null);
        listed.forEach(blocks::remove);
        if (!quarantined.equals(listed)) {
          QuarantineFile.write(dataDir, quarantined);
        }
        tracker.recovered(recovered.maxHlc());
        nextFile = recovered.nextFileNumber();
        collector.recover();  // what was collected before the restart is dropped again
        epochs = recoverEpochs(dataDir, blocks);
      }
      long slots = DataNodeConfigKeys.memoryCapacity(conf) / pageSize;
      if (slots < 1 || slots > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(DataNodeConfigKeys.MEMORY_CAPACITY_KEY + " must hold from 1 to 2^31-1"
            + " pages of " + pageSize + " B, got " + conf.get(DataNodeConfigKeys.MEMORY_CAPACITY_KEY));
      }
      ArenaFiles files = new ArenaFiles(DataNodeConfigKeys.memoryDir(conf), pageSize, (int) slots,
          DataNodeConfigKeys.memorySegmentSize(conf));
      arena = new PageArena(files, persistent, DataNodeConfigKeys.memoryWaitTimeoutNanos(conf), stats);
      if (DataNodeConfigKeys.memoryPretouch(conf)) {
        arena.startPretouch();
      }
      PersistenceService persistence = null;
      if (persistent) {
        persistence = new PersistenceService(dataDir, DataNodeConfigKeys.persistenceThreads(conf),
            DataNodeConfigKeys.persistenceBatchBytes(conf), DataNodeConfigKeys.persistenceBatchIntervalNanos(conf),
            DataNodeConfigKeys.persistenceInPlaceMinPages(conf), DataNodeConfigKeys.persistenceChunkCrcBudget(conf),
            DataNodeConfigKeys.segmentFileSize(conf), nextFile,
            arena, tracker, stats, DirectIo.choose(DataNodeConfigKeys.persistenceDirectIo(conf), dataDir,
                DataNodeConfigKeys.PERSISTENCE_DIRECT_IO_KEY),
            new PersistenceService.SyncPolicy(DataNodeConfigKeys.persistenceSyncIntervalNanos(conf),
                DataNodeConfigKeys.persistenceSyncBytes(conf)));
        persistence.start();
      }
      SegmentPageReader disk = new SegmentPageReader(dataDir, pageSize, stats,
          DataNodeConfigKeys.segmentOpenFiles(conf),
          SegmentPageReader.windowBytes(DataNodeConfigKeys.segmentFileSize(conf), pageSize));
      SegmentCleaner cleaner = null;
      long cleanRate = DataNodeConfigKeys.cleanerRate(conf);
      if (persistent && cleanRate > 0) {
        cleaner = new SegmentCleaner(dataDir, pageSize, DataNodeConfigKeys.segmentFileSize(conf), persistence, blocks,
            disk, () -> HistoryCollector.hasCollected(dataDir), collector::trimPending, stats, cleanRate,
            DataNodeConfigKeys.cleanerIntervalMillis(conf), DataNodeConfigKeys.cleanerLiveRatio(conf));
        cleaner.start();
      }
      Scrubber scrubber = null;
      long scrubRate = DataNodeConfigKeys.scrubberRate(conf);
      if (persistent && scrubRate > 0) {
        SegmentCleaner copying = cleaner;
        PersistenceService writing = persistence;
        scrubber = new Scrubber(dataDir, pageSize, stats, scrubRate, DataNodeConfigKeys.scrubberIntervalMillis(conf),
            file -> writing.isOpenFile(file) || copying != null && copying.isOpenFile(file));
        scrubber.start();
      }
      return new MultiLogBlockStore(clock, blocks, arena, tracker, persistence, disk, dataLock, stats,
          DataNodeConfigKeys.blockMaxSize(conf), scrubber, collector, cleaner, quarantined, dataDir, epochs,
          persistent ? DataNodeConfigKeys.readCheckedCrcs(conf) : 0);
    } catch (FffsException | RuntimeException e) {
      if (epochs != null) {
        closeQuietly(epochs);
      }
      if (arena != null) {
        arena.close();
      }
      if (dataLock != null) {
        dataLock.close();
      }
      throw e;
    }
  }

  /** Gives each recovered block the highest pipeline epoch recorded for it; keeps only theirs in the file. */
  private static PipelineEpochFile recoverEpochs(Path dataDir, BlockMap blocks) throws FffsException {
    java.util.Map<Long, Long> recorded = PipelineEpochFile.read(dataDir);
    java.util.Map<Long, Long> kept = new java.util.HashMap<>();
    for (java.util.Map.Entry<Long, Long> entry : recorded.entrySet()) {
      Block block = blocks.get(entry.getKey());
      if (block != null) {
        block.setPipelineEpoch(entry.getValue());
        kept.put(entry.getKey(), entry.getValue());
      }
    }
    return PipelineEpochFile.rewrite(dataDir, kept);
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      LOG.warn("Could not close {}: {}", closeable, e.toString());
    }
  }

  @Override
  public WriteResult write(long blockId, long offset, ByteBuffer data, WriteOptions options) throws FffsException {
    Block block = startMutation(blockId);
    try {
      return writer.write(block, offset, data, options);
    } catch (FffsException e) {
      stats.writesRefused.increment();
      throw e;
    } catch (InterruptedException e) {
      throw interrupted("writing block " + blockId);
    } finally {
      block.writerLock().unlock();
    }
  }

  @Override
  public PageReservation reserve(long blockId, long offset, int length, WriteOptions options)
      throws FffsException {
    Block block = startMutation(blockId);
    boolean handedOver = false;
    try {
      PageReservation reservation = writer.reserve(block, offset, length, options, block.writerLock()::unlock);
      handedOver = true;
      return reservation;
    } catch (FffsException e) {
      stats.writesRefused.increment();
      throw e;
    } catch (InterruptedException e) {
      throw interrupted("reserving pages of block " + blockId);
    } finally {
      if (!handedOver) {
        block.writerLock().unlock();
      }
    }
  }

  @Override
  public WriteResult truncate(long blockId, long newLength) throws FffsException {
    return truncate(blockId, newLength, null);
  }

  @Override
  public WriteResult truncate(long blockId, long newLength, ReplicaStamp stamp) throws FffsException {
    Block block = startMutation(blockId);
    try {
      return writer.truncate(block, newLength, stamp);
    } finally {
      block.writerLock().unlock();
    }
  }

  @Override
  public HlcTimestamp openReplica(long blockId, ReplicaRole role) throws FffsException {
    return openReplica(blockId, role, 0);
  }

  @Override
  public void checkPipelineEpoch(long blockId, long epoch) throws FffsException {
    HlcTimestamp.checkWire(epoch, "the pipeline epoch");
    Block block = blocks.get(blockId);
    if (block != null && epoch != 0) {
      checkEpoch(block, epoch);
    }
  }

  private static void checkEpoch(Block block, long epoch) throws FffsException {
    if (Long.compareUnsigned(epoch, block.pipelineEpoch()) < 0) {
      throw new FffsException(ErrorCode.REPLICA_STALE, "block " + block.id() + " was opened here by a newer write"
          + " pipeline (epoch " + HlcTimestamp.valueOf(block.pipelineEpoch()) + ") than this request's ("
          + HlcTimestamp.valueOf(epoch) + "): its writer was replaced, so nothing was changed");
    }
  }

  @Override
  public HlcTimestamp openReplica(long blockId, ReplicaRole role, long epoch) throws FffsException {
    return openReplica(blockId, role, epoch, null);
  }

  @Override
  public HlcTimestamp openReplica(long blockId, ReplicaRole role, long epoch, MomentSet kept)
      throws FffsException {
    HlcTimestamp.checkWire(epoch, "the pipeline epoch");
    Block block = startMutation(blockId, role == ReplicaRole.FOLLOWER ? kept : null);
    try {
      if (epoch != 0) {
        checkEpoch(block, epoch);
        if (epochs != null && epoch != block.pipelineEpoch()) {
          epochs.record(blockId, epoch);  // before the answer: a restart keeps refusing older pipelines
        }
        block.setPipelineEpoch(epoch);
      }
      block.writeLock().lock();
      try {
        switch (role) {
          case PRIMARY:
            block.setStale(false);
            block.setReplicaFrontier(Block.NOT_FOLLOWING);
            break;
          case FOLLOWER:
            // Valid: the client takes this in before its first write, so the primary stamps above it.
            block.setStale(false);
            block.setReplicaFrontier(clock.now().packed());
            break;
          case STALE:
            int last = block.log().count() - 1;
            block.setReplicaFrontier(last < 0 ? 0 : block.log().hlc(last));
            block.setStale(true);
            break;
          default:
            throw new IllegalArgumentException(role.toString());
        }
      } finally {
        block.writeLock().unlock();
      }
      return clock.now();
    } finally {
      block.writerLock().unlock();
    }
  }

  @Override
  public void endReplica(long blockId, HlcTimestamp frontier) throws FffsException {
    Block block = startMutation(blockId);
    try {
      if (block.stale() || block.replicaFrontier() == Block.NOT_FOLLOWING) {
        return;
      }
      clock.merge(frontier);  // before the block stops following, so this clock is past every entry it holds
      block.writeLock().lock();
      try {
        block.setReplicaFrontier(Block.NOT_FOLLOWING);
      } finally {
        block.writeLock().unlock();
      }
    } finally {
      block.writerLock().unlock();
    }
  }

  @Override
  public boolean endClosedReplica(long blockId, long lastEntryHlc, long pipelineEpoch) throws FffsException {
    checkOpen();
    Block block = blocks.get(blockId);
    if (block == null || !block.writerLock().tryLock()) {
      return false;  // not here, or being written: the NameNode asks again while it still stands so
    }
    try {
      int last = block.log().count() - 1;
      if ((block.replicaFrontier() == Block.NOT_FOLLOWING && !block.stale()) || last < 0
          || block.log().hlc(last) != lastEntryHlc || block.pipelineEpoch() != pipelineEpoch) {
        return false;
      }
      clock.merge(HlcTimestamp.valueOf(lastEntryHlc));  // before it stops following: this clock is past every entry
      block.writeLock().lock();
      try {
        block.setStale(false);
        block.setReplicaFrontier(Block.NOT_FOLLOWING);
      } finally {
        block.writeLock().unlock();
      }
      return true;
    } finally {
      block.writerLock().unlock();
    }
  }

  @Override
  public WriteResult delete(long blockId) throws FffsException {
    Block block = startMutation(blockId);
    try {
      return writer.delete(block);
    } finally {
      block.writerLock().unlock();
    }
  }

  /** Checks the store takes writes and returns the block with its writer lock held. */
  private Block startMutation(long blockId) throws FffsException {
    return startMutation(blockId, null);
  }

  /**
   * Checks the store takes changes and locks the block for one, creating it if new; a block holding no entry yet
   * takes {@code copiedKept} (not null: a copy of a trimmed history) as the moments it answers for.
   */
  private Block startMutation(long blockId, MomentSet copiedKept) throws FffsException {
    checkOpen();
    if (persistence != null) {
      persistence.checkHealthy();
    }
    while (true) {
      Block block = blocks.getOrCreate(blockId);
      if (copiedKept != null) {
        takeCopiedKept(block, copiedKept);
      } else if (!block.known()) {
        collector.adopt(block);  // a block below the last retention table's ids must survive a restart
      }
      block.writerLock().lock();
      if (blocks.get(blockId) == block) {
        return block;
      }
      block.writerLock().unlock();  // dropped meanwhile (dropReplica, a retention table): a new replica begins
    }
  }

  /**
   * Gives a block holding no entry yet the kept moments of the copy being opened (narrowed by a table applied
   * meanwhile) and records them; a block already here keeps its own history.
   */
  private void takeCopiedKept(Block block, MomentSet copiedKept) throws FffsException {
    MomentSet before;
    MomentSet kept;
    block.writeLock().lock();
    try {
      before = block.kept();
      kept = before == null ? copiedKept : copiedKept.intersect(before);
      if (block.log().count() > 0 || kept.equals(before)) {
        kept = null;
      } else {
        block.setKept(kept);
      }
    } finally {
      block.writeLock().unlock();
    }
    if (kept == null && block.known()) {
      return;
    }
    try {
      collector.adopt(block);  // the copy's kept moments must survive a restart
    } catch (FffsException e) {
      block.writeLock().lock();
      try {
        if (kept != null && kept.equals(block.kept())) {
          block.setKept(before);  // not recorded: the next open tries again (unless a table narrowed them since)
        }
      } finally {
        block.writeLock().unlock();
      }
      throw e;
    }
  }

  @Override
  public ReadView read(long blockId, long offset, int length, TimeSpec time) throws FffsException {
    checkOpen();
    // Wait first: a block unknown now may still be created at or before a time not yet passed.
    awaitPast(blockId, time);
    return reader.read(existing(blockId, time.toString()), Selector.of(time), offset, length, false);
  }

  @Override
  public void releaseReadMappings() {
    disk.dropIdleWindows();
  }

  @Override
  public ReadView readForSending(long blockId, long offset, int length, TimeSpec time) throws FffsException {
    checkOpen();
    awaitPast(blockId, time);
    return reader.read(existing(blockId, time.toString()), Selector.of(time), offset, length, true);
  }

  @Override
  public LocalView locate(long blockId, long offset, int length, TimeSpec time) throws FffsException {
    checkOpen();
    awaitPast(blockId, time);
    return reader.locate(existing(blockId, time.toString()), Selector.of(time), offset, length);
  }

  @Override
  public ReadView readAtLogIndex(long blockId, int logIndex, long offset, int length) throws FffsException {
    checkOpen();
    return reader.read(existing(blockId, "at log index " + logIndex), Selector.logIndex(logIndex), offset, length,
        false);
  }

  @Override
  public BlockInfo info(long blockId, TimeSpec time) throws FffsException {
    checkOpen();
    awaitPast(blockId, time);
    Block block = blocks.get(blockId);
    if (block == null) {
      return new BlockInfo(blockId, false, 0, HlcTimestamp.ZERO, -1);
    }
    return reader.info(block, Selector.of(time));
  }

  @Override
  public BlockInfo infoAtLogIndex(long blockId, int logIndex) throws FffsException {
    checkOpen();
    return reader.info(existing(blockId, "at log index " + logIndex), Selector.logIndex(logIndex));
  }

  private Block existing(long blockId, String when) throws FffsException {
    Block block = blocks.get(blockId);
    if (block == null) {
      throw new FffsException(ErrorCode.NOT_FOUND, "block " + blockId + " is not stored on this DataNode (asked "
          + when + ")");
    }
    return block;
  }

  /**
   * The wait-until-past rule: a system time is answered once this node's clock has passed it and, for a block whose
   * entries another DataNode stamps, once the replica's frontier has ({@link ReplicaFrontier}).
   */
  private void awaitPast(long blockId, TimeSpec time) throws FffsException {
    try {
      if (time.kind() == TimeSpec.Kind.SYSTEM) {
        clock.awaitPast(time.micros(), "block " + blockId);
      }
      Block block = blocks.get(blockId);
      if (block != null) {
        ReplicaFrontier.await(block, time, clock.maxOffsetMicros());
      }
    } catch (InterruptedException e) {
      throw interrupted("waiting for the clock to pass " + time);
    }
  }

  @Override
  public void sync(Collection<Long> blockIds) throws FffsException {
    checkOpen();
    if (persistence == null) {
      throw new FffsException(ErrorCode.IO_ERROR, "cannot sync: persistence is switched off ("
          + DataNodeConfigKeys.PERSISTENCE_ENABLED_KEY + "=false), so nothing ever becomes durable");
    }
    try {
      for (long blockId : blockIds) {
        Block block = blocks.get(blockId);
        if (block != null) {
          int target;
          int epoch;
          block.readLock().lock();
          try {
            target = block.log().count();
            epoch = block.historyEpoch();
          } finally {
            block.readLock().unlock();
          }
          persistence.awaitDurable(block, target, epoch);
        }
      }
    } catch (InterruptedException e) {
      throw interrupted("waiting for blocks " + blockIds + " to become durable");
    }
  }

  @Override
  public List<LogEntry> logEntries(long blockId) throws FffsException {
    checkOpen();
    Block block = blocks.get(blockId);
    if (block == null) {
      return List.of();
    }
    block.readLock().lock();
    try {
      return entriesOf(block.log());
    } finally {
      block.readLock().unlock();
    }
  }

  @Override
  public LogSnapshot logSnapshot(long blockId) throws FffsException {
    checkOpen();
    Block block = blocks.get(blockId);
    if (block == null) {
      return new LogSnapshot(List.of(), null, (from, to) -> new BitSet(), () -> { });
    }
    block.readLock().lock();
    try {
      List<LogEntry> entries = entriesOf(block.log());
      AtomicBoolean released = new AtomicBoolean();
      block.holdHistory();  // under the read lock: a trim checks the hold under the write lock
      return new LogSnapshot(entries, block.kept(), (from, to) -> changedPages(block, from, to), () -> {
        if (released.compareAndSet(false, true)) {
          block.releaseHistory();
        }
      });
    } finally {
      block.readLock().unlock();
    }
  }

  /** {@link LogSnapshot.PageChanges#between} of {@code block}. */
  private BitSet changedPages(Block block, int from, int to) throws FffsException {
    block.readLock().lock();
    try {
      BlockLog log = block.log();
      if (to < 0 || to >= log.count() || from < -1 || from >= to) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "block " + block.id() + " has no states " + from
            + " and " + to + " to compare (its log holds " + log.count() + " entries)");
      }
      PageVersionIndex index = block.index();
      int pages = Pages.covering(0, log.lengthAfter(to), arena.pageSize());
      BitSet changed = new BitSet(pages);
      for (int page = 0; page < pages; page++) {
        if (from < 0 || index.versionAt(page, to) != index.versionAt(page, from)) {
          changed.set(page);
        }
      }
      return changed;
    } finally {
      block.readLock().unlock();
    }
  }

  /** The log's entries; caller holds the block's read lock. */
  private static List<LogEntry> entriesOf(BlockLog log) {
    List<LogEntry> entries = new ArrayList<>(log.count());
    for (int i = 0; i < log.count(); i++) {
      entries.add(new LogEntry(log.op(i), log.hlc(i), log.userTime(i), log.offset(i), log.length(i),
          log.lengthAfter(i)));
    }
    return entries;
  }

  @Override
  public long logCompleteFromMicros(long blockId) {
    Block block = blocks.get(blockId);
    MomentSet kept = block == null ? null : block.kept();
    return kept == null ? 0 : kept.floor();
  }

  @Override
  public DiskUsage diskUsage() {
    return persistence == null ? DiskUsage.NONE : SegmentUsage.of(blocks, dataDir, arena.pageSize());
  }

  @Override
  public int pageSize() {
    return arena.pageSize();
  }

  @Override
  public java.util.Set<Long> quarantined() {
    return java.util.Set.copyOf(quarantined);
  }

  @Override
  public boolean dropReplica(long blockId) throws FffsException {
    checkOpen();
    if (quarantined.remove(blockId)) {
      QuarantineFile.write(dataDir, quarantined);
      return true;
    }
    Block block = blocks.get(blockId);
    if (block == null) {
      return true;
    }
    if (!block.writerLock().tryLock()) {
      return false;  // being written: asked again with a later heartbeat
    }
    try {
      int count = block.log().count();
      if (block.replicaFrontier() != Block.NOT_FOLLOWING
          || (persistence != null && (block.durableCount() < count || block.enqueuedCount() < count))) {
        if (persistence != null && block.durableCount() < count) {
          persistence.requestSync();  // written entries become durable at the next fsync, not the sync interval
        }
        return false;
      }
      // Its records in the segment files go when the cleaner rewrites them; a restart before that brings the
      // replica back, reported, and the NameNode asks again.
      blocks.remove(blockId);
      stats.blocksCollected.increment();
      return true;
    } finally {
      block.writerLock().unlock();
    }
  }

  @Override
  public HlcTimestamp durableFrontier() {
    return tracker.frontier();
  }

  @Override
  public List<BlockSummary> blockReport() {
    List<BlockSummary> report = new ArrayList<>();
    for (Block block : blocks.all()) {
      BlockSummary summary = summary(block);
      if (summary != null) {
        report.add(summary);
      }
    }
    return report;
  }

  @Override
  public BlockSummary summary(long blockId) {
    Block block = blocks.get(blockId);
    return block == null ? null : summary(block);
  }

  private static BlockSummary summary(Block block) {
    block.readLock().lock();
    try {
      BlockLog log = block.log();
      int last = log.count() - 1;
      return !log.existsAfter(last) ? null : new BlockSummary(block.id(), log.lengthAfter(last),
          HlcTimestamp.valueOf(log.hlc(last)), block.pipelineEpoch(), block.replicaFrontier(), block.stale());
    } finally {
      block.readLock().unlock();
    }
  }

  @Override
  public MemoryUsage memoryUsage() {
    long logBytes = 0;
    long indexBytes = 0;
    for (Block block : blocks.all()) {
      block.readLock().lock();
      try {
        logBytes += block.log().memoryBytes();
        indexBytes += block.index().memoryBytes();
      } finally {
        block.readLock().unlock();
      }
    }
    long pageSize = arena.pageSize();
    return new MemoryUsage(pageSize * arena.slotCount(), pageSize * arena.residentPages(), logBytes, indexBytes,
        arena.allocatedPages());
  }

  @Override
  public StoreStats stats() {
    return stats;
  }

  @Override
  public void applyRetention(RetentionTable table) throws FffsException {
    checkOpen();
    collector.apply(table);
    syncForPendingTrims();
  }

  /** Trims wait for their blocks' entries to be durable: the next fsync, asked for now, instead of the interval. */
  private void syncForPendingTrims() {
    if (persistence != null && collector.pendingTrims() > 0) {
      persistence.requestSync();
    }
  }

  @Override
  public long retentionGeneration() {
    return collector.generation();
  }

  @Override
  public void collectHistory() {
    collector.trimPending();
    syncForPendingTrims();
  }

  /** Runs a pass of the segment cleaner now; the number of files it deleted (0 when it is switched off). */
  public int cleanSegments() throws FffsException {
    checkOpen();
    if (cleaner == null) {
      return 0;
    }
    try {
      return cleaner.clean();
    } catch (java.io.IOException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "the segment cleaner failed: " + e.getMessage(), e);
    }
  }

  @Override
  public ScrubberStatus scrubberStatus() {
    return scrubber == null ? ScrubberStatus.DISABLED : scrubber.status();
  }

  private void checkOpen() throws FffsException {
    if (closed) {
      throw new FffsException(ErrorCode.IO_ERROR, "the block store is closed");
    }
  }

  private static FffsException interrupted(String what) {
    Thread.currentThread().interrupt();
    return new FffsException(ErrorCode.IO_ERROR, "interrupted while " + what);
  }

  @Override
  public void close() throws FffsException {
    if (closed) {
      return;
    }
    closed = true;
    if (scrubber != null) {
      scrubber.close();
    }
    if (cleaner != null) {
      cleaner.close();
    }
    try {
      if (persistence != null) {
        persistence.shutdown();
      }
    } catch (InterruptedException e) {
      throw interrupted("persisting the last entries at close");
    } finally {
      arena.close();
      disk.close();
      if (epochs != null) {
        closeQuietly(epochs);
      }
      if (dataLock != null) {
        dataLock.close();
      }
    }
  }
}
