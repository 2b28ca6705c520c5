package io.fffs.client;

import io.fffs.client.data.BlockWriter;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable half of an hsync: every block written to since the last one is SYNCed on each DataNode of its
 * pipeline, one request per DataNode for all its blocks, all DataNodes in parallel. A follower that fails its SYNC
 * leaves the pipeline; a primary lost meanwhile is succeeded by a follower ({@link PrimaryFailover}) and the blocks
 * are synced again on their new pipelines (a SYNC changes no byte), up to {@link PrimaryFailover#ATTEMPTS} rounds,
 * after which a primary lost again fails the stream with {@code IO_ERROR}; a refused token is met once with fresh ones,
 * and a primary that refuses those too fails the stream with {@code ACCESS_DENIED} (a follower is dropped).
 * Not thread-safe (the stream's lock).
 */
final class PipelineSync {
  private static final Logger LOG = LoggerFactory.getLogger(PipelineSync.class);

  /**
   * Has a follower take over block {@code blockId} from the lost primary of {@code failed} (null: the block's writer
   * was closed, its pipeline is reopened without the lost primary), or throws.
   */
  interface FailOver {
    void failOver(long blockId, BlockWriter failed, IOException cause) throws IOException;
  }

  private final PrimaryFailover.Data data;
  private final String path;
  private final long blockSize;
  private final BlockPipelines blocks;
  private final TokenRenewal tokens;
  private final FailOver failOver;
  /** Fails the stream for good with its argument; returns it, to be thrown. */
  private final UnaryOperator<FffsException> failStream;
  private final Set<Long> unsynced = new LinkedHashSet<>();
  /** Per block, how often its primary was lost during the current {@link #sync}. */
  private final Map<Long, Integer> primariesLost = new HashMap<>();

  PipelineSync(PrimaryFailover.Data data, String path, long blockSize, BlockPipelines blocks, TokenRenewal tokens,
      FailOver failOver, UnaryOperator<FffsException> failStream) {
    this.data = data;
    this.path = path;
    this.blockSize = blockSize;
    this.blocks = blocks;
    this.tokens = tokens;
    this.failOver = failOver;
    this.failStream = failStream;
  }

  /** {@code blockId} was written to: the next {@link #sync} SYNCs it. */
  void written(long blockId) {
    unsynced.add(blockId);
  }

  /** SYNCs every block written to since the last call; {@code length}: the file's, as the stream wrote it. */
  void sync(long length) throws IOException {
    for (long blockId : unsynced) {
      int index = blocks.index(blockId);
      if (blocks.tokenDue(index) || WriteFaultInjector.get().tokenDue(path, blockId, blocks.locations(index))) {
        tokens.renewTokens();
        break;
      }
    }
    try {
      syncUnsynced(length);
    } catch (FffsException e) {
      if (e.code() != ErrorCode.ACCESS_DENIED || tokens.resending()) {
        throw e;
      }
      // A SYNC changes no byte, so asking again with fresh tokens is safe; the flushed writers carry the old ones.
      LOG.info("A DataNode refused the token of a SYNC of {}; asking the NameNode for fresh tokens: {}", path,
          e.getMessage());
      try {
        tokens.closeWriters();
        tokens.fetchTokens();
        tokens.again(e, () -> syncUnsynced(length));
      } catch (IOException again) {
        // The one renewal is spent and the bytes are not known durable: as any failed hsync, the stream fails.
        throw failStream.apply(resendFailed(again));
      }
    }
  }

  /** What fails the stream when an hsync sent again with fresh tokens failed: a second refusal says what to do. */
  private FffsException resendFailed(IOException failure) {
    if (failure instanceof FffsException typed && typed.code() == ErrorCode.ACCESS_DENIED) {
      return new FffsException(ErrorCode.ACCESS_DENIED, "an hsync of " + path + " was refused with the fresh WRITE"
          + " tokens the NameNode had just issued (" + typed.detail() + "): that DataNode does not hold the"
          + " NameNode's current block keys; check that it heartbeats to the active NameNode and that its clock"
          + " agrees with the NameNode's. The bytes written are applied but not known to be durable, and this stream"
          + " is failed: open " + path + " for append to write on from the length its DataNodes hold", typed);
    }
    return failure instanceof FffsException typed ? typed : new FffsException(ErrorCode.IO_ERROR, "an hsync of "
        + path + " failed while it was sent again with fresh tokens: " + failure.getMessage(), failure);
  }

  private void syncUnsynced(long length) throws IOException {
    primariesLost.clear();
    for (int round = 1; !syncOnce(length, round < PrimaryFailover.ATTEMPTS); round++) {
      // A primary lost between the flush and its SYNC was succeeded: the new pipelines are synced again.
    }
    unsynced.clear();
  }

  /**
   * SYNCs every unsynced block on each DataNode of its pipeline, in parallel. A follower that fails leaves the
   * pipeline; a primary lost meanwhile is succeeded by a follower (when {@code mayFailOver}), and then this returns
   * false: the blocks are to be synced again on their new pipelines.
   */
  private boolean syncOnce(long length, boolean mayFailOver) throws IOException {
    Map<DatanodeIdProto, List<Long>> byDatanode = new HashMap<>();
    Map<DatanodeIdProto, List<BlockToken>> tokensOf = new HashMap<>();
    Map<DatanodeIdProto, List<Long>> lengths = new HashMap<>();
    for (long blockId : unsynced) {
      int index = blocks.index(blockId);
      for (DatanodeIdProto location : blocks.locations(index)) {
        byDatanode.computeIfAbsent(location, d -> new ArrayList<>()).add(blockId);
        // What this stream has written up to in the block: a DataNode that lost some must not report it durable.
        lengths.computeIfAbsent(location, d -> new ArrayList<>()).add(Math.min(blockSize,
            length - index * blockSize));
        if (blocks.token(index) != null) {
          tokensOf.computeIfAbsent(location, d -> new ArrayList<>()).add(blocks.token(index));
        }
      }
    }
    Map<DatanodeIdProto, CompletableFuture<HlcTimestamp>> syncs = new HashMap<>();
    for (Map.Entry<DatanodeIdProto, List<Long>> entry : byDatanode.entrySet()) {
      syncs.put(entry.getKey(), data.get().syncAsync(entry.getKey(), entry.getValue(),
          tokensOf.getOrDefault(entry.getKey(), List.of()), lengths.get(entry.getKey())));
    }
    boolean failedOver = false;
    for (Map.Entry<DatanodeIdProto, CompletableFuture<HlcTimestamp>> sync : syncs.entrySet()) {
      try {
        sync.getValue().join();
      } catch (CompletionException e) {
        IOException cause = e.getCause() instanceof IOException ? (IOException) e.getCause()
            : new IOException("SYNC to " + sync.getKey().getHost() + ":" + sync.getKey().getDataPort() + " failed: "
                + e.getCause(), e.getCause());
        // A refused token is asked again with fresh ones (sync); any other failure drops a follower.
        boolean refused = cause instanceof FffsException typed && typed.code() == ErrorCode.ACCESS_DENIED;
        if (refused && !tokens.resending()) {
          throw cause;
        }
        for (long blockId : byDatanode.get(sync.getKey())) {
          BlockWriter writer = blocks.writer(blockId);
          if (!sync.getKey().equals(blocks.locations(blocks.index(blockId)).get(0))) {
            dropFollower(sync.getKey(), blockId, cause);
          } else if (refused) {
            throw new FffsException(ErrorCode.ACCESS_DENIED, "DataNode " + PrimaryFailover.address(sync.getKey())
                + " refused the SYNC of block " + blockId + " again (" + cause.getMessage() + ")", cause);
          } else if (!mayFailOver) {
            // As a write's failover after ATTEMPTS lost primaries: no replica is known to hold the bytes durable.
            throw failStream.apply(new FffsException(ErrorCode.IO_ERROR, "block " + blockId + " of " + path
                + ": its primary was lost " + primariesLost.merge(blockId, 1, Integer::sum) + " times during one"
                + " hsync, last " + PrimaryFailover.address(sync.getKey()) + " (" + cause.getMessage() + ")", cause));
          } else {
            primariesLost.merge(blockId, 1, Integer::sum);
            failOver.failOver(blockId, writer, cause);
            failedOver = true;
          }
        }
      }
    }
    return !failedOver;
  }

  /** A follower that failed a SYNC leaves the pipeline of {@code blockId}: it gets no more packets or SYNCs. */
  private void dropFollower(DatanodeIdProto datanode, long blockId, IOException cause) {
    BlockWriter writer = blocks.writer(blockId);
    if (writer != null) {
      writer.drop(datanode, cause);
    }
    blocks.removeLocation(blockId, datanode);
  }
}
