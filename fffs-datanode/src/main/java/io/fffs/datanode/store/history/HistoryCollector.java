package io.fffs.datanode.store.history;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import io.fffs.datanode.store.StoreStats;
import io.fffs.datanode.store.log.Block;
import io.fffs.datanode.store.log.BlockMap;
import io.fffs.datanode.store.log.HistoryTrim;
import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Garbage collection of history on a DataNode (docs/history.md): applies the NameNode's retention tables to the
 * blocks. For a newer table it first writes what every block keeps to the {@link RetentionStateFile}, then drops the
 * blocks no kept version lists, marks on every other block the moments it still answers for (reads of any other
 * moment are refused from then on) and trims its log to the entries those moments read ({@link HistoryTrim}). A
 * block that is being written or has entries not yet durable is trimmed later ({@link #trimPending}); its reads are
 * already refused where they must be. Disk space comes back when the segment cleaner rewrites the files the dropped
 * entries were in.
 */
public final class HistoryCollector {
  private static final Logger LOG = LoggerFactory.getLogger(HistoryCollector.class);

  private final Path dataDir;
  private final BlockMap blocks;
  private final int pageSize;
  private final boolean persistent;
  private final StoreStats stats;
  private final Set<Long> pending = ConcurrentHashMap.newKeySet();
  /**
   * Blocks taken in since the last table although below its {@code nextBlockId}, and copies of trimmed histories:
   * their kept moments, or null for whole ({@link AdoptedBlocksFile}).
   */
  private final Map<Long, MomentSet> adopted = new HashMap<>();
  private volatile long generation;
  /** Blocks below it that begin here are adopted; raised by {@link #apply} before it reads the block map. */
  private volatile long nextBlockId;
  /** Whether {@link #adopted} holds a copy's kept moments: then every block's first change looks at it. */
  private volatile boolean copies;
  /** Whether the adopted-blocks file on disk is whole and of {@link #generation}: appends may follow. */
  private boolean listReady;
  /** Whether the last table's state write failed, so the generation on disk is not known. */
  private boolean stateUnsure;

  /**
   * @param persistent whether entries become durable; without persistence a block is trimmed whenever no writer
   *     holds it
   */
  public HistoryCollector(Path dataDir, BlockMap blocks, int pageSize, boolean persistent, StoreStats stats) {
    this.dataDir = dataDir;
    this.blocks = blocks;
    this.pageSize = pageSize;
    this.persistent = persistent;
    this.stats = stats;
  }

  /** Whether garbage collection ever applied a table to the store in {@code dataDir}. */
  public static boolean hasCollected(Path dataDir) {
    return java.nio.file.Files.exists(dataDir.resolve(RetentionStateFile.NAME));
  }

  /** The generation of the last table applied (0: none). */
  public long generation() {
    return generation;
  }

  /**
   * At start-up, after recovery: applies the state on disk again, so that entries recovery found in segment files
   * not yet rewritten are dropped again and reads answer as they did before the restart.
   */
  public void recover() throws FffsException {
    if (!persistent) {
      return;
    }
    RetentionStateFile.State state = RetentionStateFile.read(dataDir);
    long stateGeneration = state == null ? 0 : state.generation();
    long bound = state == null ? 0 : state.nextBlockId();
    Map<Long, MomentSet> taken = AdoptedBlocksFile.read(dataDir, stateGeneration, bound);
    for (Block block : new ArrayList<>(blocks.all())) {
      MomentSet copied = taken.get(block.id());
      if (block.id() >= bound) {
        if (copied != null) {
          block.setKept(copied);  // a copy of a trimmed history, newer than every table: as its source kept it
        }
        continue;
      }
      MomentSet kept = state.kept().get(block.id());
      if (kept == null) {
        if (taken.containsKey(block.id())) {
          block.setKnown();  // an adopted block is kept whole (or as its source kept it) until the next table
          block.setKept(copied);
        } else {
          blocks.remove(block.id());
        }
        continue;
      }
      if (copied != null) {
        kept = kept.intersect(copied);  // the copy was recorded after this table's state was written
      }
      block.setKnown();
      block.setKept(kept);
      Block trimmed = HistoryTrim.trimmed(block, kept, pageSize);
      if (trimmed != null) {
        block.replaceHistory(trimmed.log(), trimmed.index());
      }
    }
    if (state == null && taken.isEmpty()) {
      return;  // no table, no copy of a trimmed history: nothing to list
    }
    synchronized (this) {
      adopted.putAll(taken);
      copies = adopted.values().stream().anyMatch(Objects::nonNull);
      nextBlockId = bound;
      generation = stateGeneration;
      // Written whole: no torn tail ahead of later appends, and a list of this generation (a data directory from an
      // earlier build has none; a crash right after a table's state was written leaves the older table's).
      writeAdopted();
    }
  }

  /**
   * Called at a block's first change in this process, before it is answered: a block below the last table's
   * {@code nextBlockId} that its state on disk does not list is recorded ({@link AdoptedBlocksFile}), else recovery
   * would take it for one that table dropped; so is a copy of a trimmed history (its {@link Block#kept} set before
   * this call), with the moments it keeps, which a restart gives it back. Blocks the state lists or the list holds
   * are {@link Block#known}; a copy's kept moments are recorded again at a later call if they differ. The
   * block must be in the block map already, so that a table applied meanwhile sees it: {@link #apply} raises the
   * bound checked here before it reads the map.
   *
   * @throws FffsException {@code IO_ERROR} if it cannot be recorded (the change is refused; the next one tries again)
   */
  public void adopt(Block block) throws FffsException {
    long id = block.id();
    MomentSet kept = block.kept();  // set before the first change only on a copy of a trimmed history
    VarHandle.fullFence();  // the block's insertion into the map before the bound's read (apply fences the other way)
    if (!persistent || (id >= nextBlockId && kept == null && !copies)) {
      block.setKnown();  // most new blocks: newer than every table applied
      return;
    }
    synchronized (this) {
      if (stateUnsure) {
        throw new FffsException(ErrorCode.IO_ERROR, "the retention state in " + dataDir + " could not be written,"
            + " so block " + id + " cannot be recorded as taken in after it; it can once a table is applied");
      }
      // A copy's record outlives a replica dropped since: a block of that id taken in whole says so again.
      boolean record = kept != null || (generation != 0 && id < nextBlockId) || adopted.get(id) != null;
      if (record && !(adopted.containsKey(id) && Objects.equals(adopted.get(id), kept))) {
        if (!listReady) {
          writeAdopted();
        }
        try {
          AdoptedBlocksFile.append(dataDir, id, kept);
        } catch (IOException e) {
          listReady = false;  // a torn record may be there: the list is written whole before the next append
          throw new FffsException(ErrorCode.IO_ERROR, "cannot record block " + id + " in " + dataDir.resolve(
              AdoptedBlocksFile.NAME) + ": " + e.getMessage() + "; the block cannot be taken in until it can", e);
        }
        MomentSet replaced = adopted.put(id, kept);
        copies = kept != null || (replaced != null ? adopted.values().stream().anyMatch(Objects::nonNull) : copies);
      }
      block.setKnown();
    }
  }

  /** Writes the adopted-blocks list whole, for the current generation. Caller holds the monitor. */
  private void writeAdopted() throws FffsException {
    try {
      AdoptedBlocksFile.write(dataDir, generation, adopted);
      listReady = true;
    } catch (IOException e) {
      listReady = false;
      throw new FffsException(ErrorCode.IO_ERROR, "cannot write " + dataDir.resolve(AdoptedBlocksFile.NAME) + ": "
          + e.getMessage() + "; blocks older than the last retention table cannot be taken in until it can", e);
    }
  }

  /** Applies {@code table} if it is newer than the last one applied. */
  public synchronized void apply(RetentionTable table) throws FffsException {
    if (table.generation() <= generation) {
      return;
    }
    Map<Long, MomentSet> kept = new TreeMap<>();
    List<Long> dropped = new ArrayList<>();
    // Raised before the map is read: a block begun after this either is in the map when it is read (and the table
    // decides), or sees the new bound and waits for this monitor in adopt.
    nextBlockId = Math.max(nextBlockId, table.nextBlockId());
    VarHandle.fullFence();
    for (Block block : blocks.all()) {
      if (block.id() >= table.nextBlockId()) {
        continue;  // newer than the pass: nothing of it is collected yet
      }
      MomentSet spec = table.blocks().get(block.id());
      if (spec == null) {
        dropped.add(block.id());
      } else {
        MomentSet before = block.kept();
        kept.put(block.id(), before == null ? spec : spec.intersect(before));
      }
    }
    if (persistent) {
      try {
        RetentionStateFile.write(dataDir, new RetentionStateFile.State(table.generation(), table.nextBlockId(),
            kept));
      } catch (IOException e) {
        // It may be on disk all the same (renamed, the directory's sync failed): no adoption is sure until a table is.
        stateUnsure = true;
        throw new FffsException(ErrorCode.IO_ERROR, "cannot write the retention state to " + dataDir + ": "
            + e.getMessage() + "; no history is collected until it can be", e);
      }
    }
    stateUnsure = false;
    // The state on disk is this table's now: it decides for every block below its bound, so only the copies of
    // trimmed histories newer than the table stay listed.
    generation = table.generation();
    adopted.keySet().removeIf(id -> id < table.nextBlockId());
    copies = adopted.values().stream().anyMatch(Objects::nonNull);
    if (persistent) {
      try {
        writeAdopted();
      } catch (FffsException e) {
        LOG.warn("{}; the next block taken in tries again", e.getMessage());
      }
    }
    for (long id : dropped) {
      blocks.remove(id);
      stats.blocksCollected.increment();
    }
    for (Map.Entry<Long, MomentSet> entry : kept.entrySet()) {
      Block block = blocks.get(entry.getKey());
      if (block == null) {
        continue;
      }
      block.writeLock().lock();
      try {
        // Again under the lock: a copy may have given the block its source's kept moments since they were read.
        MomentSet current = block.kept();
        block.setKept(current == null ? entry.getValue() : entry.getValue().intersect(current));
        block.setKnown();  // listed in the state on disk
      } finally {
        block.writeLock().unlock();
      }
      if (block.kept() != null) {
        pending.add(block.id());
      }
    }
    stats.retentionTablesApplied.increment();
    trimPending();
  }

  /** Trims the blocks waiting for it that no writer holds and whose entries are all durable now. */
  public void trimPending() {
    for (Long id : new ArrayList<>(pending)) {
      Block block = blocks.get(id);
      if (block == null || trim(block)) {
        pending.remove(id);
      }
    }
  }

  /** Blocks whose trim waits for a writer or for persistence. */
  public int pendingTrims() {
    return pending.size();
  }

  /**
   * Trims {@code block} now if it can be; returns false when it must wait. The log is rebuilt under the write lock
   * too, so that the cleaner cannot move an entry's record between the copy and the swap.
   */
  private boolean trim(Block block) {
    if (!block.writerLock().tryLock()) {
      return false;
    }
    try {
      block.writeLock().lock();
      try {
        int count = block.log().count();
        if (persistent && (block.durableCount() < count || block.enqueuedCount() < count)) {
          return false;  // persistence still refers to entries by their log index
        }
        if (block.historyHeld()) {
          return false;  // a copy to another DataNode walks the log by index
        }
        Block trimmed = HistoryTrim.trimmed(block, block.kept(), pageSize);
        if (trimmed != null) {
          block.replaceHistory(trimmed.log(), trimmed.index());
          stats.entriesCollected.add(count - trimmed.log().count());
        }
        return true;
      } finally {
        block.writeLock().unlock();
      }
    } finally {
      block.writerLock().unlock();
    }
  }
}
