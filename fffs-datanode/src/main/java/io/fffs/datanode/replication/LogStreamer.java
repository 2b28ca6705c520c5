package io.fffs.datanode.replication;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.BlockTokenProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaEndRequestProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaOpenRequestProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaRoleProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaStampProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.SyncRequestProto;
import io.fffs.common.proto.DataTransferProtos.TruncateBlockRequestProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.fffs.common.time.ClockSkewException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.LogEntry;
import io.fffs.datanode.store.ReadView;
import io.fffs.datanode.store.log.BlockOp;
import io.fffs.protocol.frame.BlockingFrameChannel;
import io.fffs.protocol.frame.ChunkChecksums;
import io.fffs.protocol.frame.Frame;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Streams one block's whole log from this DataNode's store to another DataNode, so that the copy answers every past
 * read as this one does. The entries are walked by {@link LogSteps}, as a listing of the block's writes walks them.
 * Over one data-transfer connection to the target, as a pipeline's client would:
 * {@code REPLICA_OPEN(FOLLOWER)}, then every entry in log order as a stamped {@code WRITE} (or {@code TRUNCATE})
 * carrying the entry's HLC, user time and resulting length, with the bytes it wrote, read here as of that entry;
 * a CREATE goes with the WRITE that follows it, as the primary logged them. Then {@code SYNC} (the copy is on the
 * target's disk) and {@code REPLICA_END}. The target applies each entry through its stamped-apply checks, which
 * refuse ({@code REPLICA_STALE}) an entry that does not continue its log, so a target that already holds the block
 * is left unchanged. Bytes are paced by a {@link Throttle}.
 */
final class LogStreamer {
  private final BlockStore store;
  private final HybridLogicalClock clock;
  private final Throttle throttle;
  private final int timeoutMillis;
  private final int maxFrameBytes;
  private final int maxPayload;
  private long callId;

  LogStreamer(BlockStore store, HybridLogicalClock clock, Throttle throttle, int timeoutMillis, int maxFrameBytes,
      int maxPayload) {
    this.store = store;
    this.clock = clock;
    this.throttle = throttle;
    this.timeoutMillis = timeoutMillis;
    this.maxFrameBytes = maxFrameBytes;
    this.maxPayload = maxPayload;
  }

  /** Copies the block's log to {@code target}; returns the block's length there. */
  long copy(long blockId, DatanodeIdProto target, BlockTokenProto token) throws IOException, InterruptedException {
    return copy(blockId, target, token, 0);
  }

  /**
   * Copies the entries of the block's log after {@code afterHlc} (0: all) to {@code target}; returns the block's
   * length there. A target given a tail follows the block already (a chain member behind one that failed): it is not
   * opened again, so it answers no time past its frontier until the entries it misses are in.
   */
  long copy(long blockId, DatanodeIdProto target, BlockTokenProto token, long afterHlc)
      throws IOException, InterruptedException {
    List<LogEntry> entries = store.logEntries(blockId);
    if (entries.isEmpty()) {
      throw new FffsException(ErrorCode.NOT_FOUND, "block " + blockId + " is not stored on this DataNode");
    }
    // Every entry listed is below it, and every later one this node stamps is above it.
    HlcTimestamp frontier = clock.now();
    InetSocketAddress address = new InetSocketAddress(target.getHost(), target.getDataPort());
    try (BlockingFrameChannel channel = BlockingFrameChannel.connect(address, timeoutMillis, maxFrameBytes)) {
      if (afterHlc == 0) {
        call(channel, request(OpProto.REPLICA_OPEN, token).setReplicaOpen(ReplicaOpenRequestProto.newBuilder()
            .setBlockId(blockId).setRole(ReplicaRoleProto.FOLLOWER)), null);
      } else if (entries.stream().noneMatch(e -> e.hlc() == afterHlc)) {
        throw new FffsException(ErrorCode.REPLICA_STALE, "block " + blockId + " here has no entry at "
            + HlcTimestamp.valueOf(afterHlc) + ", the target's last: its log is no prefix of this one");
      }
      long length = 0;
      for (LogSteps.Step step : LogSteps.of(entries)) {
        LogEntry entry = step.entry();
        if (entry.hlc() <= afterHlc) {
          length = entry.lengthAfter();
          continue;
        }
        switch (entry.op()) {
          case CREATE, WRITE -> length = write(channel, blockId, step.index(), entry, step.createHlc(), frontier,
              token);
          case TRUNCATE -> {
            call(channel, request(OpProto.TRUNCATE, token).setTruncate(TruncateBlockRequestProto.newBuilder()
                .setBlockId(blockId).setNewLength(entry.offset()).setReplica(stamp(entry, 0, frontier))), null);
            length = entry.lengthAfter();
          }
          default -> throw new FffsException(ErrorCode.UNSUPPORTED, "block " + blockId + " was deleted at "
              + HlcTimestamp.valueOf(entry.hlc()) + " and written again; a log with a delete is not copied");
        }
      }
      call(channel, request(OpProto.SYNC, token).setSync(SyncRequestProto.newBuilder().addBlockIds(blockId)
          .addMinLengths(length)), null);
      call(channel, request(OpProto.REPLICA_END, token).setReplicaEnd(ReplicaEndRequestProto.newBuilder()
          .setBlockId(blockId).setFrontierHlc(frontier.toProto())), null);
      return length;
    }
  }

  /** Sends entry {@code index} (a WRITE, or a CREATE alone when {@code entry} is one) at its stamps. */
  private long write(BlockingFrameChannel channel, long blockId, int index, LogEntry entry, long createHlc,
      HlcTimestamp frontier, BlockTokenProto token) throws IOException, InterruptedException {
    boolean createOnly = entry.op() == BlockOp.CREATE;
    int length = createOnly ? 0 : entry.length();
    if (length > maxPayload) {
      throw new FffsException(ErrorCode.UNSUPPORTED, "entry " + index + " of block " + blockId + " wrote "
          + length + " bytes, more than a frame carries (" + maxPayload + ")");
    }
    ByteBuffer bytes = ByteBuffer.allocate(length);
    if (length > 0) {
      try (ReadView view = store.readAtLogIndex(blockId, index, entry.offset(), length)) {
        view.copyTo(bytes);
      }
      bytes.flip();
      if (bytes.remaining() != length) {
        throw new FffsException(ErrorCode.CORRUPT, "entry " + index + " of block " + blockId + " wrote " + length
            + " bytes but " + bytes.remaining() + " read back");
      }
    }
    throttle.pace(length);
    WriteRequestProto.Builder write = WriteRequestProto.newBuilder().setBlockId(blockId)
        .setOffset(createOnly ? 0 : entry.offset()).setChunkCrcs(ChunkChecksums.toWire(ChunkChecksums.of(bytes)))
        .setReplica(stamp(entry, createOnly ? entry.hlc() : createHlc, frontier));
    call(channel, request(OpProto.WRITE, token).setWrite(write), bytes);
    return entry.lengthAfter();
  }

  private static ReplicaStampProto.Builder stamp(LogEntry entry, long createHlc, HlcTimestamp frontier) {
    ReplicaStampProto.Builder stamp = ReplicaStampProto.newBuilder()
        .setEntryHlc(HlcTimestamp.valueOf(entry.hlc()).toProto()).setUserTime(entry.userTime())
        .setLengthAfter(entry.lengthAfter()).setFrontierHlc(frontier.toProto());
    if (createHlc != 0) {
      stamp.setCreateHlc(HlcTimestamp.valueOf(createHlc).toProto());
    }
    return stamp;
  }

  private RequestHeaderProto.Builder request(OpProto op, BlockTokenProto token) {
    RequestHeaderProto.Builder request = RequestHeaderProto.newBuilder().setCallId(++callId).setOp(op)
        .setHlc(clock.now().toProto());
    if (token != null) {
      request.addTokens(token);
    }
    return request;
  }

  /** One call: the request out, its answer in; a refusal is thrown as the target's typed error. */
  private ResponseHeaderProto call(BlockingFrameChannel channel, RequestHeaderProto.Builder request,
      ByteBuffer payload) throws IOException {
    RequestHeaderProto header = request.build();
    channel.send(header, payload);
    Frame<ResponseHeaderProto> frame = channel.receive(ResponseHeaderProto.parser());
    frame.release();
    ResponseHeaderProto response = frame.header();
    if (response.getCallId() != header.getCallId()) {
      throw new IOException("the target answered call " + response.getCallId() + " to call " + header.getCallId());
    }
    try {
      clock.merge(HlcTimestamp.fromProto(response.getHlc()));
    } catch (ClockSkewException e) {
      // The copy's stamps are the source's; the target's clock is its own business.
    }
    if (response.hasError()) {
      FffsException error = FffsException.fromProto(response.getError());
      throw new FffsException(error.code(), header.getOp() + " of block copy: " + error.detail());
    }
    return response;
  }
}
