package io.fffs.datanode.store;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeText;
import io.fffs.common.usertime.UserTimeExtractor;
import io.fffs.common.usertime.UserTimeExtractors;
import io.fffs.datanode.store.arena.ArenaFiles;
import io.fffs.datanode.store.arena.PageArena;
import io.fffs.datanode.store.log.Block;
import io.fffs.datanode.store.log.BlockLog;
import io.fffs.datanode.store.log.BlockOp;
import io.fffs.datanode.store.log.LogApplier;
import io.fffs.datanode.store.log.Pages;
import io.fffs.datanode.store.persist.DurabilityTracker;
import io.fffs.datanode.store.persist.EntryMeta;
import io.fffs.datanode.store.persist.PersistenceService;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The write path. For each mutation, under the block's writer lock: check it against the block's latest state
 * (nothing changes if a check fails), fill fresh arena pages (copying the old version of a partially written page
 * first), then stamp and publish the entry under the block's write lock, and queue it for persistence.
 */
final class BlockWriter {
  private final PageArena arena;
  private final BlockReader reader;
  private final DurabilityTracker tracker;
  private final PersistenceService persistence;
  private final StoreStats stats;
  private final int pageSize;
  private final long maxBlockSize;

  BlockWriter(PageArena arena, BlockReader reader, DurabilityTracker tracker, PersistenceService persistence,
      StoreStats stats, long maxBlockSize) {
    this.arena = arena;
    this.reader = reader;
    this.tracker = tracker;
    this.persistence = persistence;
    this.stats = stats;
    this.pageSize = arena.pageSize();
    this.maxBlockSize = maxBlockSize;
  }

