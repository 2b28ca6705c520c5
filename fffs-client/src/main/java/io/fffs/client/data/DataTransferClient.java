package io.fffs.client.data;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.BlockChecksumResponseProto;
import io.fffs.common.proto.DataTransferProtos.BlockLogResponseProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The client side of the data-transfer protocol ({@code DataTransfer.proto}): block writes, temporal reads, block
 * info and sync against DataNodes. One per file-system instance, thread-safe; connections to a DataNode are
 * shared. Every request carries the client's HLC and every response's HLC is observed into it. Server errors come
 * back as {@code FffsException} with their code ({@code CORRUPT}, {@code WRITE_BEYOND_EOF},
 * {@code USER_TIME_REGRESSION}, {@code TIME_IN_FUTURE}, ...). Each request carries the block access token of its
 * block, as the NameNode issued it; a DataNode refuses one without a valid token with {@code ACCESS_DENIED}.
 */
public interface DataTransferClient extends Closeable {
  /**
   * The transport block data moves over with DataNodes that offer it ({@code tcp}, {@code ucx}); TCP serves the
   * others and the requests without payload.
   */
  String transport();

  /**
   * A pipelined writer for one block on one DataNode; every packet carries {@code token} (a WRITE token from the
   * NameNode; null only for a DataNode that checks no tokens).
   */
  BlockWriter openWriter(DatanodeIdProto datanode, long blockId, BlockToken token, WriteOptions options)
      throws IOException;

  /**
   * A writer for one block on its replicas, the primary first as the NameNode listed them: one DataNode gives
   * {@link #openWriter(DatanodeIdProto, long, BlockToken, WriteOptions)}'s writer (no pipeline requests); several
   * give a replicated pipeline (REPLICA_OPEN, each packet to the primary, then at its stamps to the followers).
   */
  BlockWriter openWriter(List<DatanodeIdProto> datanodes, long blockId, BlockToken token, WriteOptions options)
      throws IOException;

  /**
   * A writer for one block over the replicas that survived the primary of its earlier pipeline: the one holding
   * the newest entry is the new primary, stamping after {@code acknowledged} (the old primary's last acknowledged
   * entry, which it must hold), and the others are brought up to it first. Throws when none can be.
   */
  default BlockWriter promoteWriter(List<DatanodeIdProto> survivors, long blockId, BlockToken token,
      WriteOptions options, HlcTimestamp acknowledged) throws IOException {
    throw new IOException("transport " + transport() + " cannot promote a follower of block " + blockId);
  }

  /**
   * Cuts a block to {@code newLength} on its replicas: at the primary, then at the primary's stamp on every
   * follower (one that fails is left behind, stale, with a warning). Returns the block's length after it.
   */
  long truncate(List<DatanodeIdProto> datanodes, long blockId, BlockToken token, long newLength) throws IOException;

