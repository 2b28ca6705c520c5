package io.fffs.datanode.store.persist;

import java.nio.file.Path;

import io.fffs.datanode.store.StoreFaultInjector;
import io.fffs.datanode.store.StoreStats;
import io.fffs.datanode.store.arena.ArenaFiles;
import io.fffs.datanode.store.arena.PageArena;
import io.fffs.datanode.store.log.Block;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32C;

/**
 * One persistence thread: the only consumer of its FIFO queue (a {@link WorkerInbox}; the blocks hashed to it) and the
 * only writer of its segment files. It takes everything queued and writes it in batches of about the batch size; once a
 * batch is written (with O_DIRECT or to the page cache, without an fsync) its entries' pages may leave the arena. The
 * file is fsync'd — and the entries written before it reported durable — only when a {@code sync} waits (once for all
 * the batches it finds queued), when {@code fffs.datanode.persistence.sync-interval} has passed since the last fsync or
 * {@code sync-bytes} were written since, when the file is full, and at shutdown. Each batch's commit mark, and one
 * written right after each fsync, records how far the file was fsync'd, which is how recovery tells damage from a torn
 * tail ({@link SegmentFormat}). Through the page cache the batch is one gathering write of each entry's pages straight
 * from the arena mapping, then its record. With O_DIRECT, an entry of at least {@code
 * fffs.datanode.persistence.in-place-min-pages} pages (32) is preceded by a padding record that makes its pages start
 * on the alignment; its pages are then written from the arena mapping as they are, and the records around them go
 * through the writer's aligned staging buffer, all in one gathering write around the page cache. A smaller entry's
 * pages are copied into the staging buffer: the padding (up to one alignment block per entry) would cost more than the
 * copy.
 *
 * <p>Each page's CRC32C goes into the entry's record. A page the write covered whole, on a chunk boundary of the
 * write, gets it from the write's checked chunk CRCs ({@link PageChecksums}) without being read; any other page is
 * checksummed here (while it is in the CPU cache, for one staged right after).
 *
 * <p>Group commit: a batch starts at most once per {@code minBatchIntervalNanos} (unless a {@code sync} waits, a
 * full batch is queued, or a writer waits for room in the arena, which only persisted pages can make). A stream of
 * small writes, each acknowledged before the next is sent, would otherwise cost a wake-up of this thread, a segment
 * write and an fsync every few writes — CPU that, on a machine with few cores, the event loops of the very next
 * writes wait for. Entries queued meanwhile go out together in the next batch; enqueuing wakes this thread only
 * after an idle spell, or when a full batch is queued while it waits.
 */
final class PersistenceWorker implements Runnable {
  static final Task STOP = new Task(null, null, null);

  private final PersistenceService service;
  private final PageArena arena;
  private final SegmentWriter writer;
  private final long batchBytes;
  private final long minBatchIntervalNanos;
  /** O_DIRECT: entries of at least this many pages are written from the arena in place. */
  private final int inPlaceMinPages;
  private final StoreStats stats;
  private final PersistenceService.SyncPolicy syncPolicy;
  /** Entries written to the current file since its last fsync, in order: durable at the next one. */
  private final List<Task> unsynced = new ArrayList<>();
  private long unsyncedBytes;
  private long lastSyncNanos = System.nanoTime();
  /** Bytes of the current file fsync'd: recorded in each commit mark. */
  private long syncedOffset;
  private long lastBatchStart = System.nanoTime() - (1L << 40);
  private volatile Thread thread;
  private volatile boolean waiting;
  private volatile boolean stopQueued;
  /** {@link #requestSync} was called since the last fsync began. */
  private volatile boolean syncRequested;
  private final WorkerInbox inbox = new WorkerInbox();
  private final CRC32C crc = new CRC32C();
  /** Page CRCs derived from chunk CRCs since the last batch was counted. */
  private long pagesDerived;

  /** An entry to persist; {@code chunkCrcs}: the checked CRC32Cs of a WRITE entry's 512-byte chunks, or null. */
  record Task(Block block, EntryMeta meta, int[] chunkCrcs) {}

  PersistenceWorker(PersistenceService service, PageArena arena, SegmentWriter writer, long batchBytes,
      long minBatchIntervalNanos, int inPlaceMinPages, StoreStats stats, PersistenceService.SyncPolicy syncPolicy) {
    this.syncPolicy = syncPolicy;
    this.minBatchIntervalNanos = minBatchIntervalNanos;
    this.inPlaceMinPages = inPlaceMinPages;
    this.service = service;
    this.arena = arena;
    this.writer = writer;
    this.batchBytes = batchBytes;
    this.stats = stats;
  }