  WriteResult write(Block block, long offset, ByteBuffer data, WriteOptions options)
      throws FffsException, InterruptedException {
    BlockLog log = block.log();
    int last = log.count() - 1;
    boolean exists = log.existsAfter(last);
    long length = exists ? log.lengthAfter(last) : 0;
    int count = data.remaining();
    long limit = options.blockSize() == 0 ? maxBlockSize : Math.min(options.blockSize(), maxBlockSize);
    if (offset < 0) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "cannot write at negative offset " + offset + " of block "
          + block.id());
    }
    if (!exists && offset != 0) {
      throw new FffsException(ErrorCode.WRITE_BEYOND_EOF, "block " + block.id() + (last < 0 ? " does not exist"
          : " was deleted") + ", so its first write must be at offset 0, not " + offset);
    }
    if (offset > length) {
      throw new FffsException(ErrorCode.WRITE_BEYOND_EOF, "a write at offset " + offset + " of block " + block.id()
          + " starts beyond its end (" + length + " bytes); write at or below offset " + length);
    }
    if (offset + count > limit) {
      throw new FffsException(ErrorCode.BLOCK_SIZE_EXCEEDED, "a write of " + count + " bytes at offset " + offset
          + " would grow block " + block.id() + " to " + (offset + count) + " bytes, past its block size of "
          + limit + "; start a new block");
    }
    long previousUserTime = last < 0 ? 0 : log.userTime(last);
    UserTimeExtractor.Stream trial = null;
    long userTime = previousUserTime;
    if (options.userTimeExtractor() != null) {
      trial = streamFor(block, options.userTimeExtractor()).copy();
      userTime = checkUserTimes(block, trial, data, previousUserTime);
    }
    if (count == 0 && exists) {
      return new WriteResult(HlcTimestamp.valueOf(log.hlc(last)), length, last);
    }
    int pages = Pages.covering(offset, count, pageSize);
    long firstSeq = pages == 0 ? BlockLog.NONE : arena.allocate(pages);
    try {
      fillPages(block, exists ? last : -1, length, offset, data, firstSeq, pages);
    } catch (FffsException | RuntimeException e) {
      if (pages > 0) {
        arena.abandon(firstSeq);
      }
      throw e;
    }
    List<EntryMeta> entries = new ArrayList<>(2);
    block.writeLock().lock();
    try {
      if (!exists) {
        entries.add(append(block, BlockOp.CREATE, previousUserTime, 0, 0, 0, BlockLog.NONE));
      }
      if (count > 0) {
        entries.add(append(block, BlockOp.WRITE, userTime, offset, count, Math.max(length, offset + count),
            firstSeq));
      }
    } finally {
      block.writeLock().unlock();
    }
    if (trial != null) {
      block.setUserTimeStream(options.userTimeExtractor(), trial);
    }
    stats.bytesWritten.add(count);
    return queue(block, entries);
  }

  WriteResult truncate(Block block, long newLength) throws FffsException {
    BlockLog log = block.log();
    int last = requireExisting(block, "truncate");
    long length = log.lengthAfter(last);
    if (newLength < 0 || newLength > length) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "cannot truncate block " + block.id() + " to "
          + newLength + " bytes: the new length must be from 0 to its length, " + length);
    }
    return logMetadataOnly(block, BlockOp.TRUNCATE, newLength, log.userTime(last));
  }

  WriteResult delete(Block block) throws FffsException {
    int last = requireExisting(block, "delete");
    return logMetadataOnly(block, BlockOp.DELETE, 0, block.log().userTime(last));
  }

  private int requireExisting(Block block, String what) throws FffsException {
    int last = block.log().count() - 1;
    if (!block.log().existsAfter(last)) {
      throw new FffsException(ErrorCode.NOT_FOUND, "cannot " + what + " block " + block.id() + ": it "
          + (last < 0 ? "does not exist" : "was deleted at " + HlcTimestamp.valueOf(block.log().hlc(last))));
    }
    return last;
  }

  private WriteResult logMetadataOnly(Block block, BlockOp op, long newLength, long userTime) {
    EntryMeta entry;
    block.writeLock().lock();
    try {
      entry = append(block, op, userTime, newLength, 0, newLength, BlockLog.NONE);
    } finally {
      block.writeLock().unlock();
    }
    // A partial record carried by the user-time stream no longer continues the block's end.
    block.setUserTimeStream(null, null);
    return queue(block, List.of(entry));
  }

  private EntryMeta append(Block block, BlockOp op, long userTime, long offset, int length, long lengthAfter,
      long firstSeq) {
    long hlc = tracker.stamp();
    int index = LogApplier.apply(block, op, userTime, hlc, offset, length, lengthAfter, firstSeq, BlockLog.NONE,
        pageSize);
    stats.entriesAppended.increment();
    return new EntryMeta(block.id(), index, op, hlc, userTime, offset, length, lengthAfter, firstSeq,
        Pages.ofEntry(op, offset, length, pageSize));
  }

  private WriteResult queue(Block block, List<EntryMeta> entries) {
    for (EntryMeta entry : entries) {
      if (persistence != null) {
        persistence.enqueue(block, entry);
      }
    }
    block.setEnqueuedCount(block.log().count());
    EntryMeta last = entries.get(entries.size() - 1);
    return new WriteResult(HlcTimestamp.valueOf(last.hlc()), last.lengthAfter(), last.logIndex());
  }

  private UserTimeExtractor.Stream streamFor(Block block, String name) throws FffsException {
    if (name.equals(block.extractorName())) {
      return block.userTimeStream();
    }
    return UserTimeExtractors.load(name).newStream();
  }

  /** Runs the extractor over the write; returns the entry's user time or throws if any record goes backwards. */
  private static long checkUserTimes(Block block, UserTimeExtractor.Stream trial, ByteBuffer data, long previous)
      throws FffsException {
    // {latest so far, whether a regression was seen, the time it went back from, the time it went back to}
    long[] state = {previous, 0, 0, 0};
    trial.extract(data.duplicate(), time -> {
      if (time < state[0] && state[1] == 0) {
        state[1] = 1;
        state[2] = state[0];
        state[3] = time;
      }
      state[0] = Math.max(state[0], time);
    });
    if (state[1] != 0) {
      throw new FffsException(ErrorCode.USER_TIME_REGRESSION, "a record written to block " + block.id()
          + " carries user time " + TimeText.isoMicros(state[3]) + ", earlier than "
          + TimeText.isoMicros(state[2]) + " before it; user times must not go backwards, so the write was"
          + " refused and nothing changed");
    }
    return state[0];
  }

  /**
   * Fills the freshly allocated pages: each is a full page image, made from the page's latest version (or zeros)
   * where the write covers it only partly.
   */
  private void fillPages(Block block, int baseIndex, long length, long offset, ByteBuffer data, long firstSeq,
      int pages) throws FffsException {
    ArenaFiles files = arena.files();
    long end = offset + data.remaining();
    int firstPage = (int) (offset / pageSize);
    for (int j = 0; j < pages; j++) {
      int slot = arena.slot(firstSeq + j);
      ByteBuffer map = files.map(slot);
      int base = files.offsetInFile(slot);
      long pageStart = (long) (firstPage + j) * pageSize;
      long from = Math.max(offset, pageStart);
      long to = Math.min(end, pageStart + pageSize);
      if (from > pageStart || to < pageStart + pageSize) {
        if (baseIndex >= 0 && pageStart < length) {
          reader.copyPage(block, firstPage + j, baseIndex, map, base);
        } else {
          for (int i = 0; i < pageSize; i += 8) {
            map.putLong(base + i, 0L);
          }
        }
      }
      map.put(base + (int) (from - pageStart), data, data.position() + (int) (from - offset), (int) (to - from));
    }
  }
}
