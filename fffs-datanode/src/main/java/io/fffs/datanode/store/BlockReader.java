package io.fffs.datanode.store;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.arena.ArenaFiles;
import io.fffs.datanode.store.arena.PageArena;
import io.fffs.datanode.store.arena.SlotChecksums;
import io.fffs.datanode.store.log.Block;
import io.fffs.datanode.store.log.BlockLog;
import io.fffs.datanode.store.log.Pages;
import io.fffs.datanode.store.persist.PageRunLoader;
import io.fffs.datanode.store.persist.SegmentFormat;
import io.fffs.datanode.store.persist.SegmentPageReader;
import io.fffs.protocol.frame.ChunkChecksums;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The read path: resolves a state of a block to its page versions (one binary search per page, under the block's
 * read lock) and turns them into a {@link ReadView} of file runs, pinning the resident pages it uses. Also copies a
 * single old page version for the write path's copy-on-write. A time whose state garbage collection no longer
 * keeps exactly is refused ({@code HISTORY_EXPIRED}), never answered from what is left. Thread-safe.
 */
final class BlockReader {
  private static final int RESIDENT = -1;
  private static final int IN_FILE = -2;

  private final PageArena arena;
  private final SegmentPageReader disk;
  private final int pageSize;
  private final PageRunLoader loader;
  private final ReadBuffers buffers = new ReadBuffers();
  private final CheckedCrcs checked;
  private final StoreStats stats;

  /** @param checkedCrcBytes heap for the chunk CRCs of evicted pages reads checked ({@link CheckedCrcs}) */
  BlockReader(PageArena arena, SegmentPageReader disk, StoreStats stats, long checkedCrcBytes) {
    this.arena = arena;
    this.disk = disk;
    this.stats = stats;
    this.pageSize = arena.pageSize();
    this.loader = new PageRunLoader(pageSize, stats);
    this.checked = new CheckedCrcs(checkedCrcBytes, pageSize);
  }

  BlockInfo info(Block block, Selector selector) throws FffsException {
    block.readLock().lock();
    try {
      BlockLog log = block.log();
      int index = selector.indexIn(log, block.id());
      checkKept(block, selector, log, index);
      if (index < 0) {
        return new BlockInfo(block.id(), false, 0, HlcTimestamp.ZERO, -1);
      }
      boolean exists = log.existsAfter(index);
      return new BlockInfo(block.id(), exists, exists ? log.lengthAfter(index) : 0,
          HlcTimestamp.valueOf(log.hlc(index)), index);
    } finally {
      block.readLock().unlock();
    }
  }

  /**
   * A view of the range as of the selected entry; with {@code sendFiles}, evicted pages whose chunk CRCs an earlier
   * read checked ({@link CheckedCrcs}) are runs of their segment file ({@link ReadView.Run#inFile()}), which the
   * view holds open until it is closed, instead of being loaded and checked again.
   */
  ReadView read(Block block, Selector selector, long offset, int length, boolean sendFiles) throws FffsException {
    PageArena.Pin pin = arena.pin();
    try {
      return read(block, selector, offset, length, pin, sendFiles);
    } catch (FffsException | RuntimeException e) {
      pin.close();
      throw e;
    }
  }

  private ReadView read(Block block, Selector selector, long offset, int length, PageArena.Pin pin,
      boolean sendFiles) throws FffsException {
    List<SegmentPageReader.Handle> held = new ArrayList<>();
    Resolved r = resolve(block, selector, offset, length, pin, held);
    try {
      return view(block, r.index, r.hlc, r.blockLength, offset, r.count, r.refs, r.segmentFiles, held, pin,
          sendFiles);
    } catch (FffsException | RuntimeException e) {
      held.forEach(disk::release);
      throw e;
    }
  }

