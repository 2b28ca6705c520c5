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
import io.fffs.datanode.store.LogSnapshot;
import io.fffs.datanode.store.ReadView;
import io.fffs.protocol.frame.BlockingFrameChannel;
import io.fffs.protocol.frame.ChunkChecksums;
import io.fffs.protocol.frame.Frame;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Streams one block's whole log from this DataNode's store to another DataNode, so that the copy answers every past
 * read as this one does. The calls are worked out by {@link CopyPlan} from a {@link LogSnapshot} of the block (which
 * holds garbage collection back until the copy ends). Over one data-transfer connection to the target, as a
 * pipeline's client would: {@code REPLICA_OPEN(FOLLOWER)} with the moments the block keeps here, then each call as a
 * stamped {@code WRITE} (or {@code TRUNCATE}) carrying its HLC, user time and resulting length, with the bytes read
 * here as of the entry it restores. Then {@code SYNC} (the copy is on the target's disk) and {@code REPLICA_END}. The
 * target applies each call through its stamped-apply checks, which refuse ({@code REPLICA_STALE}) one that does not
 * continue its log, so a target that already holds the block is left unchanged. Bytes are paced by a
 * {@link Throttle}.
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
    try (LogSnapshot snapshot = store.logSnapshot(blockId)) {
      List<LogEntry> entries = snapshot.entries();
      if (entries.isEmpty()) {
        throw new FffsException(ErrorCode.NOT_FOUND, "block " + blockId + " is not stored on this DataNode");
      }
      List<CopyPlan.Send> sends = CopyPlan.of(blockId, snapshot, afterHlc, store.pageSize(), maxPayload);
      // Every entry listed is below it, and every later one this node stamps is above it.
      HlcTimestamp frontier = clock.now();
      InetSocketAddress address = new InetSocketAddress(target.getHost(), target.getDataPort());
      try (BlockingFrameChannel channel = BlockingFrameChannel.connect(address, timeoutMillis, maxFrameBytes)) {
        if (afterHlc == 0) {
          ReplicaOpenRequestProto.Builder open = ReplicaOpenRequestProto.newBuilder().setBlockId(blockId)
              .setRole(ReplicaRoleProto.FOLLOWER);
          if (snapshot.kept() != null) {
            open.setKept(snapshot.kept().toProto());
          }
          call(channel, request(OpProto.REPLICA_OPEN, token).setReplicaOpen(open), null);
        }
        long length = entries.get(entries.size() - 1).lengthAfter();
        for (CopyPlan.Send send : sends) {
          if (send.truncate()) {
            call(channel, request(OpProto.TRUNCATE, token).setTruncate(TruncateBlockRequestProto.newBuilder()
                .setBlockId(blockId).setNewLength(send.offset()).setReplica(stamp(send, frontier))), null);
          } else {
            write(channel, blockId, send, frontier, token);
          }
          length = send.lengthAfter();
        }
        call(channel, request(OpProto.SYNC, token).setSync(SyncRequestProto.newBuilder().addBlockIds(blockId)
            .addMinLengths(length)), null);
        call(channel, request(OpProto.REPLICA_END, token).setReplicaEnd(ReplicaEndRequestProto.newBuilder()
            .setBlockId(blockId).setFrontierHlc(frontier.toProto())), null);
        return length;
      }
    }
  }

  /** Sends one WRITE of the plan, its bytes read as of the entry it restores. */
  private void write(BlockingFrameChannel channel, long blockId, CopyPlan.Send send, HlcTimestamp frontier,
      BlockTokenProto token) throws IOException, InterruptedException {
    int length = send.length();
    ByteBuffer bytes = ByteBuffer.allocate(length);
    if (length > 0) {
      try (ReadView view = store.readAtLogIndex(blockId, send.readIndex(), send.offset(), length)) {
        view.copyTo(bytes);
      }
      bytes.flip();
      if (bytes.remaining() != length) {
        throw new FffsException(ErrorCode.CORRUPT, "entry " + send.readIndex() + " of block " + blockId
            + " holds " + length + " bytes at " + send.offset() + " but " + bytes.remaining() + " read back");
      }
    }
    throttle.pace(length);
    WriteRequestProto.Builder write = WriteRequestProto.newBuilder().setBlockId(blockId).setOffset(send.offset())
        .setChunkCrcs(ChunkChecksums.toWire(ChunkChecksums.of(bytes))).setReplica(stamp(send, frontier));
    call(channel, request(OpProto.WRITE, token).setWrite(write), bytes);
  }

  private static ReplicaStampProto.Builder stamp(CopyPlan.Send send, HlcTimestamp frontier) {
    ReplicaStampProto.Builder stamp = ReplicaStampProto.newBuilder()
        .setEntryHlc(HlcTimestamp.valueOf(send.hlc()).toProto()).setUserTime(send.userTime())
        .setLengthAfter(send.lengthAfter()).setFrontierHlc(frontier.toProto());
    if (send.createHlc() != 0) {
      stamp.setCreateHlc(HlcTimestamp.valueOf(send.createHlc()).toProto());
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
