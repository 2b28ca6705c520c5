package io.fffs.datanode.replication;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.BlockTokenProto;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.datanode.store.BlockStore;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.io.InterruptedIOException;
import org.apache.hadoop.conf.Configuration;

/**
 * A block's whole log copied to another DataNode at once, for a writer that replaces a DataNode that left its
 * pipeline ({@code TRANSFER_BLOCK}): the same stream as re-replication ({@link LogStreamer}), unthrottled, since the
 * writer waits for it. Also the tail of the log only, for a chain member cut off behind a member that failed.
 */
public final class BlockTransfer {
  private final BlockStore store;
  private final HybridLogicalClock clock;
  private final int timeoutMillis;
  private final int maxFrameBytes;
  private final int maxPayload;

  public BlockTransfer(Configuration conf, BlockStore store, HybridLogicalClock clock) {
    this.store = store;
    this.clock = clock;
    this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, DataTransferConfigKeys.responseTimeoutMillis(conf));
    this.maxFrameBytes = DataTransferConfigKeys.maxFrameSize(conf);
    this.maxPayload = DataTransferConfigKeys.maxPayload(conf);
  }

  /**
   * Copies the block's log to {@code host:dataPort} with {@code token} (or null); returns its length there. With
   * {@code afterHlc} not 0 the target follows the block already with the log up to that entry, and gets the rest.
   */
  public long copy(long blockId, String host, int dataPort, BlockTokenProto token, long afterHlc)
      throws IOException {
    DatanodeIdProto target = DatanodeIdProto.newBuilder().setDatanodeUuid("").setHost(host).setDataPort(dataPort)
        .setIpcPort(0).build();
    try {
      return new LogStreamer(store, clock, new Throttle(0, System::nanoTime), timeoutMillis, maxFrameBytes,
          maxPayload).copy(blockId, target, token, afterHlc);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted copying block " + blockId + " to " + host + ":" + dataPort);
    }
  }
}
