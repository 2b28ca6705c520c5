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
import io.fffs.protocol.frame.ChunkChecksums;
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
    State state = check(block, offset, data.remaining(), options);
    int count = data.remaining();
    UserTimeExtractor.Stream trial = null;
    long userTime = options.replica() != null ? options.replica().userTime() : state.previousUserTime;
    if (options.userTimeExtractor() != null && options.replica() == null) {
      trial = streamFor(block, options.userTimeExtractor()).copy();
      userTime = checkUserTimes(block, trial, data, state.previousUserTime);
    }
    if (count == 0 && state.exists) {
      return new WriteResult(HlcTimestamp.valueOf(block.log().hlc(state.last)), state.length, state.last);
    }
    int pages = Pages.covering(offset, count, pageSize);
    long firstSeq = pages == 0 ? BlockLog.NONE : arena.allocate(pages);
    try {
      fillPages(block, state.exists ? state.last : -1, state.length, offset, data, firstSeq, pages);
    } catch (FffsException | RuntimeException e) {
      if (pages > 0) {
        arena.release(firstSeq, pages);
      }
      throw e;
    }
    return publish(block, state, offset, count, userTime, firstSeq, trial, options);
  }

  /**
   * Reserves the pages of a write of {@code count} bytes (≥ 1) that the caller fills ({@link PageReservation}):
   * the write's checks, then allocation, then the previous version's bytes (or zeros) copied around the write's
   * range in its partly covered first and last pages. {@code unlock} releases the block's writer lock; the
   * reservation calls it once, when committed or closed.
   */
  PageReservation reserve(Block block, long offset, int count, WriteOptions options, Runnable unlock)
      throws FffsException, InterruptedException {
    if (count < 1) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "cannot reserve pages for a write of " + count
          + " bytes to block " + block.id() + "; write at least one byte");
    }
    State state = check(block, offset, count, options);
    int pages = Pages.covering(offset, count, pageSize);
    long firstSeq = arena.allocate(pages);
    try {
      fillAround(block, state.exists ? state.last : -1, state.length, offset, count, firstSeq, pages);
      return new Reservation(block, offset, count, options, firstSeq, pages, regions(offset, count, firstSeq,
          pages), new Chain(unlock), null);
    } catch (FffsException | RuntimeException e) {
      arena.release(firstSeq, pages);
      throw e;
    }
  }

  /** The block's latest state, as a write's checks saw it. */
  private record State(boolean exists, int last, long length, long previousUserTime) {}

  /** The checks of a write of {@code count} bytes at {@code offset} against the block's latest state. */
  private State check(Block block, long offset, int count, WriteOptions options) throws FffsException {
    State state = latest(block);
    if (offset < 0) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "cannot write at negative offset " + offset + " of block "
          + block.id());
    }
    if (!state.exists && offset != 0) {
      throw new FffsException(ErrorCode.WRITE_BEYOND_EOF, "block " + block.id() + (state.last < 0
          ? " does not exist" : " was deleted") + ", so its first write must be at offset 0, not " + offset);
    }
    if (offset > state.length) {
      throw new FffsException(ErrorCode.WRITE_BEYOND_EOF, "a write at offset " + offset + " of block " + block.id()
          + " starts beyond its end (" + state.length + " bytes); write at or below offset " + state.length);
    }
    checkBlockSize(block, offset, count, options);
    checkChunkCrcs(block, count, options);
    if (options.replica() == null) {
      StampedApply.checkUnstamped(block, "take a write");
    } else {
      StampedApply.check(block, state.last, state.exists, state.length, state.previousUserTime, offset, count,
          options.replica());
    }
    return state;
  }

  private static void checkChunkCrcs(Block block, int count, WriteOptions options) throws FffsException {
    int[] crcs = options.chunkCrcs();
    if (crcs != null && crcs.length != ChunkChecksums.chunksOf(count)) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a write of " + count + " bytes to block " + block.id()
          + " came with " + crcs.length + " chunk checksums instead of " + ChunkChecksums.chunksOf(count)
          + "; nothing was written");
    }
  }

  private void checkBlockSize(Block block, long offset, int count, WriteOptions options) throws FffsException {
    long limit = options.blockSize() == 0 ? maxBlockSize : Math.min(options.blockSize(), maxBlockSize);
    if (offset + count > limit) {
      throw new FffsException(ErrorCode.BLOCK_SIZE_EXCEEDED, "a write of " + count + " bytes at offset " + offset
          + " would grow block " + block.id() + " to " + (offset + count) + " bytes, past its block size of "
          + limit + "; start a new block");
    }
  }

  /** The block's latest committed state. */
  private static State latest(Block block) {
    BlockLog log = block.log();
    int last = log.count() - 1;
    boolean exists = log.existsAfter(last);
    return new State(exists, last, exists ? log.lengthAfter(last) : 0, last < 0 ? 0 : log.userTime(last));
  }

  /** Stamps and publishes the write's entries (a create entry first for a new block), then queues them. */
  private WriteResult publish(Block block, State state, long offset, int count, long userTime, long firstSeq,
      UserTimeExtractor.Stream trial, WriteOptions options) {
    List<EntryMeta> entries = new ArrayList<>(2);
    ReplicaStamp stamp = options.replica();
    if (count > 0) {
      arena.checksums().keep(firstSeq, offset, count, options.chunkCrcs());  // before readers can see the pages
    }
    block.writeLock().lock();
    try {
      if (!state.exists) {
        entries.add(append(block, BlockOp.CREATE, state.previousUserTime, 0, 0, 0, BlockLog.NONE,
            stamp == null ? 0 : stamp.createHlc()));
      }
      if (count > 0) {
        entries.add(append(block, BlockOp.WRITE, userTime, offset, count, Math.max(state.length, offset + count),
            firstSeq, stamp == null ? 0 : stamp.entryHlc()));
      }
      if (stamp != null) {
        // Under the write lock with the entries: a reader that sees the frontier sees them.
        block.setReplicaFrontier(Math.max(block.replicaFrontier(), stamp.frontierHlc()));
      }
    } finally {
      block.writeLock().unlock();
    }
    if (trial != null) {
      block.setUserTimeStream(options.userTimeExtractor(), trial);
    } else if (stamp != null) {
      // The primary ran the extractor; a partial record it carries is not known here.
      block.setUserTimeStream(null, null);
    }
    stats.bytesWritten.add(count);
    return queue(block, entries, options.chunkCrcs());
  }

  /** Cuts the block to {@code newLength}: at a tick of this clock, or at the primary's {@code stamp} (or null). */
  WriteResult truncate(Block block, long newLength, ReplicaStamp stamp) throws FffsException {
    BlockLog log = block.log();
    int last = requireExisting(block, "truncate");
    long length = log.lengthAfter(last);
    if (newLength < 0 || newLength > length) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "cannot truncate block " + block.id() + " to "
          + newLength + " bytes: the new length must be from 0 to its length, " + length);
    }
    if (stamp == null) {
      StampedApply.checkUnstamped(block, "be truncated");
      return logMetadataOnly(block, BlockOp.TRUNCATE, newLength, log.userTime(last), null);
    }
    StampedApply.check(block, last, true, length, log.userTime(last), newLength, -1, stamp);
    return logMetadataOnly(block, BlockOp.TRUNCATE, newLength, stamp.userTime(), stamp);
  }

  WriteResult delete(Block block) throws FffsException {
    int last = requireExisting(block, "delete");
    return logMetadataOnly(block, BlockOp.DELETE, 0, block.log().userTime(last), null);
  }

  private int requireExisting(Block block, String what) throws FffsException {
    int last = block.log().count() - 1;
    if (!block.log().existsAfter(last)) {
      throw new FffsException(ErrorCode.NOT_FOUND, "cannot " + what + " block " + block.id() + ": it "
          + (last < 0 ? "does not exist" : "was deleted at " + HlcTimestamp.valueOf(block.log().hlc(last))));
    }
    return last;
  }

  private WriteResult logMetadataOnly(Block block, BlockOp op, long newLength, long userTime, ReplicaStamp stamp) {
    EntryMeta entry;
    block.writeLock().lock();
    try {
      entry = append(block, op, userTime, newLength, 0, newLength, BlockLog.NONE,
          stamp == null ? 0 : stamp.entryHlc());
      if (stamp != null) {
        block.setReplicaFrontier(Math.max(block.replicaFrontier(), stamp.frontierHlc()));
      }
    } finally {
      block.writeLock().unlock();
    }
    // A partial record carried by the user-time stream no longer continues the block's end.
    block.setUserTimeStream(null, null);
    return queue(block, List.of(entry), null);
  }

  /** Appends an entry at a tick of this clock, or at {@code stampedHlc} (another replica's stamp) when not 0. */
  private EntryMeta append(Block block, BlockOp op, long userTime, long offset, int length, long lengthAfter,
      long firstSeq, long stampedHlc) {
    long hlc = stampedHlc == 0 ? tracker.stamp() : stampedHlc;
    long track = stampedHlc == 0 ? hlc : tracker.stampReplica();
    int index = LogApplier.apply(block, op, userTime, hlc, offset, length, lengthAfter, firstSeq, BlockLog.NONE,
        pageSize);
    stats.entriesAppended.increment();
    return new EntryMeta(block.id(), index, op, hlc, userTime, offset, length, lengthAfter, firstSeq,
        Pages.ofEntry(op, offset, length, pageSize), track);
  }

  /** Queues the entries for persistence; {@code chunkCrcs} (or null) are those of the WRITE entry's bytes. */
  private WriteResult queue(Block block, List<EntryMeta> entries, int[] chunkCrcs) {
    for (EntryMeta entry : entries) {
      if (persistence != null) {
        persistence.enqueue(block, entry, entry.op() == BlockOp.WRITE ? chunkCrcs : null);
      }
    }
    block.setEnqueuedCount(block.log().count());
    EntryMeta last = entries.get(entries.size() - 1);
    long createHlc = entries.get(0).op() == BlockOp.CREATE ? entries.get(0).hlc() : 0;
    return new WriteResult(HlcTimestamp.valueOf(last.hlc()), last.lengthAfter(), last.logIndex(), createHlc,
        last.userTime());
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

  /**
   * The reserved write's partly covered first and last pages get the previous version's bytes (or zeros) in full;
   * the caller then overwrites the write's range. Fully covered pages are left for the caller.
   */
  private void fillAround(Block block, int baseIndex, long length, long offset, int count, long firstSeq,
      int pages) throws FffsException {
    int firstPage = (int) (offset / pageSize);
    long end = offset + count;
    for (int j = 0; j < pages; j++) {
      if (j != 0 && j != pages - 1) {
        continue;
      }
      long pageStart = (long) (firstPage + j) * pageSize;
      if (offset <= pageStart && end >= pageStart + pageSize) {
        continue; // covered whole
      }
      int slot = arena.slot(firstSeq + j);
      ByteBuffer map = arena.files().map(slot);
      int base = arena.files().offsetInFile(slot);
      if (baseIndex >= 0 && pageStart < length) {
        reader.copyPage(block, firstPage + j, baseIndex, map, base);
      } else {
        for (int i = 0; i < pageSize; i += 8) {
          map.putLong(base + i, 0L);
        }
      }
    }
  }

  /** The runs of adjacent slots of the reserved pages, as byte ranges of the write. */
  private List<PageReservation.Region> regions(long offset, int count, long firstSeq, int pages) {
    ArenaFiles files = arena.files();
    List<PageReservation.Region> regions = new ArrayList<>(2);
    long end = offset + count;
    int firstPage = (int) (offset / pageSize);
    int runStart = 0;
    for (int j = 1; j <= pages; j++) {
      if (j < pages && files.adjacent(arena.slot(firstSeq + j - 1), arena.slot(firstSeq + j))) {
        continue;
      }
      long from = Math.max(offset, (long) (firstPage + runStart) * pageSize);
      long to = Math.min(end, (long) (firstPage + j) * pageSize);
      int slot = arena.slot(firstSeq + runStart);
      int position = files.offsetInFile(slot) + (int) (from - (long) (firstPage + runStart) * pageSize);
      regions.add(new PageReservation.Region(files.channel(slot), files.map(slot), position, (int) (to - from),
          (int) (from - offset)));
      runStart = j;
    }
    return List.copyOf(regions);
  }

  /**
   * The reservations that hold one block's writer lock together: the first from {@link #reserve}, each further one
   * from {@link Reservation#reserveNext}. When the last open one is committed or closed, the pages of those closed
   * uncommitted go back to the arena, newest first (so the arena's head moves back over all of them), and the lock
   * is released.
   */
  private final class Chain {
    private final Runnable unlock;
    private final List<long[]> unused = new ArrayList<>(1);
    private int open = 1;

    Chain(Runnable unlock) {
      this.unlock = unlock;
    }

    void finished(long firstSeq, int pages, boolean committed) {
      if (!committed) {
        unused.add(new long[] {firstSeq, pages});
      }
      if (--open > 0) {
        return;
      }
      try {
        for (int i = unused.size() - 1; i >= 0; i--) {
          arena.release(unused.get(i)[0], (int) unused.get(i)[1]);
        }
      } finally {
        unlock.run();
      }
    }
  }

  /** A reservation handed out by {@link #reserve} or {@link Reservation#reserveNext}; used by one thread. */
  private final class Reservation implements PageReservation {
    private final Block block;
    private final long offset;
    private final int count;
    private final WriteOptions options;
    private final long firstSeq;
    private final int pages;
    private final List<Region> regions;
    private final Chain chain;
    /** The reservation before this one in its chain (committed first), or null. */
    private final Reservation previous;
    private boolean done;
    private boolean committed;

    Reservation(Block block, long offset, int count, WriteOptions options, long firstSeq, int pages,
        List<Region> regions, Chain chain, Reservation previous) {
      this.block = block;
      this.offset = offset;
      this.count = count;
      this.options = options;
      this.firstSeq = firstSeq;
      this.pages = pages;
      this.regions = regions;
      this.chain = chain;
      this.previous = previous;
    }

    @Override
    public long blockId() {
      return block.id();
    }

    @Override
    public long offset() {
      return offset;
    }

    @Override
    public int length() {
      return count;
    }

    @Override
    public List<Region> regions() {
      return regions;
    }

    @Override
    public ByteBuffer bytes() {
      if (regions.size() == 1) {
        return regions.get(0).buffer().asReadOnlyBuffer();
      }
      ByteBuffer copy = ByteBuffer.allocate(count);
      for (Region region : regions) {
        copy.put(region.buffer());
      }
      return copy.flip().asReadOnlyBuffer();
    }

    @Override
    public PageReservation reserveNext(int length, int[] chunkCrcs) throws FffsException {
      if (done) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "this reservation of block " + block.id()
            + " was already committed or released; reserve the next write with BlockStore.reserve");
      }
      long next = offset + count;
      if (next % pageSize != 0) {
        throw new FffsException(ErrorCode.UNSUPPORTED, "the write to block " + block.id() + " ends at " + next
            + ", inside a page: the next write's first page needs its bytes, so reserve the next write after"
            + " committing this one");
      }
      if (length < 1) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "cannot reserve pages for a write of " + length
            + " bytes to block " + block.id() + "; write at least one byte");
      }
      if (options.replica() != null) {
        throw new FffsException(ErrorCode.UNSUPPORTED, "a write at another replica's stamps to block " + block.id()
            + " carries its own stamps, so the next one cannot follow it in a chain; reserve it on its own");
      }
      WriteOptions nextOptions = options.withChunkCrcs(chunkCrcs);
      try {
        checkBlockSize(block, next, length, nextOptions);
        checkChunkCrcs(block, length, nextOptions);
        int nextPages = Pages.covering(next, length, pageSize);
        long nextSeq = arena.allocate(nextPages);
        try {
          // Only the last page can be partial, and no earlier write of the chain touches it.
          State base = latest(block);
          fillAround(block, base.exists ? base.last : -1, base.length, next, length, nextSeq, nextPages);
          Reservation reservation = new Reservation(block, next, length, nextOptions, nextSeq, nextPages,
              BlockWriter.this.regions(next, length, nextSeq, nextPages), chain, this);
          chain.open++;
          stats.reservationsChained.increment();
          return reservation;
        } catch (FffsException | RuntimeException e) {
          arena.release(nextSeq, nextPages);
          throw e;
        }
      } catch (FffsException e) {
        stats.writesRefused.increment();
        throw e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new FffsException(ErrorCode.IO_ERROR, "interrupted reserving pages of block " + block.id());
      }
    }

    @Override
    public WriteResult commit() throws FffsException {
      if (done) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "this reservation of block " + block.id()
            + " was already committed or released");
      }
      try {
        if (previous != null && !previous.committed) {
          throw new FffsException(ErrorCode.INVALID_ARGUMENT, "the write before this one to block " + block.id()
              + " (at offset " + previous.offset + ") was " + (previous.done ? "released" : "not yet committed")
              + ", so this one, reserved to follow it, cannot be committed; nothing was written");
        }
        // The chain holds the writer lock, so the state is the one this write was checked against, with the
        // earlier writes of its chain applied.
        State state = latest(block);
        UserTimeExtractor.Stream trial = null;
        long userTime = options.replica() != null ? options.replica().userTime() : state.previousUserTime;
        if (options.userTimeExtractor() != null && options.replica() == null) {
          trial = streamFor(block, options.userTimeExtractor()).copy();
          userTime = checkUserTimes(block, trial, bytes(), state.previousUserTime);
        }
        WriteResult result = publish(block, state, offset, count, userTime, firstSeq, trial, options);
        committed = true;
        return result;
      } finally {
        if (!committed) {
          stats.writesRefused.increment();
        }
        done = true;
        chain.finished(firstSeq, pages, committed);
      }
    }

    @Override
    public void close() {
      if (!done) {
        done = true;
        chain.finished(firstSeq, pages, false);
      }
    }
  }
}
