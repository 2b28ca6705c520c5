package io.fffs.namenode.rpc;

import io.fffs.common.ipc.NamenodeAdminProtocolPB;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.CheckpointRequestProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.CheckpointResponseProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.DatanodeReportProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.DatanodeReportRequestProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.DatanodeReportResponseProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.DecommissionRequestProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.DecommissionResponseProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.HaStateRequestProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.HaStateResponseProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.RefreshNodesRequestProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.RefreshNodesResponseProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.SafeModeActionProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.SafeModeRequestProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.SafeModeResponseProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.TransferLeadershipRequestProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.TransferLeadershipResponseProto;
import io.fffs.namenode.blocks.AdminState;
import io.fffs.namenode.blocks.DatanodeDescriptor;
import io.fffs.namenode.blocks.DatanodeManager;
import io.fffs.namenode.fs.NamespaceQueries;
import io.fffs.namenode.fs.Namesystem;
import io.fffs.namenode.ha.HaNode;
import io.fffs.namenode.permission.PermissionChecker;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.hadoop.thirdparty.protobuf.RpcController;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;

/**
 * Serves {@code NamenodeAdminProtocol} ({@code bin/fffs admin}): the DataNode report and reading safe mode are open
 * to every user, as in HDFS; entering or leaving safe mode, re-reading the host files, decommissioning and
 * checkpointing need the superuser.
 */
public final class AdminProtocolServerSide implements NamenodeAdminProtocolPB {
  private final Namesystem fs;
  private final PermissionChecker permissions;
  private final LongSupplier nanoTime;
  private final ServedCall call;
  private final HaNode ha;

  public AdminProtocolServerSide(Namesystem fs, PermissionChecker permissions, LongSupplier nanoTime) {
    this(fs, permissions, nanoTime, null);
  }

  /** @param ha this NameNode's place in a highly available cluster, or null for a single NameNode */
  public AdminProtocolServerSide(Namesystem fs, PermissionChecker permissions, LongSupplier nanoTime, HaNode ha) {
    this.ha = ha;
    this.fs = fs;
    this.permissions = permissions;
    this.nanoTime = nanoTime;
    this.call = new ServedCall(fs.clock(), fs.retryAnswers, null);
  }

  @Override
  public DatanodeReportResponseProto datanodeReport(RpcController c, DatanodeReportRequestProto r)
      throws ServiceException {
    return call.query(r.getHlc(), caller -> {
      DatanodeManager datanodes = fs.datanodes();
      long nowMicros = fs.clock().physicalClock().currentTimeMicros();
      DatanodeReportResponseProto.Builder response = DatanodeReportResponseProto.newBuilder();
      for (DatanodeDescriptor d : datanodes.datanodes()) {
        DatanodeReportProto.Builder report = DatanodeReportProto.newBuilder().setId(d.id())
            .setCapacityBytes(d.capacityBytes()).setMemoryUsedBytes(d.memoryUsedBytes())
            .setBlockCount(d.blockCount()).setDurableHlc(d.durableHlc().toProto())
            .setDurableLagMicros(d.durableHlc().physicalMicros() == 0 ? 0
                : nowMicros - d.durableHlc().physicalMicros())
            .setClockOffsetMicros(d.clockOffsetMicros()).setLive(datanodes.isLive(d)).setHealthy(d.isHealthy())
            .setLastContactMillis(TimeUnit.NANOSECONDS.toMillis(Math.max(0,
                nanoTime.getAsLong() - d.lastHeartbeatNanos())))
            .setScrubCorruptions(d.scrubCorruptions()).setAdminState(d.adminState().toProto())
            .setRack(d.rack()).setSegmentBytes(d.segmentBytes())
            .setLiveSegmentBytes(d.liveSegmentBytes()).setCurrentBytes(d.currentBytes());
        if (d.adminState() == AdminState.DECOMMISSIONING) {
          report.setDecommissionBlocksLeft(d.decommissionBlocksLeft());
        }
        if (d.offsetErrorMicros() >= 0) {
          report.setMeasuredOffsetMicros(d.measuredOffsetMicros()).setOffsetErrorMicros(d.offsetErrorMicros());
        }
        if (!d.isHealthy()) {
          report.setUnhealthyReason(d.unhealthyReason());
        }
        response.addDatanodes(report);
      }
      NamespaceQueries.ReplicationSummary replication = fs.queries.replicationSummary();
      return response.setClusterId(fs.clusterId()).setSafemode(fs.safeMode().isOn()).setFiles(fs.inodeCount())
          .setBlocks(fs.blockCount()).setUnderReplicatedBlocks(replication.underReplicatedBlocks())
          .setMissingBlocks(replication.missingBlocks()).setHlc(call.now()).build();
    });
  }

