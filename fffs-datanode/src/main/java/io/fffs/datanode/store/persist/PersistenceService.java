package io.fffs.datanode.store.persist;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.datanode.store.StoreStats;
import io.fffs.datanode.store.arena.PageArena;
import io.fffs.datanode.store.log.Block;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The persistence threads and what writers and {@code sync} see of them. Each block is hashed to one
 * {@link PersistenceWorker}, so its entries reach disk in log order (a per-block FIFO); different blocks proceed
 * in parallel when there are several threads. Writers only enqueue; {@link #sync} waits.
 */
public final class PersistenceService {
  private final PageArena arena;
  private final DurabilityTracker tracker;
  private final StoreStats stats;
  private final List<PersistenceWorker> workers = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final Object durableMonitor = new Object();
  /** Threads in {@link #awaitDurable}: while any, workers start batches without waiting for the batch interval. */
  private final AtomicInteger durableWaiters = new AtomicInteger();
  private volatile String failure;
  private final long chunkCrcBudget;
  /** Bytes of chunk CRCs held by entries queued and not yet durable. */
  private final AtomicLong chunkCrcBytes = new AtomicLong();
  /** Numbers of new segment files, shared by the persistence threads and the cleaner (scan order = creation order). */
  private final AtomicLong fileNumbers;

  /**
   * @param minBatchIntervalNanos group commit: the least time between two batch starts of a thread while nobody
   *     waits for durability (0: a batch starts as soon as an entry is queued)
   * @param chunkCrcBudget bytes of chunk CRCs the queued entries may hold ({@code
   *     fffs.datanode.persistence.chunk-crc-budget}); a write queued beyond it goes without
   * @param directIoAlignment 0 to write through the page cache, else O_DIRECT with this alignment
   * @param syncPolicy when to fsync what was written while no {@code sync} waits
   */
  public PersistenceService(Path dataDir, int threadCount, long batchBytes, long minBatchIntervalNanos,
      int inPlaceMinPages, long chunkCrcBudget, long segmentFileSize, long firstFileNumber, PageArena arena,
      DurabilityTracker tracker, StoreStats stats, int directIoAlignment, SyncPolicy syncPolicy) {
    this.chunkCrcBudget = chunkCrcBudget;
    this.arena = arena;
    this.tracker = tracker;
    this.stats = stats;
    stats.persistenceDirectIoAlignment = directIoAlignment;
    this.fileNumbers = new AtomicLong(firstFileNumber);
    for (int i = 0; i < threadCount; i++) {
      SegmentWriter writer = new SegmentWriter(dataDir, arena.pageSize(), segmentFileSize, fileNumbers,
          directIoAlignment, batchBytes);
      PersistenceWorker worker = new PersistenceWorker(this, arena, writer, batchBytes, minBatchIntervalNanos,
          inPlaceMinPages, stats, syncPolicy);
      workers.add(worker);
      Thread thread = new Thread(worker, "fffs-persist-" + i);
      thread.setDaemon(true);
      threads.add(thread);
    }
    // A writer waiting for room waits for persisted pages: no group-commit wait then.
    arena.onFull(() -> workers.forEach(PersistenceWorker::hurry));
  }

  /**
   * When a persistence thread fsyncs what it wrote while no {@code sync} waits: {@code intervalNanos} after its
   * last fsync, or once {@code bytes} were written since (either 0: after every batch).
   */
  public record SyncPolicy(long intervalNanos, long bytes) {}

  /** Where new segment files get their numbers. */
  AtomicLong fileNumbers() {
    return fileNumbers;
  }

  /** Whether a persistence thread may still be appending to {@code file} (its current file). */
  public boolean isOpenFile(java.nio.file.Path file) {
    for (PersistenceWorker worker : workers) {
      if (file.equals(worker.currentFile())) {
        return true;
      }
    }
    return false;
  }

  public void start() {
    threads.forEach(Thread::start);
  }

  /**
   * Queues an entry just published in {@code block}'s log; called by the block's writer, in log order.
   * {@code chunkCrcs}: the checked CRC32Cs of a WRITE entry's 512-byte chunks, or null.
   */
  public void enqueue(Block block, EntryMeta meta, int[] chunkCrcs) {
    int[] kept = chunkCrcs;
    if (kept != null && chunkCrcBytes.addAndGet(4L * kept.length) > chunkCrcBudget) {
      chunkCrcBytes.addAndGet(-4L * kept.length);
      kept = null; // over the budget: persistence checksums this entry's pages itself
    }
    workers.get(Math.floorMod(Long.hashCode(block.id()), workers.size()))
        .enqueue(new PersistenceWorker.Task(block, meta, kept));
  }

  /**
   * Called by a worker once the entries of {@code batch} are written to their segment file (not yet fsync'd), entry
   * {@code i} at {@code locations[i]}: their pages may leave the arena, since a read finds them in the file from now
   * on. Each lock is taken once per batch (a block's write lock once per run of its entries), not once per entry:
   * the writers take the same locks for every write. Disk locations are set before the pages may leave memory.
   */
  void entriesWritten(List<PersistenceWorker.Task> batch, long[] locations) {
    int count = batch.size();
    long[] firstSeqs = new long[count];
    int ranges = 0;
    long crcBytes = 0;
    int next = 0;
    while (next < count) {
      Block block = batch.get(next).block();
      block.writeLock().lock();
      try {
        do {
          block.log().setDiskLoc(batch.get(next).meta().logIndex(), locations[next]);
          next++;
        } while (next < count && batch.get(next).block() == block);
      } finally {
        block.writeLock().unlock();
      }
    }
    for (int i = 0; i < count; i++) {
      PersistenceWorker.Task task = batch.get(i);
      if (task.meta().pageCount() > 0) {
        firstSeqs[ranges++] = task.meta().firstSeq();
      }
      crcBytes += task.chunkCrcs() == null ? 0 : 4L * task.chunkCrcs().length;
    }
    chunkCrcBytes.addAndGet(-crcBytes);
    arena.persisted(firstSeqs, ranges);
    stats.entriesPersisted.add(count);
  }

  /**
   * Called by a worker once the entries of {@code batch}, written before ({@link #entriesWritten}), are fsync'd:
   * they count toward the durable frontier and {@code sync}.
   */
  void entriesDurable(List<PersistenceWorker.Task> batch) {
    int count = batch.size();
    if (count == 0) {
      return;
    }
    long[] hlcs = new long[count];
    for (int i = 0; i < count; i++) {
      hlcs[i] = batch.get(i).meta().trackHlc();
    }
    tracker.durable(hlcs, count);
    stats.entriesDurable.add(count);
    synchronized (durableMonitor) {
      for (PersistenceWorker.Task task : batch) {
        Block block = task.block();
        block.setDurableCount(Math.max(block.durableCount(), task.meta().logIndex() + 1));
      }
      durableMonitor.notifyAll();
    }
  }

  /**
   * Returns once {@code block} is durable through its first {@code count} entries.
   *
   * @throws FffsException {@code IO_ERROR} if persistence failed before that
   */
  public void awaitDurable(Block block, int count) throws FffsException, InterruptedException {
    awaitDurable(block, count, block.historyEpoch());
  }

  /**
   * {@link #awaitDurable(Block, int)} for a count read in history epoch {@code epoch}: garbage collection trims a
   * log only once all of it is durable, so a trim since then means the entries counted are durable.
   */
  public void awaitDurable(Block block, int count, int epoch) throws FffsException, InterruptedException {
    if (block.durableCount() >= count || block.historyEpoch() != epoch) {
      return;
    }
    durableWaiters.incrementAndGet();
    try {
      workers.forEach(PersistenceWorker::hurry);
      synchronized (durableMonitor) {
        while (block.durableCount() < count && block.historyEpoch() == epoch) {
          checkHealthy();
          durableMonitor.wait(100);
        }
      }
    } finally {
      durableWaiters.decrementAndGet();
    }
  }

  /**
   * Asks every persistence thread to fsync what it has written without waiting for the sync interval: for work
   * that waits for entries to be durable without waiting itself (a trim or a removal, asked again later).
   */
  public void requestSync() {
    workers.forEach(PersistenceWorker::requestSync);
  }

  /** Whether someone waits in {@link #awaitDurable} (a worker then skips its group-commit wait). */
  boolean durabilityAwaited() {
    return durableWaiters.get() > 0;
  }

  /** Marks the store failed: no more writes, no more persistence; every waiter gets {@code IO_ERROR}. */
  public void fail(String reason) {
    if (failure == null) {
      failure = reason;
    }
    arena.fail(reason + "; the DataNode takes no more writes until it is restarted");
    synchronized (durableMonitor) {
      durableMonitor.notifyAll();
    }
  }

  public boolean failed() {
    return failure != null;
  }

  public void checkHealthy() throws FffsException {
    String reason = failure;
    if (reason != null) {
      throw new FffsException(ErrorCode.IO_ERROR, reason + "; the DataNode takes no more writes until it is"
          + " restarted");
    }
  }

  /** Persists everything queued (unless failed), closes the files cleanly with footers, and stops the threads. */
  public void shutdown() throws InterruptedException {
    for (PersistenceWorker worker : workers) {
      worker.enqueue(PersistenceWorker.STOP);
    }
    for (Thread thread : threads) {
      if (thread.isAlive()) {
        thread.join(TimeUnit.MINUTES.toMillis(5));
      }
    }
  }
}
