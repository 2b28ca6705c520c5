package io.fffs.datanode.store.arena;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.datanode.store.StoreStats;
import io.fffs.datanode.store.util.AscendingLongSet;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * Fixed-size pages in memory, handed out as a ring in allocation order.
 *
 * <p>Every page ever allocated gets the next <em>sequence number</em> ({@code seq}, a long that never repeats); it
 * lives in slot {@code seq % slotCount} of the {@link ArenaFiles}. Pages {@code [tail, head)} are resident; pages
 * below {@code tail} have been evicted. Because slots are reused in sequence order, eviction is FIFO by
 * construction: the oldest page leaves first. An entry's pages are allocated together, so they have consecutive
 * sequence numbers and the block log needs to remember only the first.
 *
 * <p>{@code tail} advances only over pages that are persisted (or abandoned) and not pinned by a reader. A writer
 * that finds no room waits for the persistence threads (backpressure, counted in {@link StoreStats}).
 *
 * <p>Thread-safe; all bookkeeping is under this object's monitor, page bytes are not.
 */
public final class PageArena implements AutoCloseable {
  private static final int PRETOUCH_CHUNK_BYTES = 256 * 1024;

  private final ArenaFiles files;
  private final int slotCount;
  private final boolean evictable;
  private final long waitTimeoutNanos;
  private final StoreStats stats;
  private final SlotChecksums checksums;
  /** First sequence number of every allocated range not yet persisted (allocation order is ascending). */
  private final AscendingLongSet unpersisted = new AscendingLongSet();
  /** Reader pins: sequence number → count; no page at or above the smallest pin may be evicted. */
  private final TreeMap<Long, Integer> pins = new TreeMap<>();
  private long head;
  private long tail;
  private int waiters;
  /** Run when a writer starts to wait for room (persistence should not hold its batch back then). */
  private volatile Runnable onFull = () -> { };
  /** Slots [touchFrom, touchTo) are being pre-touched and must not be handed out yet. */
  private long touchFrom = -1;
  private long touchTo = -1;
  private String failure;
  private Thread pretoucher;

  /**
   * @param evictable whether persisted pages may be evicted; without persistence nothing ever is, and a full arena
   *     refuses writes
   */
  public PageArena(ArenaFiles files, boolean evictable, long waitTimeoutNanos, StoreStats stats) {
    this.files = files;
    this.slotCount = files.slotCount();
    this.evictable = evictable;
    this.waitTimeoutNanos = waitTimeoutNanos;
    this.stats = stats;
    this.checksums = new SlotChecksums(slotCount, files.pageSize());
  }

  /** Sets what runs (under this arena's lock: keep it short) when a writer starts to wait for room. */
  public void onFull(Runnable action) {
    this.onFull = action;
  }

  /** Whether a writer waits for room now. */
  public synchronized boolean writersWaiting() {
    return waiters > 0;
  }

  public ArenaFiles files() {
    return files;
  }

  /** The chunk CRCs kept with resident pages by the writes that filled them. */
  public SlotChecksums checksums() {
    return checksums;
  }

  public int pageSize() {
    return files.pageSize();
  }

  public int slotCount() {
    return slotCount;
  }

  public int slot(long seq) {
    return (int) (seq % slotCount);
  }

  /** Starts the background thread that touches every page once before it is first used. */
  public synchronized void startPretouch() {
    pretoucher = new Thread(this::pretouch, "fffs-arena-pretouch");
    pretoucher.setDaemon(true);
    pretoucher.start();
  }