  @Override
  public SafeModeResponseProto safeMode(RpcController c, SafeModeRequestProto r) throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      if (r.getAction() != SafeModeActionProto.SAFEMODE_GET) {
        fs.changeSafeMode(caller, r.getAction() == SafeModeActionProto.SAFEMODE_ENTER);
      }
      return SafeModeResponseProto.newBuilder().setOn(fs.safeMode().isOn()).setStatus(fs.safeMode().describe())
          .setHlc(call.now()).build();
    });
  }

  @Override
  public RefreshNodesResponseProto refreshNodes(RpcController c, RefreshNodesRequestProto r)
      throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      permissions.checkSuperUser(caller, "refresh the DataNode host files");
      DatanodeManager datanodes = fs.datanodes();
      datanodes.hosts().refresh();
      List<String> dropped = datanodes.dropNotAdmitted();
      return RefreshNodesResponseProto.newBuilder().addAllDropped(dropped)
          .setIncluded(datanodes.hosts().includedCount()).setExcluded(datanodes.hosts().excludedCount())
          .setHlc(call.now()).build();
    });
  }

  @Override
  public DecommissionResponseProto decommission(RpcController c, DecommissionRequestProto r)
      throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      permissions.checkSuperUser(caller, (r.getRecommission() ? "recommission" : "decommission") + " DataNodes");
      DatanodeManager datanodes = fs.datanodes();
      List<String> registered = datanodes.decommission(r.getNodesList(), r.getRecommission());
      return DecommissionResponseProto.newBuilder().addAllRegistered(registered)
          .addAllDecommissioned(datanodes.decommissioned()).setHlc(call.now()).build();
    });
  }

  @Override
  public CheckpointResponseProto checkpoint(RpcController c, CheckpointRequestProto r) throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      permissions.checkSuperUser(caller, "checkpoint the namespace");
      Path image = fs.checkpoint();
      return CheckpointResponseProto.newBuilder().setTxid(fs.lastTxid()).setImage(image.toString())
          .setHlc(call.now()).build();
    });
  }

  @Override
  public HaStateResponseProto haState(RpcController c, HaStateRequestProto r) throws ServiceException {
    return call.query(r.getHlc(), caller -> {
      HaStateResponseProto.Builder state = HaStateResponseProto.newBuilder().setLastTxid(fs.lastTxid())
          .setLeader(ha == null || ha.isLeader()).setHlc(call.now());
      if (ha != null) {
        state.setNameservice(ha.nameservice()).setId(ha.id()).setRaft(ha.describe());
        if (ha.leaderId() != null) {
          state.setLeaderId(ha.leaderId());
        }
      }
      return state.build();
    });
  }

  @Override
  public TransferLeadershipResponseProto transferLeadership(RpcController c, TransferLeadershipRequestProto r)
      throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      permissions.checkSuperUser(caller, "move the lead of the cluster");
      if (ha == null) {
        throw new io.fffs.common.error.FffsException(io.fffs.common.error.ErrorCode.UNSUPPORTED,
            "this NameNode is not part of a highly available cluster");
      }
      ha.transferLeadership(r.getTo(), r.hasTimeoutMs() ? r.getTimeoutMs() : 10_000);
      return TransferLeadershipResponseProto.newBuilder().setHlc(call.now()).build();
    });
  }
}
