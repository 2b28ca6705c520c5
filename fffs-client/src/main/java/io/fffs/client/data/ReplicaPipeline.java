package io.fffs.client.data;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.BlockInfoRequestProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaEndRequestProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaOpenRequestProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaRoleProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.TransferBlockRequestProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts and ends a block's replicated write pipeline. Opening asks every listed replica for the block's last entry;
 * the one with the newest (ties: the NameNode's order) is the primary, those with the same are followers, and older
 * ones are told they are STALE and left out, as are those that cannot be reached. Followers are opened before the
 * primary and every answer's HLC is taken into the client's clock, so the primary stamps every later entry above
 * each follower's clock at its open (their frontiers start there). Ending tells each remaining follower the
 * client's clock, past every entry it applied, and the follower answers by its own clock again.
 */
final class ReplicaPipeline {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaPipeline.class);

  private final DataNodeCalls calls;
  private final long blockId;
  private BlockToken token;
  private final List<DatanodeIdProto> members;
  private long epoch;
  /** The followers a REPLICA_END was refused by at a close, to be ended after a renewal; null before. */
  private List<DatanodeIdProto> endRefusedBy;
  /** Whether a close met a refused token already: the next one closes, whatever it meets. */
  private boolean refusedAtClose;

  private ReplicaPipeline(DataNodeCalls calls, long blockId, BlockToken token, List<DatanodeIdProto> members) {
    this.calls = calls;
    this.blockId = blockId;
    this.token = token;
    this.members = members;
  }

  /** Opens the pipeline of {@code blockId} over {@code listed}, or throws naming every replica and its error. */
  static ReplicaPipeline open(DataNodeCalls calls, List<DatanodeIdProto> listed, long blockId, BlockToken token,
      HybridLogicalClock clock) throws IOException {
    return open(calls, listed, blockId, token, clock, null);
  }

  /**
   * Opens the pipeline of {@code blockId} over the followers that survived its primary ({@code survivors}): the one
   * holding the newest entry becomes the primary, which must hold {@code acknowledged} (the last entry the old
   * primary acknowledged: else an acknowledged byte would be lost, and this throws), and every other survivor is
   * brought up to it ({@link #catchUp}) instead of being left out. The new epoch fences the old primary, should it
   * only have stalled; the client's clock, sent with the primary's open, is past every entry any survivor holds.
   */
  static ReplicaPipeline promote(DataNodeCalls calls, List<DatanodeIdProto> survivors, long blockId,
      BlockToken token, HybridLogicalClock clock, HlcTimestamp acknowledged) throws IOException {
    return open(calls, survivors, blockId, token, clock, acknowledged);
  }

  private static ReplicaPipeline open(DataNodeCalls calls, List<DatanodeIdProto> listed, long blockId,
      BlockToken token, HybridLogicalClock clock, HlcTimestamp acknowledged) throws IOException {
    ReplicaPipeline pipeline = new ReplicaPipeline(calls, blockId, token, new ArrayList<>());
    long[] last = new long[listed.size()];
    List<String> failures = new ArrayList<>();
    long newest = -1;
    for (int i = 0; i < listed.size(); i++) {
      try {
        last[i] = calls.call(listed.get(i), pipeline.request(OpProto.BLOCK_INFO).setBlockInfo(
            BlockInfoRequestProto.newBuilder().setBlockId(blockId).setTime(TimeSpec.latest().toProto())))
            .getBlockInfo().getResolvedHlc().getPacked();
        newest = Math.max(newest, last[i]);
      } catch (IOException e) {
        last[i] = -1;
        failures.add(address(listed.get(i)) + ": " + e.getMessage());
        LOG.warn("Leaving DataNode {} out of the write pipeline of block {}: {}", address(listed.get(i)), blockId,
            e.getMessage());
      }
    }
    if (newest < 0) {
      throw new FffsException(ErrorCode.IO_ERROR, "no replica of block " + blockId + " can be written: "
          + String.join("; ", failures));
    }
    if (acknowledged != null && newest < acknowledged.packed()) {
      throw new FffsException(ErrorCode.IO_ERROR, "no surviving replica of block " + blockId + " holds its last"
          + " acknowledged entry " + acknowledged + " (the newest holds " + HlcTimestamp.valueOf(newest) + ")");
    }
    if (acknowledged != null) {
      clock.observe(acknowledged);  // the new primary stamps after every entry the old one applied and answered
    }
    // Above every member's clock as it answered, which took in any earlier pipeline's epoch with its open.
    pipeline.epoch = clock.last().packed() + 1;
    List<DatanodeIdProto> followers = new ArrayList<>();
    List<DatanodeIdProto> behind = new ArrayList<>();
    DatanodeIdProto primary = null;
    for (int i = 0; i < listed.size(); i++) {
      if (last[i] == newest && primary == null) {
        primary = listed.get(i);
      } else if (last[i] == newest) {
        followers.add(listed.get(i));
      } else if (last[i] >= 0 && acknowledged != null) {
        behind.add(listed.get(i));
      } else if (last[i] >= 0) {
        LOG.warn("DataNode {} misses entries of block {} (its last is {}, the newest {}): left out of the write"
            + " pipeline", address(listed.get(i)), blockId, HlcTimestamp.valueOf(last[i]),
            HlcTimestamp.valueOf(newest));
        pipeline.tryOpen(listed.get(i), ReplicaRoleProto.STALE);
      }
    }
    pipeline.members.add(primary);
    for (DatanodeIdProto follower : followers) {
      if (pipeline.tryOpen(follower, ReplicaRoleProto.FOLLOWER)) {
        pipeline.members.add(follower);
      }
    }
    pipeline.open(primary, ReplicaRoleProto.PRIMARY);
    for (DatanodeIdProto member : behind) {
      try {
        pipeline.catchUp(primary, member);
        pipeline.members.add(member);
      } catch (IOException e) {
        LOG.warn("Leaving DataNode {} out of the write pipeline of block {}: it could not be brought up to the new"
            + " primary {}: {}", address(member), blockId, address(primary), e.getMessage());
      }
    }
    return pipeline;
  }

  /** The primary, then the followers, as opened. */
  List<DatanodeIdProto> members() {
    return List.copyOf(members);
  }

  DatanodeIdProto primary() {
    return members.get(0);
  }

  /** The pipeline's epoch, sent with every open, write, cut and end (DataNodes refuse lower ones later). */
  long epoch() {
    return epoch;
  }

  /**
   * Ends the pipeline on {@code followers} (those still in it) at {@code frontier}, the client's clock after the
   * last answer; a follower that cannot be told keeps following at its last frontier (it serves older times only).
   * Returns the followers that refused the token: a fresh one may end the pipeline there after all.
   */
  List<DatanodeIdProto> end(List<DatanodeIdProto> followers, HlcTimestamp frontier) {
    List<DatanodeIdProto> refused = new ArrayList<>();
    for (DatanodeIdProto follower : followers) {
      try {
        calls.call(follower, request(OpProto.REPLICA_END).setReplicaEnd(ReplicaEndRequestProto.newBuilder()
            .setBlockId(blockId).setFrontierHlc(frontier.toProto()).setEpoch(epoch)));
      } catch (FffsException e) {
        if (e.code() == ErrorCode.ACCESS_DENIED) {
          refused.add(follower);
        } else {
          warnNotEnded(follower, e);
        }
      } catch (IOException e) {
        warnNotEnded(follower, e);
      }
    }
    return refused;
  }

  /** A step of a writer's close. */
  interface CloseStep {
    void run() throws IOException;
  }

  /**
   * A writer's close: {@code flush}, then REPLICA_END to {@code followers} (asked after the flush) at
   * {@code clock}'s last HLC — or, after a refused end, to those that refused it — then {@code release}. The first
   * refusal of the token on the way (a packet, or a follower's REPLICA_END) is thrown without {@code release} when
   * the writer can renew its token ({@code renewable}): after a renewal a second close finishes, ending the pipeline
   * where it was refused. A second refusal of a REPLICA_END leaves that follower serving only the times it was told
   * of, as any other failure to end there does.
   */
  void closeWriter(CloseStep flush, Supplier<List<DatanodeIdProto>> followers, HybridLogicalClock clock,
      boolean renewable, CloseStep release) throws IOException {
    boolean keepOpen = false;
    try {
      flush.run();
      List<DatanodeIdProto> refusedEnd = end(endRefusedBy != null ? endRefusedBy : followers.get(), clock.last());
      if (!refusedEnd.isEmpty() && endRefusedBy == null && !refusedAtClose && renewable) {
        endRefusedBy = refusedEnd;
        throw new FffsException(ErrorCode.ACCESS_DENIED, "DataNodes " + refusedEnd.stream()
            .map(ReplicaPipeline::address).toList() + " refused the token of the REPLICA_END of block " + blockId);
      }
      for (DatanodeIdProto follower : refusedEnd) {
        LOG.warn("Could not end the pipeline of block {} on DataNode {}: it refused a fresh token too", blockId,
            address(follower));
      }
    } catch (FffsException e) {
      keepOpen = e.code() == ErrorCode.ACCESS_DENIED && !refusedAtClose && renewable;
      refusedAtClose = true;
      throw e;
    } finally {
      if (!keepOpen) {
        release.run();
      }
    }
  }

  private void warnNotEnded(DatanodeIdProto follower, IOException e) {
    LOG.warn("Could not end the pipeline of block {} on DataNode {}: {}", blockId, address(follower), e.getMessage());
  }

  /** The token of every later request (after a DataNode refused the one the pipeline was opened with). */
  void token(BlockToken fresh) {
    this.token = fresh;
  }

  /**
   * Has {@code source} copy the block's whole log to {@code target}, then opens {@code target} as a follower and
   * adds it to the members; the writer holds its packets meanwhile.
   */
  void addFollower(DatanodeIdProto source, DatanodeIdProto target) throws IOException {
    calls.call(source, request(OpProto.TRANSFER_BLOCK).setTransferBlock(TransferBlockRequestProto.newBuilder()
        .setBlockId(blockId).setTargetHost(target.getHost()).setTargetDataPort(target.getDataPort())));
    open(target, ReplicaRoleProto.FOLLOWER);
    members.add(target);
  }

  /**
   * Brings {@code target}, a follower cut off behind a member that failed, up to {@code source}'s log: asks it for
   * its last entry, has {@code source} send it only the entries after that ({@code TRANSFER_BLOCK} with
   * {@code afterHlc}; the target keeps following meanwhile, so it answers no time past what it holds), and opens it
   * as a follower again. The writer holds its packets meanwhile.
   */
  void catchUp(DatanodeIdProto source, DatanodeIdProto target) throws IOException {
    long last = calls.call(target, request(OpProto.BLOCK_INFO).setBlockInfo(BlockInfoRequestProto.newBuilder()
        .setBlockId(blockId).setTime(TimeSpec.latest().toProto()))).getBlockInfo().getResolvedHlc().getPacked();
    calls.call(source, request(OpProto.TRANSFER_BLOCK).setTransferBlock(TransferBlockRequestProto.newBuilder()
        .setBlockId(blockId).setTargetHost(target.getHost()).setTargetDataPort(target.getDataPort())
        .setAfterHlc(last)));
    open(target, ReplicaRoleProto.FOLLOWER);
  }

  private boolean tryOpen(DatanodeIdProto datanode, ReplicaRoleProto role) {
    try {
      open(datanode, role);
      return true;
    } catch (IOException e) {
      LOG.warn("Leaving DataNode {} out of the write pipeline of block {}: {}", address(datanode), blockId,
          e.getMessage());
      return false;
    }
  }

  private void open(DatanodeIdProto datanode, ReplicaRoleProto role) throws IOException {
    calls.call(datanode, request(OpProto.REPLICA_OPEN).setReplicaOpen(ReplicaOpenRequestProto.newBuilder()
        .setBlockId(blockId).setRole(role).setEpoch(epoch)));
  }

  private RequestHeaderProto.Builder request(OpProto op) {
    return RequestHeaders.withToken(token, RequestHeaderProto.newBuilder()).setOp(op);
  }

  static String address(DatanodeIdProto datanode) {
    return datanode.getHost() + ":" + datanode.getDataPort();
  }
}
