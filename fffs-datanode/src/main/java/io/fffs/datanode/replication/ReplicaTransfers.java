package io.fffs.datanode.replication;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockTransferProto;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.datanode.store.BlockStore;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The block copies the NameNode asks this DataNode to send for re-replication ({@code BlockTransferProto} in
 * heartbeat answers): at most {@code fffs.datanode.replication.max-streams} at once, the rest queued, all paced
 * together to {@code fffs.datanode.replication.bandwidth}. Each copy streams the block's whole log to one target
 * ({@link LogStreamer}); a copy asked for again while it is queued or running is not started twice. A failure is
 * logged; the NameNode schedules the copy again after its pending timeout. Thread-safe.
 */
public final class ReplicaTransfers implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaTransfers.class);

  private final BlockStore store;
  private final HybridLogicalClock clock;
  private final Throttle throttle;
  private final int timeoutMillis;
  private final int maxFrameBytes;
  private final int maxPayload;
  private final ExecutorService streams;
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
  private final LongAdder copied = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private volatile String lastFailure;

  public ReplicaTransfers(Configuration conf, BlockStore store, HybridLogicalClock clock) {
    this.store = store;
    this.clock = clock;
    this.throttle = new Throttle(DataNodeServiceConfigKeys.replicationBandwidth(conf), System::nanoTime);
    this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, DataTransferConfigKeys.responseTimeoutMillis(conf));
    this.maxFrameBytes = DataTransferConfigKeys.maxFrameSize(conf);
    this.maxPayload = DataTransferConfigKeys.maxPayload(conf);
    int threads = DataNodeServiceConfigKeys.replicationMaxStreams(conf);
    this.streams = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
        r -> {
          Thread t = new Thread(r, "fffs-datanode-replication");
          t.setDaemon(true);
          return t;
        });
  }

  /** Queues the copies of {@code transfer}, one per target. */
  public void submit(BlockTransferProto transfer) {
    for (DatanodeIdProto target : transfer.getTargetsList()) {
      String key = transfer.getBlockId() + "@" + target.getDatanodeUuid();
      if (!inFlight.add(key)) {
        continue;
      }
      try {
        streams.execute(() -> {
          try {
            copy(transfer, target);
          } finally {
            inFlight.remove(key);
          }
        });
      } catch (RejectedExecutionException e) {
        inFlight.remove(key);
      }
    }
  }

  private void copy(BlockTransferProto transfer, DatanodeIdProto target) {
    long started = System.nanoTime();
    try {
      LogStreamer streamer = new LogStreamer(store, clock, throttle, timeoutMillis, maxFrameBytes, maxPayload);
      long length = streamer.copy(transfer.getBlockId(), target, transfer.hasToken() ? transfer.getToken() : null);
      copied.increment();
      LOG.info("Copied block {} ({} bytes, whole history) to {}:{} in {} ms", transfer.getBlockId(), length,
          target.getHost(), target.getDataPort(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    } catch (IOException | RuntimeException e) {
      failed.increment();
      lastFailure = "block " + transfer.getBlockId() + " to " + target.getHost() + ":" + target.getDataPort() + ": "
          + e;
      LOG.warn("Could not copy block {} to {}:{} (the NameNode will ask again): {}", transfer.getBlockId(),
          target.getHost(), target.getDataPort(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Copies sent whole since start. */
  public long copied() {
    return copied.sum();
  }

  /** Copies that failed since start. */
  public long failed() {
    return failed.sum();
  }

  /** The last copy that failed (block, target and why), or null. */
  public String lastFailure() {
    return lastFailure;
  }

  @Override
  public void close() {
    streams.shutdownNow();
    try {
      streams.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
