package io.fffs.minicluster.dataserver;

import io.fffs.common.error.FffsException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.BlockInfo;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.BlockSummary;
import io.fffs.datanode.store.MemoryUsage;
import io.fffs.datanode.store.ReadView;
import io.fffs.datanode.store.StoreStats;
import io.fffs.datanode.store.WriteOptions;
import io.fffs.datanode.store.WriteResult;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store whose writes take at least {@code delayMicros}, wait while it is {@link #hold() held}, can be made to fail
 * one ({@link #failNextWrite}), and that records the largest number of concurrent writes.
 */
final class SlowStore implements BlockStore {
  private final BlockStore store;
  private final long delayMicros;
  private final AtomicInteger inside = new AtomicInteger();
  final AtomicInteger maxConcurrentWrites = new AtomicInteger();
  private volatile CountDownLatch gate = new CountDownLatch(0);
  /** What the next write of {@link #failing} throws instead of writing, once. */
  private volatile Throwable failure;
  private volatile long failing = -1;

  SlowStore(BlockStore store, long delayMicros) {
    this.store = store;
    this.delayMicros = delayMicros;
  }

  @Override
  public WriteResult write(long blockId, long offset, ByteBuffer data, WriteOptions options) throws FffsException {
    maxConcurrentWrites.accumulateAndGet(inside.incrementAndGet(), Math::max);
    try {
      awaitGate();
      Throwable fail = failure;
      if (blockId == failing && fail != null) {
        failure = null;
        throw SlowStore.<RuntimeException>sneaky(fail);
      }
      long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(delayMicros);
      while (System.nanoTime() < until) {
        Thread.onSpinWait();
      }
      return store.write(blockId, offset, data, options);
    } finally {
      inside.decrementAndGet();
    }
  }

  /**
   * The next write of {@code blockId} throws {@code failure} (whatever it is: an {@link Error}, a checked exception
   * the store does not declare) instead of writing.
   */
  void failNextWrite(long blockId, Throwable failure) {
    this.failure = failure;
    this.failing = blockId;
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T sneaky(Throwable failure) throws T {
    throw (T) failure;
  }

  /** Writes wait from now until {@link #open()}. */
  void hold() {
    gate = new CountDownLatch(1);
  }

  void open() {
    gate.countDown();
  }

  private void awaitGate() {
    try {
      gate.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the store was held", e);
    }
  }

  @Override
  public WriteResult truncate(long blockId, long newLength) throws FffsException {
    return store.truncate(blockId, newLength);
  }

  @Override
  public WriteResult delete(long blockId) throws FffsException {
    return store.delete(blockId);
  }

  @Override
  public ReadView read(long blockId, long offset, int length, TimeSpec time) throws FffsException {
    return store.read(blockId, offset, length, time);
  }

  @Override
  public ReadView readAtLogIndex(long blockId, int logIndex, long offset, int length) throws FffsException {
    return store.readAtLogIndex(blockId, logIndex, offset, length);
  }

  @Override
  public BlockInfo info(long blockId, TimeSpec time) throws FffsException {
    return store.info(blockId, time);
  }

  @Override
  public BlockInfo infoAtLogIndex(long blockId, int logIndex) throws FffsException {
    return store.infoAtLogIndex(blockId, logIndex);
  }

  @Override
  public void sync(Collection<Long> blockIds) throws FffsException {
    store.sync(blockIds);
  }

  @Override
  public HlcTimestamp durableFrontier() {
    return store.durableFrontier();
  }

  @Override
  public List<BlockSummary> blockReport() {
    return store.blockReport();
  }

  @Override
  public MemoryUsage memoryUsage() {
    return store.memoryUsage();
  }

  @Override
  public StoreStats stats() {
    return store.stats();
  }

  @Override
  public void close() throws FffsException {
    store.close();
  }
}
