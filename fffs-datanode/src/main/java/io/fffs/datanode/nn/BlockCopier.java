package io.fffs.datanode.nn;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.ipc.DatanodeProtocolPB;
import io.fffs.common.ipc.RemoteErrors;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockCopyFailureProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockCopyProto;
import io.fffs.common.proto.DatanodeProtocolProtos.GetBlockCopiesRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.GetBlockCopiesResponseProto;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.BlockInfo;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.ReadView;
import io.fffs.datanode.store.WriteOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.ObjLongConsumer;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the block copies restores ask for (docs/history.md): a block's state at a moment becomes a new block of
 * this DataNode, read from and written to the local store — no byte crosses the network. Fetched from the NameNode
 * with each heartbeat, made on a thread of its own; a finished copy is reported as a written block, a failed one
 * with the next fetch.
 */
final class BlockCopier implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BlockCopier.class);
  private static final int CHUNK = 1 << 20;

  private final DatanodeProtocolPB proxy;
  private final String datanodeUuid;
  private final BlockStore store;
  private final HybridLogicalClock clock;
  private final ObjLongConsumer<Long> written;
  private final ConcurrentLinkedQueue<BlockCopyFailureProto> failures = new ConcurrentLinkedQueue<>();
  private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "fffs-datanode-block-copier");
    t.setDaemon(true);
    return t;
  });

  /** @param written told each copy made: its block id and length (reported to the NameNode) */
  BlockCopier(DatanodeProtocolPB proxy, String datanodeUuid, BlockStore store, HybridLogicalClock clock,
      ObjLongConsumer<Long> written) {
    this.proxy = proxy;
    this.datanodeUuid = datanodeUuid;
    this.store = store;
    this.clock = clock;
    this.written = written;
  }

  /** Reports the failures since the last call, fetches the copies to make and queues them. */
  void pull() throws IOException {
    List<BlockCopyFailureProto> failed = new ArrayList<>();
    for (BlockCopyFailureProto failure; (failure = failures.poll()) != null; ) {
      failed.add(failure);
    }
    GetBlockCopiesResponseProto response;
    try {
      response = proxy.getBlockCopies(null, GetBlockCopiesRequestProto.newBuilder().setHlc(clock.now().toProto())
          .setDatanodeUuid(datanodeUuid).addAllFailures(failed).build());
    } catch (ServiceException e) {
      failures.addAll(failed);  // told with the next call
      throw RemoteErrors.unwrap(e);
    }
    List<BlockCopyProto> copies = response.getCopiesList();
    if (!copies.isEmpty()) {
      thread.execute(() -> copyAll(copies));
    }
  }

  /** Makes the copies, then one sync for all of them (a restore of many small files is not an fsync each). */
  private void copyAll(List<BlockCopyProto> copies) {
    List<Long> made = new ArrayList<>();
    List<Long> lengths = new ArrayList<>();
    for (BlockCopyProto copy : copies) {
      try {
        lengths.add(copy(copy));
        made.add(copy.getDstBlockId());
      } catch (IOException | RuntimeException e) {
        fail(copy.getDstBlockId(), e);
      }
    }
    try {
      store.sync(made);
    } catch (IOException | RuntimeException e) {
      made.forEach(block -> fail(block, e));
      return;
    }
    for (int i = 0; i < made.size(); i++) {
      written.accept(made.get(i), lengths.get(i));
    }
  }

  private void fail(long block, Exception e) {
    FffsException error = e instanceof FffsException ? (FffsException) e
        : new FffsException(ErrorCode.IO_ERROR, e.toString());
    LOG.warn("Could not make block {} as a copy for a restore: {}", block, error.getMessage());
    failures.add(BlockCopyFailureProto.newBuilder().setDstBlockId(block).setMessage(error.getMessage()).build());
  }

  /** Copies the source block as of the moment into the new block (the caller syncs it); returns its length. */
  private long copy(BlockCopyProto copy) throws IOException {
    TimeSpec time = TimeSpec.system(copy.getMicros());
    BlockInfo info = store.info(copy.getSrcBlockId(), time);
    if (!info.exists()) {
      throw new FffsException(ErrorCode.NOT_FOUND, "block " + copy.getSrcBlockId() + " did not exist at " + time);
    }
    WriteOptions options = WriteOptions.defaults().withBlockSize(copy.getBlockSize());
    if (copy.hasUserTimePlugin()) {
      options = options.withUserTimeExtractor(copy.getUserTimePlugin());
    }
    ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(CHUNK, Math.max(1, info.length())));
    long offset = 0;
    do {
      int count = (int) Math.min(buffer.capacity(), info.length() - offset);
      buffer.clear();
      try (ReadView view = store.read(copy.getSrcBlockId(), offset, count, time)) {
        view.copyTo(buffer);
      }
      buffer.flip();
      store.write(copy.getDstBlockId(), offset, buffer, options);
      offset += count;
    } while (offset < info.length());
    return info.length();
  }

  @Override
  public void close() {
    thread.shutdownNow();
    try {
      thread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