  /**
   * Where the bytes of {@code [offset, offset + length)} as of the selected entry are, for a short-circuit reader:
   * arena pages resident now (the reader checks the eviction frontier after its copy) and records of segment files.
   */
  LocalView locate(Block block, Selector selector, long offset, int length) throws FffsException {
    Resolved r;
    try (PageArena.Pin pin = arena.pin()) {
      r = resolve(block, selector, offset, length, pin, null);
      List<LocalView.Extent> extents = new ArrayList<>();
      ArenaFiles files = arena.files();
      long at = offset;
      long end = offset + r.count;
      long segmentFile = -1;
      java.nio.file.Path segmentPath = null;
      for (PageRef ref : r.refs) {
        long pageStart = (long) ref.page * pageSize;
        int from = (int) (at - pageStart);
        int to = (int) Math.min(pageSize, end - pageStart);
        LocalView.Extent extent;
        if (ref.seq >= pin.residentFrom()) {
          int slot = arena.slot(ref.seq);
          extent = LocalView.Extent.arena(files.path(slot), files.offsetInFile(slot) + from, to - from, ref.seq);
        } else {
          if (io.fffs.datanode.store.persist.SegmentFormat.fileOf(ref.diskLoc) != segmentFile) {
            segmentFile = io.fffs.datanode.store.persist.SegmentFormat.fileOf(ref.diskLoc);
            segmentPath = disk.pathOf(ref.diskLoc);  // formatting a file name per page would cost more than the rest
          }
          extent = LocalView.Extent.segment(segmentPath, disk.pagePosition(ref.diskLoc, ref.pageInEntry),
              from, to - from, disk.pageCrcPosition(ref.diskLoc, ref.pageInEntry, ref.entryPages), pageSize);
        }
        int last = extents.size() - 1;
        LocalView.Extent merged = last < 0 ? null : extents.get(last).merge(extent);
        if (merged != null) {
          extents.set(last, merged);
        } else {
          extents.add(extent);
        }
        at = pageStart + to;
      }
      return new LocalView(r.blockLength, HlcTimestamp.valueOf(r.hlc), files.epoch().path(), files.epoch().instance(),
          extents);
    }
  }

  /** A range resolved to its page versions under the block's read lock. */
  private record Resolved(int index, long blockLength, long hlc, int count, PageRef[] refs,
      SegmentPageReader.Handle[] segmentFiles) {}