  void enqueue(Task task) {
    if (task == STOP) {
      inbox.add(task, 0);
      stopQueued = true;
      hurry();
      return;
    }
    long queued = inbox.add(task, recordBytes(task));
    if (waiting && queued >= batchBytes) {
      hurry();
    }
  }

  /** Ends a group-commit wait (or an idle wait before an fsync) early: someone waits for durability or room. */
  void hurry() {
    inbox.wake();
    Thread t = thread;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  /** Fsync what was written soon, without the sync interval (nobody waits for it). */
  void requestSync() {
    syncRequested = true;
    hurry();
  }

  /**
   * Waits until entries are queued, or an fsync of what was written is due ({@link #syncDue}): a {@code sync}
   * waits, or the sync interval runs out while no entries come.
   */
  private void awaitWork() throws InterruptedException {
    while (true) {
      long seen = inbox.wakes();
      if (syncDue()) {
        return;
      }
      long timeout = unsynced.isEmpty() ? 0
          : Math.max(1, lastSyncNanos + syncPolicy.intervalNanos() - System.nanoTime());
      if (inbox.awaitAny(timeout, seen)) {
        return;
      }
    }
  }

  /** Whether what was written since the last fsync should be fsync'd now, with no batch to write. */
  private boolean syncDue() {
    return !unsynced.isEmpty() && (service.durabilityAwaited() || syncRequested || stopQueued
        || intervalOrBytesDue(0));
  }

  /** Whether the sync interval has passed, or {@code more} bytes to write reach the sync bytes. */
  private boolean intervalOrBytesDue(long more) {
    return syncPolicy.intervalNanos() <= 0 || syncPolicy.bytes() <= 0
        || System.nanoTime() - lastSyncNanos >= syncPolicy.intervalNanos()
        || unsyncedBytes + more >= syncPolicy.bytes();
  }

  /**
   * Once an entry is queued: waits until the batch interval since the last batch start is over, unless a {@code
   * sync} is waiting or a full batch is queued. Parking (not waiting on the inbox) keeps enqueuing from waking this
   * thread meanwhile.
   */
  private void awaitBatchInterval() {
    if (minBatchIntervalNanos <= 0) {
      return;
    }
    long until = lastBatchStart + minBatchIntervalNanos;
    waiting = true;
    try {
      for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
        if (service.durabilityAwaited() || inbox.queuedBytes() >= batchBytes || stopQueued
            || service.failed() || arena.writersWaiting()) {
          return;
        }
        LockSupport.parkNanos(this, left);
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
      }
    } finally {
      waiting = false;
    }
  }

  @Override
  public void run() {
    List<Task> taken = new ArrayList<>();
    boolean stop = false;
    thread = Thread.currentThread();
    try {
      while (!stop && !service.failed()) {
        awaitWork();
        if (!inbox.isEmpty()) {
          awaitBatchInterval();
          lastBatchStart = System.nanoTime();
          inbox.takeAll(taken);
          stop = writeBatches(taken);
          taken.clear();
        }
        if (!stop && !service.failed() && syncDue()) {
          fsync();
        }
      }
      if (!service.failed()) {
        writer.closeCleanly();
        synced(0);
      }
    } catch (IOException | RuntimeException e) {
      service.fail("persistence to " + writer.path() + " failed: " + e);
    } catch (Error e) {
      // Out of memory, say: without this, syncs would wait for this thread forever and writes go on.
      service.fail("persistence to " + writer.path() + " failed: " + e);
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      writer.abandon();
    }
  }

  /**
   * Writes {@code tasks} in batches of about the batch size, in order, up to {@link #STOP} or a failure; returns
   * whether {@link #STOP} was reached.
   */
  private boolean writeBatches(List<Task> tasks) throws IOException {
    int from = 0;
    while (from < tasks.size() && !service.failed()) {
      int to = from;
      long bytes = 0;
      while (to < tasks.size() && tasks.get(to) != STOP && bytes < batchBytes) {
        bytes += recordBytes(tasks.get(to));
        to++;
      }
      if (to > from) {
        boolean last = to == tasks.size() || tasks.get(to) == STOP;
        // A waiting sync is served once, after the last batch taken (group commit).
        boolean syncAfter = last && (service.durabilityAwaited() || syncRequested) || intervalOrBytesDue(bytes);
        writeBatch(tasks.subList(from, to), bytes, syncAfter);
      }
      if (to < tasks.size() && tasks.get(to) == STOP) {
        return true;
      }
      from = to;
    }
    return false;
  }

  private long recordBytes(Task task) {
    return SegmentFormat.recordBytes(task.meta().pageCount(), arena.pageSize());
  }

