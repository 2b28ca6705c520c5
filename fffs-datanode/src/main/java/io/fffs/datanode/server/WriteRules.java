package io.fffs.datanode.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.ChainMemberProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.fffs.common.proto.DataTransferProtos.WriteResponseProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.proto.DataTransferProtos.ReplicaStampProto;
import io.fffs.common.security.WriterFences;
import io.fffs.datanode.store.ReplicaStamp;
import io.fffs.datanode.store.WriteOptions;
import io.fffs.datanode.store.WriteResult;
import io.fffs.protocol.frame.ChunkChecksums;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every WRITE goes through on a DataNode, whatever transport brought its bytes (the TCP data server's
 * {@link StoreWriter}, the UCX server's applier): its payload checked against the chunk CRCs it carries, the
 * refusals that need no bytes (a refusal made on arrival, an earlier failure of its stream, a node the NameNode called
 * unhealthy), the merge of the client's HLC, the store options, and the answer — the entry HLC and block length of an
 * applied write, told to the {@link WriteListener}, or the typed refusal, which also fails the write's stream. The
 * transports differ only in how the bytes reach the store and in their threads. Thread-safe.
 */
public final class WriteRules {
  private static final Logger LOG = LoggerFactory.getLogger(WriteRules.class);

  private final HybridLogicalClock clock;
  private final Supplier<String> unhealthyReason;
  private final WriteListener listener;
  private final WriterFences fences;

  /**
   * Rules without writer fences of their own (a data server without a NameNode).
   *
   * @param unhealthyReason why this node must not take writes now, or null when it may
   * @param listener told of every applied write (block id and new length)
   */
  public WriteRules(HybridLogicalClock clock, Supplier<String> unhealthyReason, WriteListener listener) {
    this(clock, unhealthyReason, listener, new WriterFences(clock.physicalClock()));
  }

  /** @param fences the node's writer fences, checked again when a write is applied */
  public WriteRules(HybridLogicalClock clock, Supplier<String> unhealthyReason, WriteListener listener,
      WriterFences fences) {
    this.clock = clock;
    this.unhealthyReason = unhealthyReason;
    this.listener = listener;
    this.fences = fences;
  }

  /** The writer fences every applied write passes ({@link #admit}). */
  public WriterFences fences() {
    return fences;
  }

  public HybridLogicalClock clock() {
    return clock;
  }

  /** {@code INVALID_ARGUMENT} for a WRITE without its write fields, else null. */
  public static FffsException malformed(boolean hasWrite) {
    return hasWrite ? null
        : new FffsException(ErrorCode.INVALID_ARGUMENT, "a WRITE request without its write fields");
  }

  /**
   * {@code INVALID_ARGUMENT} for a chain member that is no host and port (a damaged or forged request), else null:
   * checked on arrival, before a link to it is opened. The epoch and replica stamps are checked where they are used.
   */
  static FffsException checkChain(WriteRequestProto write) {
    for (ChainMemberProto member : write.getDownstreamList()) {
      if (member.getHost().isEmpty() || !isPort(member.getDataPort())) {
        return new FffsException(ErrorCode.INVALID_ARGUMENT, "the write names the chain member '" + member.getHost()
            + ":" + Integer.toUnsignedString(member.getDataPort()) + "', which is no host and port");
      }
    }
    return null;
  }

  /** Whether {@code port}, as a request names it (a uint32 on the wire), is a TCP port. */
  static boolean isPort(int port) {
    return port >= 1 && port <= 65_535;
  }

  /**
   * Null if the write's chain members are well formed ({@link #checkChain}) and the payload's chunk CRCs, {@code
   * actual} (computed over the {@code length} bytes as they arrived), match those the write carries; else the refusal
   * ({@code CORRUPT} naming the first bad chunk and {@code from}).
   */
  public static FffsException verifyPayload(WriteRequestProto write, int[] actual, int length, String from) {
    FffsException malformed = checkChain(write);
    if (malformed != null) {
      return malformed;
    }
    int bad = ChunkChecksums.firstMismatch(actual, write.getChunkCrcs());
    if (bad < 0) {
      return null;
    }
    int sent = ChunkChecksums.count(write.getChunkCrcs());
    if (bad >= sent) {
      return new FffsException(ErrorCode.CORRUPT, "the write of " + length + " bytes to block "
          + write.getBlockId() + " at offset " + write.getOffset() + " carries " + sent
          + " chunk checksums instead of " + ChunkChecksums.chunksOf(length) + "; nothing was written");
    }
    long at = write.getOffset() + (long) bad * ChunkChecksums.CHUNK_BYTES;
    return new FffsException(ErrorCode.CORRUPT, "the write to block " + write.getBlockId() + " from " + from
        + " failed its CRC32C check in the 512-byte chunk at block offset " + at + " on arrival; nothing was"
        + " written");
  }

  /**
   * Throws the refusal that needs no bytes: {@code refusal} (made on arrival), an earlier failure of the write's
   * stream, a writer fence raised since the write arrived ({@code STALE_WRITER}), or this node being unhealthy.
   */
  public void admit(WriteRequestProto write, FffsException refusal, StreamFailures streams) throws FffsException {
    if (refusal != null) {
      throw refusal;
    }
    if (write.hasStreamId()) {
      FffsException earlier = streams.of(write.getStreamId());
      if (earlier != null) {
        throw new FffsException(earlier.code(), "not applied: an earlier write of this stream failed ("
            + earlier.detail() + ")");
      }
    }
    fences.check(write.getBlockId(), write.getWriterEpoch(), "WRITE of block " + write.getBlockId());
    String unhealthy = unhealthyReason.get();
    if (unhealthy != null) {
      throw new FffsException(ErrorCode.NODE_UNHEALTHY, "this DataNode takes no writes: " + unhealthy);
    }
  }

  /** Whether {@link #admit} would let a write of {@code streamId} (no refusal of its own) through now. */
  public boolean admits(WriteRequestProto write, StreamFailures streams) {
    if (fences.epoch(write.getBlockId()) > write.getWriterEpoch()) {
      return false;
    }
    return (!write.hasStreamId() || streams.of(write.getStreamId()) == null) && unhealthyReason.get() == null;
  }

  /** Merges the client's HLC into the clock ({@code CLOCK_SKEW} if it is too far ahead). */
  public void merge(HlcProto hlc) throws FffsException {
    clock.merge(HlcTimestamp.fromWire(hlc));
  }

  /**
   * The store options of {@code write}, with the chunk CRCs its payload was checked against (null: the store
   * computes page CRCs itself).
   */
  public static WriteOptions options(WriteRequestProto write, int[] chunkCrcs) throws FffsException {
    String plugin = write.hasUserTimePlugin() ? write.getUserTimePlugin() : null;
    return new WriteOptions(write.getBlockSize(), plugin, chunkCrcs,
        write.hasReplica() ? stamp(write.getReplica()) : null);
  }

  /** The store's form of the primary's stamps a follower applies an entry at. */
  public static ReplicaStamp stamp(ReplicaStampProto proto) throws FffsException {
    return new ReplicaStamp(HlcTimestamp.fromWire(proto.getEntryHlc()).packed(),
        proto.hasCreateHlc() ? HlcTimestamp.fromWire(proto.getCreateHlc()).packed() : 0, proto.getUserTime(),
        proto.getLengthAfter(), HlcTimestamp.fromWire(proto.getFrontierHlc()).packed());
  }

  /** Tells the listener of a change that was not a WRITE (a TRUNCATE). */
  public void changed(long blockId, WriteResult result) {
    listener.written(blockId, result.blockLength(), result.hlc());
  }

  /** Tells the listener that a replica's standing in its write pipeline changed (REPLICA_OPEN, REPLICA_END). */
  public void standingChanged(long blockId) {
    listener.standingChanged(blockId);
  }

  /** The answer to an applied write (the listener hears of it first), with this node's HLC. */
  public ResponseHeaderProto applied(long callId, WriteRequestProto write, WriteResult result) {
    listener.written(write.getBlockId(), result.blockLength(), result.hlc());
    return ResponseHeaderProto.newBuilder().setCallId(callId).setWrite(written(result))
        .setHlc(clock.now().toProto()).build();
  }

  /** The write part of an answer: the entry's HLC and the block's length, and what a follower applies it with. */
  public static WriteResponseProto.Builder written(WriteResult result) {
    WriteResponseProto.Builder write = WriteResponseProto.newBuilder().setEntryHlc(result.hlc().toProto())
        .setBlockLength(result.blockLength()).setUserTime(result.userTime());
    if (result.createHlc() != 0) {
      write.setCreateHlc(HlcTimestamp.valueOf(result.createHlc()).toProto());
    }
    return write;
  }

  /**
   * The answer to a refused write, typed ({@code INTERNAL} for what is not an {@link FffsException}, which is
   * logged), with this node's HLC; the write's stream fails with it.
   */
  public ResponseHeaderProto refused(long callId, WriteRequestProto write, Exception error, StreamFailures streams) {
    FffsException failure = Responses.typed(error, "writing block " + write.getBlockId());
    if (!(error instanceof FffsException)) {
      LOG.error("Write of block {} failed unexpectedly", write.getBlockId(), error);
    }
    if (write.hasStreamId()) {
      streams.fail(write.getStreamId(), failure);
    }
    return ResponseHeaderProto.newBuilder().setCallId(callId).setError(failure.toProto())
        .setHlc(clock.now().toProto()).build();
  }
}
