package io.fffs.namenode.rpc;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.ipc.DatanodeProtocolPB;
import io.fffs.common.ipc.RemoteErrors;
import io.fffs.common.security.KerberosConfigKeys;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.security.UserGroupInformation;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockReceivedRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockReceivedResponseProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockReportRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockReportResponseProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockCopyFailureProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockRetentionProto;
import io.fffs.common.proto.DatanodeProtocolProtos.GetBlockCopiesRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.GetBlockCopiesResponseProto;
import io.fffs.common.proto.DatanodeProtocolProtos.GetBlockRetentionRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.GetBlockRetentionResponseProto;
import io.fffs.common.proto.DatanodeProtocolProtos.HeartbeatRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.HeartbeatResponseProto;
import io.fffs.common.proto.DatanodeProtocolProtos.RegisterDatanodeRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.RegisterDatanodeResponseProto;
import io.fffs.common.proto.DatanodeProtocolProtos.ReportedBlockProto;
import io.fffs.common.time.ClockSkewException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.namenode.blocks.BlockReplicas;
import io.fffs.namenode.blocks.DatanodeDescriptor;
import io.fffs.namenode.blocks.DatanodeManager;
import io.fffs.namenode.fs.Namesystem;
import io.fffs.namenode.namespace.BlockRetention;
import java.util.List;
import org.apache.hadoop.thirdparty.protobuf.RpcController;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;

/**
 * Serves {@code DatanodeProtocol}. Registration and heartbeats never fail for a skewed clock: the DataNode is told
 * it is unhealthy and why (it then stops taking writes), and its HLC is not merged, so it cannot drag the
 * NameNode's clock along.
 */
public final class DatanodeProtocolServerSide implements DatanodeProtocolPB {
  private final Namesystem fs;
  private final HybridLogicalClock clock;
  private final DatanodeManager datanodes;
  private final ServedCall call;
  private final long heartbeatIntervalMs;
  private final Configuration conf;

  public DatanodeProtocolServerSide(Namesystem fs, long heartbeatIntervalMs) {
    this(fs, heartbeatIntervalMs, new Configuration(false));
  }

  /** @param conf the NameNode's: with Kerberos, the DataNode principal registrations are checked against */
  public DatanodeProtocolServerSide(Namesystem fs, long heartbeatIntervalMs, Configuration conf) {
    this.conf = conf;
    this.fs = fs;
    this.clock = fs.clock();
    this.datanodes = fs.datanodes();
    this.call = new ServedCall(clock, fs.retryAnswers, fs.leadership());
    this.heartbeatIntervalMs = heartbeatIntervalMs;
  }

  /** Merges a DataNode's HLC; returns the refusal text instead of failing when it is too far ahead. */
  private String mergeOrExplain(HlcProto hlc) throws ServiceException {
    HlcTimestamp sent = hlcOf(hlc);
    try {
      clock.merge(sent);
      return null;
    } catch (ClockSkewException e) {
      return e.detail() + " — the DataNode takes no writes until its clock is back in range";
    }
  }

  /** A timestamp the DataNode sent, a damaged one refused with a typed error. */
  private static HlcTimestamp hlcOf(HlcProto hlc) throws ServiceException {
    try {
      return HlcTimestamp.fromWire(hlc);
    } catch (FffsException e) {
      throw RemoteErrors.toServiceException(e);
    }
  }

  /**
   * The DataNode's clock offset to judge it by: its own NTP-style measurement less its uncertainty (half the round
   * trip) when it sent one, or the one-way reading when that shows the clock further ahead. The one-way reading
   * counts only when ahead: delay makes a clock look behind, never ahead, so it is a lower bound of how far ahead
   * it is, and it follows a step at once while the DataNode's filter still holds samples from before the step.
   */
  private long offsetOf(long datanodeMicros, boolean measured, long measuredOffset, long roundTripMicros) {
    long aheadAtLeast = Math.max(0, datanodeMicros - clock.physicalClock().currentTimeMicros());
    if (measured) {
      // The measurement is only good to half the round trip; a slow network (or a loaded host) must not make a
      // good clock look bad, so only the part of the offset beyond that uncertainty counts.
      long certain = Math.max(0, Math.abs(measuredOffset) - roundTripMicros / 2);
      long signed = measuredOffset < 0 ? -certain : certain;
      return aheadAtLeast > 0 ? Math.max(signed, aheadAtLeast) : signed;
    }
    return aheadAtLeast;
  }

  /** DataNodes register with and heartbeat to the leader of an HA cluster only (they follow it). */
  private void checkLeader() throws ServiceException {
    if (fs.leadership() != null) {
      try {
        fs.leadership().checkLeader("a DataNode call");
      } catch (io.fffs.common.error.FffsException e) {
        throw io.fffs.common.ipc.RemoteErrors.toServiceException(e);
      }
    }
  }