  /**
   * Touches every slot once, ahead of the writers ({@link ArenaFiles#touch}). If that fails (the tmpfs ran out of
   * space after the start-up check), the arena fails with a reason a user can act on, and writers waiting for those
   * slots get it instead of waiting forever.
   */
  private void pretouch() {
    int chunk = Math.max(1, PRETOUCH_CHUNK_BYTES / pageSize());
    try {
      for (long from = 0; from < slotCount && !Thread.currentThread().isInterrupted(); from += chunk) {
        long to = Math.min(slotCount, from + chunk);
        synchronized (this) {
          if (failure != null || head >= to) {
            continue;
          }
          from = Math.max(from, head);
          touchFrom = from;
          touchTo = to;
        }
        files.touch((int) from, (int) to);
        stats.pagesPretouched.add(to - from);
        synchronized (this) {
          touchFrom = touchTo = -1;
          notifyAll();
        }
      }
    } catch (IOException | RuntimeException e) {
      touchFailed(e);
    }
  }

  private synchronized void touchFailed(Throwable e) {
    touchFrom = touchTo = -1;
    fail("the page arena in " + files.dir() + " could not be touched (" + e + "); its tmpfs is probably full:"
        + " free space there or lower fffs.datanode.memory.capacity");
  }

  /**
   * Allocates {@code count} consecutive pages and returns the sequence number of the first; they stay resident
   * until {@link #persisted(long)} or {@link #abandon(long)} is called with that number. Waits while the arena is
   * full (backpressure).
   *
   * @throws FffsException {@code IO_ERROR} if the arena stays full past the wait timeout, cannot ever hold
   *     {@code count} pages, or the store failed; {@code INVALID_ARGUMENT} for a write larger than the arena
   */
  public synchronized long allocate(int count) throws FffsException, InterruptedException {
    if (count > slotCount) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a write of " + count + " pages does not fit in the page"
          + " arena of " + slotCount + " pages; write less at once or raise fffs.datanode.memory.capacity");
    }
    long deadline = 0;
    long waitStart = 0;
    while (true) {
      checkFailure();
      if (beingTouched(count)) {
        wait(); // the pre-toucher is about to finish these slots; not backpressure
        continue;
      }
      if (fits(count)) {
        break;
      }
      if (!evictable) {
        throw new FffsException(ErrorCode.IO_ERROR, "the page arena (" + slotCount + " pages) is full and"
            + " persistence is off, so nothing can be evicted; raise fffs.datanode.memory.capacity");
      }
      long now = System.nanoTime();
      if (waitStart == 0) {
        waitStart = now;
        deadline = now + waitTimeoutNanos;
        stats.backpressureWaits.increment();
        onFull.run();
      } else if (now - deadline >= 0) {
        stats.backpressureNanos.add(now - waitStart);
        throw new FffsException(ErrorCode.IO_ERROR, "the page arena stayed full for "
            + waitTimeoutNanos / 1_000_000 + " ms: persistence is not keeping up, readers hold pages, or a"
            + " reserved write is still open; check the data disk, that every ReadView is closed and that every"
            + " PageReservation is committed or closed");
      }
      waiters++;
      try {
        long waitMillis = Math.max(1, (deadline - now) / 1_000_000);
        wait(Math.min(waitMillis, 100));
      } finally {
        waiters--;
      }
    }
    if (waitStart != 0) {
      stats.backpressureNanos.add(System.nanoTime() - waitStart);
    }
    long first = head;
    head += count;
    if (evictable) {
      unpersisted.add(first);
    }
    return first;
  }

  /** Whether the next {@code count} pages to allocate include slots the pre-toucher is touching now. */
  private boolean beingTouched(int count) {
    return touchFrom >= 0 && head < touchTo && head + count > touchFrom;
  }

  /** Makes room for {@code count} more pages by evicting if allowed; false if they must wait. */
  private boolean fits(int count) {
    long needTail = head + count - slotCount;
    if (needTail <= tail) {
      return true;
    }
    if (!evictable) {
      return false;
    }
    long limit = head;
    if (!unpersisted.isEmpty()) {
      limit = Math.min(limit, unpersisted.first());
    }
    if (!pins.isEmpty()) {
      limit = Math.min(limit, pins.firstKey());
    }
    if (needTail > limit) {
      return false;
    }
    stats.pagesEvicted.add(needTail - tail);
    tail = needTail;
    files.epoch().publish(tail);  // before the caller writes into the freed slots
    return true;
  }

  /** The range that starts at {@code firstSeq} is on disk; its pages may now be evicted. */
  public synchronized void persisted(long firstSeq) {
    unpersisted.remove(firstSeq);
    if (waiters > 0) {
      notifyAll();
    }
  }

  /** The ranges that start at {@code firstSeqs[0, count)} are on disk: {@link #persisted(long)} under one lock. */
  public synchronized void persisted(long[] firstSeqs, int count) {
    for (int i = 0; i < count; i++) {
      unpersisted.remove(firstSeqs[i]);
    }
    if (waiters > 0) {
      notifyAll();
    }
  }

  /** The range that starts at {@code firstSeq} will never be persisted (its write failed); its slots are free. */
  public void abandon(long firstSeq) {
    persisted(firstSeq);
  }

  /**
   * The {@code count} pages from {@code firstSeq} were never published (a reserved write was not committed): if
   * they are still the last ones allocated their slots are handed out again at once (the head moves back), else
   * they are abandoned and leave with the next eviction.
   */
  public synchronized void release(long firstSeq, int count) {
    if (head == firstSeq + count) {
      checksums.forget(firstSeq, count);  // those sequence numbers come again, with other bytes
      head = firstSeq;
      unpersisted.remove(firstSeq);
      notifyAll();
    } else {
      abandon(firstSeq);
    }
  }

  /** Wakes every waiting writer with an {@code IO_ERROR} carrying {@code reason}. */
  public synchronized void fail(String reason) {
    if (failure == null) {
      failure = reason;
    }
    notifyAll();
  }

  private void checkFailure() throws FffsException {
    if (failure != null) {
      throw new FffsException(ErrorCode.IO_ERROR, failure);
    }
  }

  /**
   * Pins every page resident now: none of them is evicted until the pin is released or narrowed. A reader pins
   * first, then resolves which pages it needs; a page whose sequence number is below {@link Pin#residentFrom()} is
   * not resident and must be read from disk.
   */
  public synchronized Pin pin() {
    addPin(tail);
    return new Pin(tail);
  }

  private void addPin(long seq) {
    pins.merge(seq, 1, Integer::sum);
  }

  private synchronized void movePin(long from, long to) {
    addPin(to);
    removePin(from);
  }

  private synchronized void removePin(long seq) {
    Integer count = pins.get(seq);
    if (count != null) {
      if (count == 1) {
        pins.remove(seq);
      } else {
        pins.put(seq, count - 1);
      }
    }
    if (waiters > 0) {
      notifyAll();
    }
  }

  /** Pages in memory now (resident, including not yet persisted ones). */
  public synchronized long residentPages() {
    return head - tail;
  }

  /** Pages not yet persisted. */
  public synchronized int unpersistedRanges() {
    return unpersisted.size();
  }

  /** Number of pages ever allocated. */
  public synchronized long allocatedPages() {
    return head;
  }

  synchronized Map<Long, Integer> pinsForTest() {
    return new TreeMap<>(pins);
  }

  @Override
  public void close() {
    Thread toucher;
    synchronized (this) {
      fail("the block store is closed");
      toucher = pretoucher;
    }
    if (toucher != null) {
      toucher.interrupt();
      try {
        toucher.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    files.close();
  }

  /** A reader's hold on resident pages; release it exactly once (views do this on close). */
  public final class Pin implements AutoCloseable {
    private long seq;
    private boolean released;

    private Pin(long seq) {
      this.seq = seq;
    }

    /** Pages with a sequence number at or above this are resident while the pin is held. */
    public long residentFrom() {
      return seq;
    }

    /** Keeps only pages at or above {@code minSeq} (≥ {@link #residentFrom()}) pinned. */
    public void narrow(long minSeq) {
      if (minSeq > seq && !released) {
        movePin(seq, minSeq);
        seq = minSeq;
      }
    }

    @Override
    public void close() {
      if (!released) {
        released = true;
        removePin(seq);
      }
    }
  }
}