  /**
   * Resolves the range to its page versions; with {@code held} (not null) also acquires the segment file of every
   * page evicted before {@code pin} was taken, once per file.
   */
  private Resolved resolve(Block block, Selector selector, long offset, int length, PageArena.Pin pin,
      List<SegmentPageReader.Handle> held) throws FffsException {
    if (offset < 0 || length < 0) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "cannot read " + length + " bytes at offset " + offset
          + " of block " + block.id() + ": offset and length must not be negative");
    }
    int index;
    long blockLength;
    long hlc;
    int count;
    PageRef[] refs;
    SegmentPageReader.Handle[] segmentFiles;
    block.readLock().lock();
    try {
      BlockLog log = block.log();
      index = selector.indexIn(log, block.id());
      checkKept(block, selector, log, index);
      if (!log.existsAfter(index)) {
        throw new FffsException(ErrorCode.NOT_FOUND, "block " + block.id() + " does not exist "
            + selector.describe() + (index < 0 ? " (it was created later)" : " (it was deleted at "
            + HlcTimestamp.valueOf(log.hlc(index)) + "); read it as of an earlier time"));
      }
      blockLength = log.lengthAfter(index);
      hlc = log.hlc(index);
      if (offset > blockLength) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "offset " + offset + " is past the end of block "
            + block.id() + ", which is " + blockLength + " bytes long " + selector.describe());
      }
      count = (int) Math.min(length, blockLength - offset);
      int firstPage = (int) (offset / pageSize);
      refs = new PageRef[Pages.covering(offset, count, pageSize)];
      segmentFiles = held == null ? null : new SegmentPageReader.Handle[refs.length];
      for (int i = 0; i < refs.length; i++) {
        refs[i] = locate(block, firstPage + i, index);
        if (held != null && refs[i].seq < pin.residentFrom()) {
          segmentFiles[i] = hold(held, refs[i].diskLoc);  // while the lock keeps the cleaner from moving the record
        }
      }
    } catch (FffsException | RuntimeException e) {
      if (held != null) {
        held.forEach(disk::release);
      }
      throw e;
    } finally {
      block.readLock().unlock();
    }
    return new Resolved(index, blockLength, hlc, count, refs, segmentFiles);
  }

  private ReadView view(Block block, int index, long hlc, long blockLength, long offset, int count, PageRef[] refs,
      SegmentPageReader.Handle[] segmentFiles, List<SegmentPageReader.Handle> held, PageArena.Pin pin,
      boolean sendFiles) throws FffsException {
    int chunksPerPage = arena.checksums().chunksPerPage();
    // Page i's chunk CRCs at i * chunksPerPage: kept by its write (arena) or by an earlier read's check (in a file).
    int[] crcs = new int[refs.length * chunksPerPage];
    boolean filesAllowed = sendFiles && checked.enabled() && offset % ChunkChecksums.CHUNK_BYTES == 0;
    int inFiles = 0;
    List<PageRunLoader.Piece> pieces = new ArrayList<>();
    int[] pieceOf = new int[refs.length];
    long end = offset + count;
    for (int i = 0; i < refs.length; i++) {
      PageRef ref = refs[i];
      if (ref.seq >= pin.residentFrom()) {
        pieceOf[i] = RESIDENT;
        continue;
      }
      long pageStart = (long) ref.page * pageSize;
      int bytes = (int) (Math.min(pageStart + pageSize, end) - Math.max(pageStart, offset));
      if (filesAllowed && bytes % ChunkChecksums.CHUNK_BYTES == 0
          && checked.copy(ref.diskLoc, ref.pageInEntry, crcs, i * chunksPerPage)) {
        pieceOf[i] = IN_FILE;
        inFiles++;
        continue;
      }
      int last = pieces.size() - 1;
      if (i > 0 && pieceOf[i - 1] == last && last >= 0
          && pieces.get(last).continuedBy(segmentFiles[i], ref.diskLoc, ref.pageInEntry)) {
        pieces.set(last, pieces.get(last).extend());
      } else {
        pieces.add(new PageRunLoader.Piece(segmentFiles[i], ref.diskLoc, ref.pageInEntry, 1, ref.entryPages,
            block.id(), ref.page));
      }
      pieceOf[i] = pieces.size() - 1;
    }
    ByteBuffer loaded = null;
    if (!pieces.isEmpty()) {
      loaded = loader.load(pieces, buffers);
      for (PageRunLoader.Piece piece : pieces) {
        checked.keep(piece.location(), piece.entryPages(), piece.firstPage(), piece.pages(), piece.chunkCrcs());
      }
    }
    if (inFiles == 0) {
      held.forEach(disk::release);  // the view holds checked copies: the cleaner may close the files now
      held.clear();
    } else {
      stats.pagesSentFromFiles.add(inFiles);
    }
    List<ReadView.Run> runs = new ArrayList<>();
    SlotChecksums kept = arena.checksums();
    long minResident = Long.MAX_VALUE;
    long at = offset;
    for (int i = 0; i < refs.length; i++) {
      PageRef ref = refs[i];
      long pageStart = (long) ref.page * pageSize;
      int from = (int) (at - pageStart);
      int to = (int) Math.min(pageSize, end - pageStart);
      boolean onChunk = from % ChunkChecksums.CHUNK_BYTES == 0;
      int firstChunk = i * chunksPerPage + from / ChunkChecksums.CHUNK_BYTES;
      ReadView.Run run;
      if (pieceOf[i] == RESIDENT) {
        int slot = arena.slot(ref.seq);
        ArenaFiles files = arena.files();
        boolean known = onChunk && kept.copy(ref.seq, crcs, i * chunksPerPage);
        run = ReadView.Run.resident(files.channel(slot), files.offsetInFile(slot) + from, to - from, files.map(slot),
            known ? crcs : null, firstChunk);
        minResident = Math.min(minResident, ref.seq);
      } else if (pieceOf[i] == IN_FILE) {
        run = ReadView.Run.inFile(segmentFiles[i], disk.pagePosition(ref.diskLoc, ref.pageInEntry) + from,
            to - from, crcs, firstChunk);
      } else {
        PageRunLoader.Piece piece = pieces.get(pieceOf[i]);
        int inPiece = (ref.pageInEntry - piece.firstPage()) * pageSize + from;
        run = ReadView.Run.loaded(loaded, piece.bufferOffset() + inPiece, to - from,
            inPiece % ChunkChecksums.CHUNK_BYTES == 0 ? piece.chunkCrcs() : null,
            inPiece / ChunkChecksums.CHUNK_BYTES);
      }
      addRun(runs, run);
      at = pageStart + to;
    }
    if (minResident == Long.MAX_VALUE) {
      pin.close();
    } else {
      pin.narrow(minResident);
    }
    ByteBuffer buffer = loaded;
    List<SegmentPageReader.Handle> files = List.copyOf(held);
    Runnable release = buffer == null && files.isEmpty() ? null : () -> {
      if (buffer != null) {
        buffers.give(buffer);
      }
      files.forEach(disk::release);  // runs in the files are sent: the cleaner may close them now
    };
    return new ReadView(block.id(), index, HlcTimestamp.valueOf(hlc), blockLength, offset, count, runs, pin, release);
  }

  /** The handle of the file {@code location} is in, acquired once per read. */
  private SegmentPageReader.Handle hold(List<SegmentPageReader.Handle> held, long location) throws FffsException {
    long file = SegmentFormat.fileOf(location);
    for (SegmentPageReader.Handle handle : held) {
      if (handle.file() == file) {
        return handle;
      }
    }
    SegmentPageReader.Handle handle = disk.acquire(location);
    held.add(handle);
    return handle;
  }

  /**
   * Refuses a state garbage collection no longer keeps exactly: a system time outside the block's kept moments, or
   * a user time that resolves to an entry before the window (entries were dropped around those). Caller holds the
   * read lock.
   */
  private static void checkKept(Block block, Selector selector, BlockLog log, int index) throws FffsException {
    MomentSet kept = block.kept();
    TimeSpec time = selector.time();
    if (kept == null || time == null || time.isLatest()) {
      return;
    }
    boolean readable;
    if (time.kind() == TimeSpec.Kind.SYSTEM) {
      readable = kept.contains(time.micros());
    } else {
      // By user time only the window is whole: from the entry current at its start on (none older: all of it).
      int window = kept.floor() == MomentSet.END ? Integer.MAX_VALUE : log.indexAtSystemTime(kept.floor());
      readable = window < 0 || index >= window;
    }
    if (!readable) {
      throw new FffsException(ErrorCode.HISTORY_EXPIRED, "block " + block.id() + " " + selector.describe()
          + " has been garbage-collected: it is kept exactly only at " + kept + (time.kind() == TimeSpec.Kind.USER
          ? " (by user time, only within the window)" : ""));
    }
  }

  /** Copies page {@code page} as of log entry {@code index} into {@code dst} at {@code dstIndex}. Writer only. */
  void copyPage(Block block, int page, int index, ByteBuffer dst, int dstIndex) throws FffsException {
    try (PageArena.Pin pin = arena.pin()) {
      PageRef ref;
      SegmentPageReader.Handle file = null;
      block.readLock().lock();
      try {
        ref = locate(block, page, index);
        if (ref.seq < pin.residentFrom()) {
          file = disk.acquire(ref.diskLoc);
        }
      } finally {
        block.readLock().unlock();
      }
      if (file == null) {
        int slot = arena.slot(ref.seq);
        dst.put(dstIndex, arena.files().map(slot), arena.files().offsetInFile(slot), pageSize);
      } else {
        try {
          disk.readPage(file, ref.diskLoc, ref.pageInEntry, ref.entryPages, dst.slice(dstIndex, pageSize),
              describe(block, ref));
        } finally {
          disk.release(file);
        }
      }
    }
  }

  private static void addRun(List<ReadView.Run> runs, ReadView.Run run) {
    if (!runs.isEmpty()) {
      ReadView.Run last = runs.get(runs.size() - 1);
      if (last.continuedBy(run)) {
        runs.set(runs.size() - 1, last.extend(run.length()));
        return;
      }
    }
    runs.add(run);
  }

  private PageRef locate(Block block, int page, int index) throws FffsException {
    BlockLog log = block.log();
    int version = block.index().versionAt(page, index);
    if (version < 0) {
      throw new FffsException(ErrorCode.INTERNAL, "block " + block.id() + " has no version of page " + page
          + " at log index " + index + " although the page lies within the block");
    }
    long entryOffset = log.offset(version);
    int j = (int) (page - entryOffset / pageSize);
    long firstSeq = log.firstSeq(version);
    return new PageRef(page, version, firstSeq == BlockLog.NONE ? BlockLog.NONE : firstSeq + j,
        log.diskLoc(version), j, Pages.covering(entryOffset, log.length(version), pageSize));
  }

  private static String describe(Block block, PageRef ref) {
    return "page " + ref.page + " of block " + block.id() + " (written by log entry " + ref.version + ")";
  }

  /** Where one page version lives: arena sequence number (if still in memory) and disk location. */
  private record PageRef(int page, int version, long seq, long diskLoc, int pageInEntry, int entryPages) {}
}