  @Override
  public RegisterDatanodeResponseProto registerDatanode(RpcController c, RegisterDatanodeRequestProto r)
      throws ServiceException {
    checkLeader();
    try {
      datanodes.hosts().check(r.getId());
    } catch (io.fffs.common.error.FffsException e) {
      throw io.fffs.common.ipc.RemoteErrors.toServiceException(e);
    }
    checkPrincipal(r);
    String skew = mergeOrExplain(r.getHlc());
    DatanodeDescriptor descriptor = datanodes.register(r.getId(), r.getCapacityBytes(),
        offsetOf(r.getPhysicalMicros(), false, 0, 0));
    if (skew != null) {
      datanodes.heartbeat(descriptor.uuid(), descriptor.clockOffsetMicros(), r.getCapacityBytes(), 0, 0,
          HlcTimestamp.ZERO, skew);
    }
    return RegisterDatanodeResponseProto.newBuilder()
        .setClusterId(fs.clusterId())
        .setHeartbeatIntervalMs(heartbeatIntervalMs)
        .setMaxOffsetMicros(clock.maxOffsetMicros())
        .setNamenodePhysicalMicros(clock.physicalClock().currentTimeMicros())
        .setBlockKeys(fs.blockTokens.exportKeys())
        .addAllFences(fs.writerFencing.forRegistration(descriptor.uuid()))
        .setHlc(call.now())
        .build();
  }

  /**
   * With Kerberos, refuses a DataNode that did not authenticate as the DataNode principal
   * ({@code fffs.datanode.kerberos.principal}, {@code _HOST} being the DataNode's host): any other user could
   * otherwise register, receive the block keys and sign tokens.
   */
  private void checkPrincipal(RegisterDatanodeRequestProto r) throws ServiceException {
    UserGroupInformation caller = Server.getRemoteUser();
    if (caller == null || !KerberosConfigKeys.enabled(conf)) {
      return;
    }
    try {
      String expected = KerberosConfigKeys.expectedDataNodePrincipal(conf, Server.getRemoteIp());
      if (expected != null && !expected.equals(caller.getUserName())) {
        throw new FffsException(ErrorCode.ACCESS_DENIED, "registration of DataNode "
            + r.getId().getDatanodeUuid() + " refused: it authenticated as " + caller.getUserName() + ", but"
            + " DataNodes must be " + expected + " (" + KerberosConfigKeys.DATANODE_PRINCIPAL_KEY + "); start it"
            + " with that principal's keytab");
      }
    } catch (IOException e) {
      throw RemoteErrors.toServiceException(e);
    }
  }

  @Override
  public HeartbeatResponseProto heartbeat(RpcController c, HeartbeatRequestProto r) throws ServiceException {
    checkLeader();
    String skew = mergeOrExplain(r.getHlc());
    long offset = offsetOf(r.getPhysicalMicros(), r.hasMeasuredOffsetMicros(), r.getMeasuredOffsetMicros(),
        r.getRoundTripMicros());
    DatanodeDescriptor descriptor = datanodes.heartbeat(r.getDatanodeUuid(), offset, r.getCapacityBytes(),
        r.getMemoryUsedBytes(), r.getBlockCount(), hlcOf(r.getDurableHlc()), skew);
    if (r.hasMeasuredOffsetMicros()) {
      datanodes.clockMeasured(r.getDatanodeUuid(), r.getMeasuredOffsetMicros(), r.getRoundTripMicros());
    } else {
      datanodes.clockNotMeasured(r.getDatanodeUuid());
    }
    datanodes.scrubbed(r.getDatanodeUuid(), r.getScrubPasses(), r.getScrubBytesVerified(),
        r.getScrubCorruptions(), r.hasScrubLastCorruption() ? r.getScrubLastCorruption() : null);
    if (r.hasSegmentBytes()) {
      datanodes.diskUsage(r.getDatanodeUuid(), r.getSegmentBytes(), r.getLiveSegmentBytes(), r.getCurrentBytes());
    }
    HeartbeatResponseProto.Builder response = HeartbeatResponseProto.newBuilder()
        .setClockOffsetMicros(offset)
        .setNamenodePhysicalMicros(clock.physicalClock().currentTimeMicros())
        .setHlc(call.now());
    if (descriptor == null) {
      return response.setHealthy(false).setReregister(true)
          .setUnhealthyReason("the NameNode does not know this DataNode (it restarted); register again").build();
    }
    response.setHealthy(descriptor.isHealthy()).setBlockKeys(fs.blockTokens.exportKeys())
        .addAllTransfers(fs.replication.takeTransfers(descriptor.uuid()))
        .addAllReplicasToDrop(fs.replication.takeDrops(descriptor.uuid()))
        .addAllReplicasToEnd(fs.replication.takeEnds(descriptor.uuid()))
        .addAllFences(fs.writerFencing.forHeartbeat(descriptor.uuid(), r.getFenceSeq()));
    if (!descriptor.isHealthy()) {
      response.setUnhealthyReason(descriptor.unhealthyReason());
    }
    return response.build();
  }

