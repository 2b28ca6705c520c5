package io.fffs.datanode.store.persist;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.datanode.store.StoreStats;
import io.fffs.datanode.store.log.Block;
import io.fffs.datanode.store.log.BlockLog;
import io.fffs.datanode.store.log.BlockMap;
import io.fffs.datanode.store.log.BlockOp;
import io.fffs.datanode.store.log.LogApplier;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rebuilds the block logs and page index from the segment files: scans them in file-number order (creation order),
 * cuts torn tails, and replays every entry through {@link LogApplier}. The pages stay on disk; they are read back
 * when first needed.
 *
 * <p>Without garbage collection each block's entries arrive in log order, and a gap in their log indexes is
 * damage ({@code CORRUPT}); a CREATE at log index 0 after entries of its block begins a replica taken in after the
 * older one was dropped (whose records the cleaner had not removed), and replaces it. Once history has been collected ({@code strictOrder} false), the segment cleaner has
 * copied live records into newer files: a block's entries may then arrive out of HLC order, and an entry may arrive
 * twice (the copy, and the original in a file the cleaner had not deleted yet when the process stopped). Entries are
 * ordered by HLC, which strictly increases along a log, and a copy replaces the original (the newer file's record is
 * kept, the older file is about to go).
 */
public final class Recovery {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Recovery.class);
  /** What recovery found. */
  public record Result(long nextFileNumber, long maxHlc, long entries, int tornTailsCut) {}

  /** An entry that arrived before one of its block's older entries. */
  private record Late(EntryMeta meta, long location) {}

  private Recovery() {}

  /**
   * @param strictOrder whether each block's entries must arrive in log order with consecutive indexes (no history
   *     was ever collected here)
   */
  public static Result run(Path dataDir, int pageSize, BlockMap blocks, StoreStats stats, boolean strictOrder)
      throws FffsException {
    return run(dataDir, pageSize, blocks, stats, strictOrder, null);
  }

  /**
   * {@link #run(Path, int, BlockMap, StoreStats, boolean)}, but damage quarantines instead of stopping recovery
   * when {@code quarantine} is not null: a damaged record is skipped and the block it names is added to it, as is a
   * block whose entries show a gap (an entry of it was in a skipped record); the entries of quarantined blocks are
   * not replayed, and their blocks are removed from {@code blocks} at the end. Damage recovery cannot skip (a record
   * whose length and successor are both unknown) is still {@code CORRUPT}.
   */
  public static Result run(Path dataDir, int pageSize, BlockMap blocks, StoreStats stats, boolean strictOrder,
      Set<Long> quarantine) throws FffsException {
    List<Path> files;
    try {
      files = SegmentFormat.list(dataDir);
    } catch (IOException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "cannot list the data directory " + dataDir + ": "
          + e.getMessage() + "; check fffs.datanode.data.dir", e);
    }
    long[] maxHlc = {0};
    long entries = 0;
    int torn = 0;
    long nextFile = 0;
    Map<Long, List<Late>> late = new HashMap<>();
    // Blocks this scan quarantined (not those already listed): a newer replica of one lifts it.
    Set<Long> quarantinedHere = new HashSet<>();
    for (Path file : files) {
      long number = SegmentFormat.fileNumberOf(file);
      nextFile = number + 1;
      SegmentScanner.DamageSink damage = quarantine == null ? null : (where, offset, problem, suspect) -> {
        LOG.warn("Segment file {} is damaged at offset {} ({}); skipping the record and quarantining block {}",
            where, offset, problem, suspect < 0 ? "(unknown)" : suspect);
        if (suspect >= 0 && quarantine.add(suspect)) {
          quarantinedHere.add(suspect);
        }
      };
      SegmentScanner.Result result = SegmentScanner.scan(file, number, pageSize, stats,
          (meta, location, where, offset) -> {
            boolean begins = strictOrder && meta.logIndex() == 0 && meta.op() == BlockOp.CREATE;
            if (begins && (blocks.get(meta.blockId()) != null || quarantinedHere.contains(meta.blockId()))) {
              // The block was dropped here (its records wait for the cleaner) and taken in again: this is its newer
              // replica, written after every record of the older (one persistence thread writes a block, in order),
              // and damage in the older replica's records is no longer the block's.
              LOG.info("Block {} begins again in segment file {} at offset {}: it was dropped and taken in since;"
                  + " its earlier records are left out", meta.blockId(), where, offset);
              blocks.remove(meta.blockId());
              if (quarantinedHere.remove(meta.blockId())) {
                quarantine.remove(meta.blockId());
              }
            }
            if (quarantine != null && quarantine.contains(meta.blockId())) {
              return;
            }
            Block block = blocks.getOrCreate(meta.blockId());
            BlockLog log = block.log();
            int count = log.count();
            if (strictOrder && meta.logIndex() != count && quarantine != null) {
              LOG.warn("Block {} misses entries before entry {} in segment file {} (a damaged record held them);"
                  + " quarantining it", meta.blockId(), meta.logIndex(), where);
              if (quarantine.add(meta.blockId())) {
                quarantinedHere.add(meta.blockId());
              }
              return;
            }
            if (strictOrder && meta.logIndex() != count) {
              throw new FffsException(ErrorCode.CORRUPT, "segment file " + where + " is corrupt at offset "
                  + offset + ": block " + meta.blockId() + " entry " + meta.logIndex()
                  + " follows a log of " + count + " entries; restore the file or remove the"
                  + " DataNode's data and let the blocks re-replicate");
            }
            maxHlc[0] = Math.max(maxHlc[0], meta.hlc());
            if (count == 0 || meta.hlc() > log.hlc(count - 1)) {
              LogApplier.apply(block, meta.op(), meta.userTime(), meta.hlc(), meta.offset(), meta.length(),
                  meta.lengthAfter(), BlockLog.NONE, location, pageSize);
              return;
            }
            int same = log.indexOfHlc(meta.hlc());
            if (same >= 0) {
              log.setDiskLoc(same, location);  // a copy of a record the cleaner moved here
            } else {
              late.computeIfAbsent(meta.blockId(), id -> new ArrayList<>()).add(new Late(meta, location));
            }
          }, damage);
      entries += result.entries();
      torn += result.cutTornTail() ? 1 : 0;
    }
    for (Map.Entry<Long, List<Late>> entry : late.entrySet()) {
      merge(blocks.get(entry.getKey()), entry.getValue(), pageSize);
    }
    if (quarantine != null) {
      quarantine.forEach(blocks::remove);
    }
    for (Block block : blocks.all()) {
      block.setDurableCount(block.log().count());
      block.setEnqueuedCount(block.log().count());
    }
    return new Result(nextFile, maxHlc[0], entries, torn);
  }

  /** Rebuilds {@code block}'s log with the entries that arrived late, all in HLC order, each once. */
  private static void merge(Block block, List<Late> late, int pageSize) {
    BlockLog log = block.log();
    List<Late> all = new ArrayList<>(log.count() + late.size());
    for (int i = 0; i < log.count(); i++) {
      all.add(new Late(new EntryMeta(block.id(), i, log.op(i), log.hlc(i), log.userTime(i), log.offset(i),
          log.length(i), log.lengthAfter(i), BlockLog.NONE, 0), log.diskLoc(i)));
    }
    all.addAll(late);
    all.sort((a, b) -> a.meta.hlc() != b.meta.hlc() ? Long.compare(a.meta.hlc(), b.meta.hlc())
        : Long.compare(a.location, b.location));
    Block rebuilt = new Block(block.id());
    for (int i = 0; i < all.size(); i++) {
      if (i + 1 < all.size() && all.get(i + 1).meta.hlc() == all.get(i).meta.hlc()) {
        continue;  // the same entry in an older file: the later copy (higher file number) stays
      }
      EntryMeta meta = all.get(i).meta;
      LogApplier.apply(rebuilt, meta.op(), meta.userTime(), meta.hlc(), meta.offset(), meta.length(),
          meta.lengthAfter(), BlockLog.NONE, all.get(i).location, pageSize);
    }
    block.replaceHistory(rebuilt.log(), rebuilt.index());
  }
}