  /**
   * Writes {@code batch} (of {@code bytes} record bytes) and its commit mark, makes its entries' pages evictable,
   * and, if {@code syncAfter}, fsyncs the file and reports everything written to it so far durable.
   */
  private void writeBatch(List<Task> batch, long bytes, boolean syncAfter) throws IOException {
    // O_DIRECT: room for a padding record before each entry written in place.
    if (writer.ensureRoom(SegmentFormat.COMMIT_BYTES + (writer.direct()
        ? bytes + batch.size() * (writer.alignment() + (long) SegmentFormat.PAD_MIN_BYTES) : bytes))) {
      synced(0);  // the full file was closed with an fsync; the new one has nothing fsync'd yet
    }
    long[] locations = writer.direct() ? writeBatchDirect(batch, bytes) : writeBatchBuffered(batch);
    stats.persistBatches.increment();
    stats.bytesPersisted.add(bytes);
    stats.pageCrcsDerived.add(pagesDerived);
    pagesDerived = 0;
    writer.countEntries(batch.size());
    service.entriesWritten(batch, locations);
    for (Task task : batch) {
      // The chunk CRCs are spent: not kept for up to the sync interval.
      unsynced.add(task.chunkCrcs() == null ? task : new Task(task.block(), task.meta(), null));
    }
    unsyncedBytes += bytes;
    if (syncAfter) {
      fsync();
    }
  }

  /**
   * Fsyncs the file, reports what was written durable, and writes a commit mark that records it (on disk by the
   * next fsync, or the kernel's writeback; with O_DIRECT at once, in an aligned block of its own): it shows the last
   * batches fsync'd, so damage in them is not taken for a torn tail at recovery, on an idle DataNode too.
   */
  private void fsync() throws IOException {
    if (writer.direct()) {
      writer.endBatch();  // writes anything staged, so that the offset recorded below is on the disk
    }
    syncRequested = false;
    StoreFaultInjector.get().beforeFsync(writer.path());
    writer.force();
    stats.fsyncs.increment();
    long synced = writer.position();
    synced(synced);
    ByteBuffer mark = SegmentFormat.commitMark(synced, synced);
    if (writer.direct()) {
      writer.stage(mark);
      writer.endBatch();
    } else {
      writer.write(new ByteBuffer[] {mark});
    }
  }

  /** Everything written so far is fsync'd, and the current file up to {@code offset}: reports it durable. */
  private void synced(long offset) {
    syncedOffset = offset;
    lastSyncNanos = System.nanoTime();
    service.entriesDurable(unsynced);
    unsynced.clear();
    unsyncedBytes = 0;
  }

  /** The page-cache form of {@link #writeBatch}: one gathering write from the arena; returns the locations. */
  private long[] writeBatchBuffered(List<Task> batch) throws IOException {
    StoreFaultInjector injector = StoreFaultInjector.get();
    boolean piecewise = StoreFaultInjector.isActive();
    List<ByteBuffer> buffers = new ArrayList<>();
    long[] locations = new long[batch.size()];
    long position = writer.position();
    long batchStart = position;
    for (int t = 0; t < batch.size(); t++) {
      EntryMeta meta = batch.get(t).meta();
      locations[t] = SegmentFormat.location(writer.fileNumber(), position);
      int start = buffers.size();
      ByteBuffer prefix = SegmentFormat.prefix(meta.pageCount());
      buffers.add(prefix);
      int[] crcs = pageRuns(batch.get(t), buffers::add);
      ByteBuffer body = SegmentFormat.body(prefix, meta, crcs);
      if (piecewise) {
        writer.write(buffers.toArray(new ByteBuffer[0]), start, buffers.size());
        injector.afterPagesWritten(meta.blockId(), meta.logIndex());
        ByteBuffer firstHalf = body.duplicate().limit(body.limit() / 2);
        writer.write(new ByteBuffer[] {firstHalf});
        injector.midEntry(meta.blockId(), meta.logIndex());
        writer.write(new ByteBuffer[] {body.position(body.limit() / 2)});
        buffers.clear();
      } else {
        buffers.add(body);
      }
      position += SegmentFormat.recordBytes(meta.pageCount(), arena.pageSize());
    }
    buffers.add(SegmentFormat.commitMark(batchStart, syncedOffset));
    writer.write(buffers.toArray(new ByteBuffer[0]));
    return locations;
  }