  /**
   * {@link #sync(DatanodeIdProto, Collection, Collection, Collection)} without waiting, so that the DataNodes of a
   * replicated block sync in parallel; the answer is bounded by the response timeout.
   */
  default CompletableFuture<HlcTimestamp> syncAsync(DatanodeIdProto datanode, Collection<Long> blockIds,
      Collection<BlockToken> tokens, Collection<Long> minLengths) {
    try {
      return CompletableFuture.completedFuture(sync(datanode, blockIds, tokens, minLengths));
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Reads up to {@code dst.remaining()} bytes of a block from {@code offset} as of {@code time} into {@code dst}
   * (fewer at the block's end as of that time), showing {@code token} (READ).
   */
  ReadResult read(DatanodeIdProto datanode, long blockId, BlockToken token, long offset, ByteBuffer dst,
      TimeSpec time) throws IOException;

  /**
   * A {@link BlockReadStream} of bytes [{@code offset}, {@code end}) of a block as of {@code time}, showing
   * {@code token} (READ), that keeps requests in flight ahead of its reader.
   */
  BlockReadStream openStream(DatanodeIdProto datanode, long blockId, BlockToken token, long offset, long end,
      TimeSpec time) throws IOException;

  /**
   * Whether {@code datanode} lately answered with a clock beyond the max offset ({@link DataNodeClocks}): readers try
   * its replicas last.
   */
  default boolean skewedAhead(DatanodeIdProto datanode) {
    return false;
  }

  /** Counters of short-circuit reads (of replicas on this host, from their DataNode's files); null when off. */
  default ShortCircuitStats shortCircuitStats() {
    return null;
  }

  /** A block's length and resolved HLC as of {@code time} ({@code token}: READ or WRITE). */
  BlockInfo blockInfo(DatanodeIdProto datanode, long blockId, BlockToken token, TimeSpec time) throws IOException;

  /**
   * One page of a block's log entries stamped in ({@code afterHlc}, {@code toHlc}] (packed HLCs; {@code toHlc} 0:
   * no bound), at most {@code limit}, without their bytes ({@code token}: READ or WRITE).
   */
  default BlockLogResponseProto blockLog(DatanodeIdProto datanode, long blockId, BlockToken token, long afterHlc,
      long toHlc, int limit) throws IOException {
    throw new io.fffs.common.error.FffsException(io.fffs.common.error.ErrorCode.UNSUPPORTED,
        "this data client cannot list a block's log");
  }

  /**
   * The digests of the CRC32Cs of {@code [0, length)} of a block as of {@code time}, made by the DataNode from the
   * CRCs it keeps ({@code token}: READ): a file checksum's part, without the bytes.
   */
  default BlockChecksumResponseProto blockChecksum(DatanodeIdProto datanode, long blockId, BlockToken token,
      long length, TimeSpec time) throws IOException {
    throw new io.fffs.common.error.FffsException(io.fffs.common.error.ErrorCode.UNSUPPORTED,
        "this data client cannot ask for a block's checksum");
  }

  /** Cuts a block to {@code newLength} ({@code token}: WRITE); returns the block's length after it. */
  long truncate(DatanodeIdProto datanode, long blockId, BlockToken token, long newLength) throws IOException;

  /**
   * Returns once the blocks are durable on the DataNode up to their last entry; its durable frontier.
   * {@code tokens}: a WRITE token per block. {@code minLengths}: empty, or per block the bytes its writer sent to
   * it; then a block that holds fewer on the DataNode (which restarted and lost acknowledged writes that were not
   * yet durable) fails the call with {@code IO_ERROR} instead of being reported durable.
   */
  HlcTimestamp sync(DatanodeIdProto datanode, Collection<Long> blockIds, Collection<BlockToken> tokens,
      Collection<Long> minLengths) throws IOException;

  /** {@link #sync(DatanodeIdProto, Collection, Collection, Collection)} without lengths to check. */
  default HlcTimestamp sync(DatanodeIdProto datanode, Collection<Long> blockIds, Collection<BlockToken> tokens)
      throws IOException {
    return sync(datanode, blockIds, tokens, java.util.List.of());
  }

  // Without tokens: only for a DataNode that checks none (one run without a NameNode, as in store tests).

  default BlockWriter openWriter(DatanodeIdProto datanode, long blockId, WriteOptions options) throws IOException {
    return openWriter(datanode, blockId, null, options);
  }

  default ReadResult read(DatanodeIdProto datanode, long blockId, long offset, ByteBuffer dst, TimeSpec time)
      throws IOException {
    return read(datanode, blockId, null, offset, dst, time);
  }

  default BlockInfo blockInfo(DatanodeIdProto datanode, long blockId, TimeSpec time) throws IOException {
    return blockInfo(datanode, blockId, null, time);
  }

  default long truncate(DatanodeIdProto datanode, long blockId, long newLength) throws IOException {
    return truncate(datanode, blockId, null, newLength);
  }

  default HlcTimestamp sync(DatanodeIdProto datanode, Collection<Long> blockIds) throws IOException {
    return sync(datanode, blockIds, java.util.List.of());
  }
}