  @Override
  public BlockReportResponseProto blockReport(RpcController c, BlockReportRequestProto r) throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      List<ReportedBlockProto> good = markCorrupt(r.getDatanodeUuid(), r.getBlocksList());
      datanodes.blockReport(r.getDatanodeUuid(), ids(good), lengths(good), lastEntries(good),
          HlcTimestamp.fromWire(r.getDurableHlc()), standings(good, true));
      return BlockReportResponseProto.newBuilder().setHlc(call.now()).build();
    });
  }

  @Override
  public BlockReceivedResponseProto blockReceived(RpcController c, BlockReceivedRequestProto r)
      throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      List<ReportedBlockProto> good = markCorrupt(r.getDatanodeUuid(), r.getBlocksList());
      datanodes.blocksReceived(r.getDatanodeUuid(), ids(good), lengths(good), lastEntries(good),
          standings(good, false));
      return BlockReceivedResponseProto.newBuilder().setHlc(call.now()).build();
    });
  }

  /**
   * Where each replica of {@code blocks} stands in its write pipeline: every one of a full report ({@code all}),
   * only those that say so of an incremental one (sent when a replica's standing changed; null for the others).
   */
  private static BlockReplicas.Standing[] standings(List<ReportedBlockProto> blocks, boolean all) {
    BlockReplicas.Standing[] standings = new BlockReplicas.Standing[blocks.size()];
    for (int i = 0; i < standings.length; i++) {
      ReportedBlockProto block = blocks.get(i);
      if (all || block.hasPipelineEpoch()) {
        standings[i] = new BlockReplicas.Standing(block.getPipelineEpoch(),
            block.hasFollowerFrontierHlc() ? block.getFollowerFrontierHlc() : BlockReplicas.STAMPS, block.getStale());
      }
    }
    return standings;
  }

  /** Marks the replicas reported damaged; returns the others. */
  private List<ReportedBlockProto> markCorrupt(String uuid, List<ReportedBlockProto> blocks) {
    List<ReportedBlockProto> good = new java.util.ArrayList<>(blocks.size());
    for (ReportedBlockProto block : blocks) {
      if (block.getCorrupt()) {
        datanodes.markCorrupt(uuid, block.getBlockId());
      } else {
        good.add(block);
      }
    }
    return good;
  }

  /** Each block's last entry HLC, or 0 where the DataNode did not say. */
  private static long[] lastEntries(List<ReportedBlockProto> blocks) {
    long[] hlcs = new long[blocks.size()];
    for (int i = 0; i < hlcs.length; i++) {
      hlcs[i] = blocks.get(i).getLastEntryHlc();
    }
    return hlcs;
  }

  @Override
  public GetBlockRetentionResponseProto getBlockRetention(RpcController c, GetBlockRetentionRequestProto r)
      throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      BlockRetention table = fs.blockRetention();
      GetBlockRetentionResponseProto.Builder response = GetBlockRetentionResponseProto.newBuilder()
          .setGeneration(table.generation()).setNextBlockId(table.nextBlockId());
      int left = r.getLimit();
      boolean more = false;
      for (var entry : table.blocks().tailMap(r.getStartAfter(), false).entrySet()) {
        if (left-- == 0) {
          more = true;
          break;
        }
        response.addBlocks(BlockRetentionProto.newBuilder().setBlockId(entry.getKey())
            .setMoments(entry.getValue().toProto()));
      }
      return response.setMore(more && r.getLimit() > 0).setHlc(call.now()).build();
    });
  }

  @Override
  public GetBlockCopiesResponseProto getBlockCopies(RpcController c, GetBlockCopiesRequestProto r)
      throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      for (BlockCopyFailureProto failure : r.getFailuresList()) {
        fs.blockCopies.failed(failure.getDstBlockId(), failure.getMessage());
      }
      return GetBlockCopiesResponseProto.newBuilder().addAllCopies(fs.blockCopies.take(r.getDatanodeUuid()))
          .setHlc(call.now()).build();
    });
  }

  private static long[] lengths(List<ReportedBlockProto> blocks) {
    long[] lengths = new long[blocks.size()];
    for (int i = 0; i < lengths.length; i++) {
      lengths[i] = blocks.get(i).getNumBytes();
    }
    return lengths;
  }

  private static long[] ids(List<ReportedBlockProto> blocks) {
    long[] ids = new long[blocks.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = blocks.get(i).getBlockId();
    }
    return ids;
  }
}