  /** The O_DIRECT form of {@link #writeBatch}: the same records, staged, then padded to the alignment. */
  private long[] writeBatchDirect(List<Task> batch, long bytes) throws IOException {
    StoreFaultInjector injector = StoreFaultInjector.get();
    boolean piecewise = StoreFaultInjector.isActive();
    long[] locations = new long[batch.size()];
    long start = writer.position();
    boolean inPlace = !piecewise && writer.inPlace(arena.pageSize());
    for (int t = 0; t < batch.size(); t++) {
      EntryMeta meta = batch.get(t).meta();
      boolean pagesInPlace = inPlace && meta.pageCount() >= inPlaceMinPages;
      if (pagesInPlace) {
        int pad = writer.paddingBefore(SegmentFormat.PREFIX_BYTES);
        if (pad > 0) {
          writer.stagePadding(pad);
        }
      }
      locations[t] = SegmentFormat.location(writer.fileNumber(), writer.position());
      ByteBuffer prefix = SegmentFormat.prefix(meta.pageCount());
      writer.stage(prefix.duplicate());
      int[] crcs = pagesInPlace ? pageRuns(batch.get(t), writer::appendInPlace) : stagePages(batch.get(t));
      ByteBuffer body = SegmentFormat.body(prefix, meta, crcs);
      if (piecewise) {
        writer.flushStaged();
        injector.afterPagesWritten(meta.blockId(), meta.logIndex());
        writer.stage(body.duplicate().limit(body.limit() / 2));
        writer.flushStaged();
        injector.midEntry(meta.blockId(), meta.logIndex());
        writer.stage(body.position(body.limit() / 2));
      } else {
        writer.stage(body);
      }
    }
    writer.stage(SegmentFormat.commitMark(start, syncedOffset));
    writer.endBatch();
    stats.persistDirectBatches.increment();
    stats.bytesPadded.add(writer.position() - start - bytes);
    return locations;
  }

  /** Checksums each page of the entry and stages it right after, while it is in the cache; returns the CRCs. */
  private int[] stagePages(Task task) throws IOException {
    EntryMeta meta = task.meta();
    ArenaFiles files = arena.files();
    int pageSize = arena.pageSize();
    int[] crcs = new int[meta.pageCount()];
    for (int j = 0; j < crcs.length; j++) {
      int slot = arena.slot(meta.firstSeq() + j);
      ByteBuffer page = files.map(slot).slice(files.offsetInFile(slot), pageSize);
      crcs[j] = pageCrc(task, j, page.duplicate());
      writer.stage(page);
    }
    return crcs;
  }

  /**
   * The CRC32C of page {@code j} of the task's entry: derived from the write's checked chunk CRCs where they cover
   * the page whole ({@link PageChecksums}), else computed from {@code page} (whose position it moves).
   */
  private int pageCrc(Task task, int j, ByteBuffer page) {
    if (task.chunkCrcs() != null) {
      EntryMeta meta = task.meta();
      long derived = PageChecksums.derive(task.chunkCrcs(), meta.offset(), meta.length(), arena.pageSize(), j);
      if (derived >= 0) {
        pagesDerived++;
        return (int) derived;
      }
    }
    crc.reset();
    crc.update(page);
    return (int) crc.getValue();
  }

  /** Where {@link #pageRuns} puts each run of adjacent arena pages. */
  private interface RunSink {
    void accept(ByteBuffer run) throws IOException;
  }

  /**
   * Checksums each page of the entry and hands the pages to {@code sink} as slices of the arena mapping, adjacent
   * slots merged into one run; returns the CRC32Cs.
   */
  private int[] pageRuns(Task task, RunSink sink) throws IOException {
    EntryMeta meta = task.meta();
    ArenaFiles files = arena.files();
    int pageSize = arena.pageSize();
    int[] crcs = new int[meta.pageCount()];
    int runStart = -1;
    int runSlots = 0;
    for (int j = 0; j < crcs.length; j++) {
      int slot = arena.slot(meta.firstSeq() + j);
      crcs[j] = pageCrc(task, j, files.map(slot).slice(files.offsetInFile(slot), pageSize));
      if (runStart >= 0 && files.adjacent(runStart + runSlots - 1, slot)) {
        runSlots++;
        continue;
      }
      if (runSlots > 0) {
        sink.accept(run(runStart, runSlots));
      }
      runStart = slot;
      runSlots = 1;
    }
    if (runSlots > 0) {
      sink.accept(run(runStart, runSlots));
    }
    return crcs;
  }

  /** {@code slots} adjacent arena slots from {@code firstSlot} as one slice of the mapping. */
  private ByteBuffer run(int firstSlot, int slots) {
    ArenaFiles files = arena.files();
    return files.map(firstSlot).slice(files.offsetInFile(firstSlot), slots * arena.pageSize());
  }

  /** The segment file this thread writes (or last wrote); null before its first write. */
  Path currentFile() {
    return writer.path();
  }
}
