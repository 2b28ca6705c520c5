package io.fffs.datanode.store.log;

import io.fffs.common.history.MomentSet;
import io.fffs.common.usertime.UserTimeExtractor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * One block of the multi-log: its {@link BlockLog}, its {@link PageVersionIndex}, and the locks that make them safe
 * to share.
 *
 * <p>Locking: {@link #writerLock()} serialises writers of this block (one writer at a time; the whole write,
 * including waiting for arena space, runs under it). {@link #readLock()} / {@link #writeLock()} guard the log and the
 * index: a writer holds the write lock only to stamp and publish an entry (its pages are filled before), the
 * persistence thread only to record where an entry went on disk, and readers hold the read lock only while they
 * resolve which pages to read — never while bytes are copied or sent.
 *
 * <p>Garbage collection of history replaces the log and the index with ones that hold only the entries a retained
 * moment still reads ({@link #replaceHistory}, under both the writer lock and the write lock, once every entry is
 * durable), and records the moments the block still answers for exactly ({@link #kept}).
 */
public final class Block {
  private final long id;
  private BlockLog log = new BlockLog();
  private PageVersionIndex index = new PageVersionIndex();
  /** The moments garbage collection kept; null while it has dropped nothing of this block. */
  private volatile MomentSet kept;
  /** Bumped each time {@link #replaceHistory} renumbers the log (a sync waiting for a count then ends). */
  private volatile int historyEpoch;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final ReentrantLock writerLock = new ReentrantLock();
  /** Entries known durable (fsync'd), a prefix of the log; guarded by the persistence service's monitor. */
  private volatile int durableCount;
  /** Entries handed to persistence; only the writer (under writerLock) and recovery touch it. */
  private int enqueuedCount;
  /** {@link #replicaFrontier()} of a block this node stamps itself. */
  public static final long NOT_FOLLOWING = -1;

  private String extractorName;
  /** While following a primary: the HLC up to which this replica knows every entry (packed); else NOT_FOLLOWING. */
  private volatile long replicaFrontier = NOT_FOLLOWING;
  /** Left out of a pipeline: entries after the frontier are missing here. */
  private volatile boolean stale;
  /** The highest write-pipeline epoch the block was opened with here (0: none); lower ones are refused. */
  private volatile long pipelineEpoch;
  /** Whether garbage collection knows this block survives a restart (listed or adopted: HistoryCollector.adopt). */
  private volatile boolean known;
  /** Copies of the log under way ({@link #holdHistory}): garbage collection leaves the log as it is meanwhile. */
  private final AtomicInteger historyHolds = new AtomicInteger();
  private UserTimeExtractor.Stream userTimeStream;

  public Block(long id) {
    this.id = id;
  }

  public long id() {
    return id;
  }

  public BlockLog log() {
    return log;
  }

  public PageVersionIndex index() {
    return index;
  }

  public ReentrantReadWriteLock.ReadLock readLock() {
    return lock.readLock();
  }

  public ReentrantReadWriteLock.WriteLock writeLock() {
    return lock.writeLock();
  }

  public ReentrantLock writerLock() {
    return writerLock;
  }

  /** The moments at which this block's state is still exact (null: every moment). Read under the read lock. */
  public MomentSet kept() {
    return kept;
  }

  /** Records the moments this block answers for exactly from now on; caller holds the write lock. */
  public void setKept(MomentSet moments) {
    kept = moments == null || moments.isAll() ? null : moments;
  }

  public int historyEpoch() {
    return historyEpoch;
  }

  /**
   * Keeps {@link #replaceHistory} away until {@link #releaseHistory}, so that a copy walking the log by index reads
   * the entries it listed. Taken under the read lock; garbage collection checks {@link #historyHeld} under the write
   * lock and tries again later.
   */
  public void holdHistory() {
    historyHolds.incrementAndGet();
  }

  public void releaseHistory() {
    historyHolds.decrementAndGet();
  }

  public boolean historyHeld() {
    return historyHolds.get() > 0;
  }

  /**
   * Swaps in a log and index that hold a subset of the entries, renumbered (garbage collection). Caller holds the
   * writer lock and the write lock, and every entry is durable, so nothing refers to the old log indexes.
   */
  public void replaceHistory(BlockLog newLog, PageVersionIndex newIndex) {
    log = newLog;
    index = newIndex;
    durableCount = newLog.count();
    enqueuedCount = newLog.count();
    historyEpoch++;
  }

  public int durableCount() {
    return durableCount;
  }

  public void setDurableCount(int count) {
    durableCount = count;
  }

  public int enqueuedCount() {
    return enqueuedCount;
  }

  public void setEnqueuedCount(int count) {
    enqueuedCount = count;
  }

  /** The name of the user-time extractor this block's stream belongs to, or null. Writer-only. */
  public String extractorName() {
    return extractorName;
  }

  /** The user-time parsing state carried between writes, or null. Writer-only. */
  public UserTimeExtractor.Stream userTimeStream() {
    return userTimeStream;
  }

  public void setUserTimeStream(String name, UserTimeExtractor.Stream stream) {
    this.extractorName = name;
    this.userTimeStream = stream;
  }

  /**
   * While this node follows another DataNode's stamps for the block: the HLC (packed) at or below which it holds
   * every entry; {@link #NOT_FOLLOWING} when it stamps the block itself. Set under the write lock together with the
   * entries it covers.
   */
  public long replicaFrontier() {
    return replicaFrontier;
  }

  public void setReplicaFrontier(long frontier) {
    this.replicaFrontier = frontier;
  }

  /** Whether this replica was left out of the block's pipeline (it misses entries after its frontier). */
  public boolean stale() {
    return stale;
  }

  public void setStale(boolean stale) {
    this.stale = stale;
  }

  public long pipelineEpoch() {
    return pipelineEpoch;
  }

  /** Whether history collection was told of this block since it began in this process (its first change). */
  public boolean known() {
    return known;
  }

  public void setKnown() {
    this.known = true;
  }

  public void setPipelineEpoch(long epoch) {
    this.pipelineEpoch = epoch;
  }
}
