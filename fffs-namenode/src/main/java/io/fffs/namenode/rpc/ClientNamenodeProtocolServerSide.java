package io.fffs.namenode.rpc;

import io.fffs.common.error.FffsException;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.ipc.ClientNamenodeProtocolPB;
import io.fffs.common.ipc.RemoteErrors;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.*;
import io.fffs.common.proto.CommonProtos.TimeSpecProto;
import io.fffs.common.security.BlockAccessMode;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.fs.HistoryOps;
import io.fffs.namenode.fs.HistoryQueries;
import io.fffs.namenode.fs.Logged;
import io.fffs.namenode.fs.Namesystem;
import io.fffs.namenode.namespace.GcPass;
import io.fffs.namenode.namespace.Pin;
import io.fffs.namenode.fs.NamespaceQueries;
import io.fffs.namenode.permission.Caller;
import io.fffs.namenode.security.DelegationTokenCalls;
import org.apache.hadoop.thirdparty.protobuf.RpcController;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;

/**
 * Serves {@code ClientNamenodeProtocol}: unpacks each request, calls the {@link Namesystem}, packs the answer.
 * Located blocks leave with a block access token for the caller: READ from {@code getBlockLocations} (after the
 * read-permission check at the time asked), WRITE from {@code openForWrite}, {@code addBlock}, {@code truncate}
 * and a lease holder's {@code getBlockLocations} (after the write-permission and lease checks).
 */
public final class ClientNamenodeProtocolServerSide implements ClientNamenodeProtocolPB {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ClientNamenodeProtocolServerSide.class);
  private final Namesystem fs;
  private final DelegationTokenCalls tokens;
  private final ServedCall call;
  private final ServerDefaultsProto defaults;

  public ClientNamenodeProtocolServerSide(Namesystem fs, ServerDefaultsProto defaults) {
    this(fs, defaults, new DelegationTokenCalls(null));
  }

  /** @param tokens the delegation-token calls (tokens issued only with Kerberos) */
  public ClientNamenodeProtocolServerSide(Namesystem fs, ServerDefaultsProto defaults, DelegationTokenCalls tokens) {
    this.tokens = tokens;
    this.fs = fs;
    this.call = new ServedCall(fs.clock(), fs.retryAnswers, fs.leadership());
    this.defaults = defaults;
  }

  /**
   * Each block with a token for {@code caller} to {@code mode} it (none when tokens are off); WRITE tokens carry the
   * writer epoch the NameNode put in {@code blocks}.
   */
  private LocatedBlocksProto withTokens(LocatedBlocksProto blocks, BlockAccessMode mode, Caller caller) {
    if (!fs.blockTokens.enabled()) {
      return blocks;
    }
    long epoch = mode == BlockAccessMode.WRITE ? blocks.getWriterEpoch() : 0;
    LocatedBlocksProto.Builder signed = blocks.toBuilder().clearBlocks();
    for (LocatedBlockProto block : blocks.getBlocksList()) {
      signed.addBlocks(withToken(block, mode, caller, epoch));
    }
    return signed.build();
  }

  private LocatedBlockProto withToken(LocatedBlockProto block, BlockAccessMode mode, Caller caller, long epoch) {
    BlockToken token = fs.blockTokens.issue(block.getBlock().getBlockId(), mode, caller.user(), epoch);
    return token == null ? block : block.toBuilder().setToken(token.toProto()).build();
  }

  /** The time a request names, one before the epoch refused with a typed error. */
  private static TimeSpec timeOf(TimeSpecProto time) throws ServiceException {
    try {
      return TimeSpec.fromWire(time);
    } catch (FffsException e) {
      throw RemoteErrors.toServiceException(e);
    }
  }

  private static BlockProto optional(boolean present, BlockProto block) {
    return present ? block : null;
  }

  @Override
  public MkdirsResponseProto mkdirs(RpcController c, MkdirsRequestProto r) throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.directories.mkdirs(caller, r.getSrc(), r.getPermission(),
        r.getCreateParent()).map(made -> MkdirsResponseProto.newBuilder().setResult(made).setHlc(call.now()).build()),
        caller -> MkdirsResponseProto.newBuilder().setResult(true).setHlc(call.now()).build());
  }

  @Override
  public CreateResponseProto create(RpcController c, CreateRequestProto r) throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.files.create(caller, r.getSrc(), r.getPermission(),
        r.getClientName(), r.getOverwrite(), r.getCreateParent(), r.getReplication(), r.getBlockSize(),
        r.hasUserTimePlugin() ? r.getUserTimePlugin() : null)
        .map(status -> CreateResponseProto.newBuilder().setStatus(status).setHlc(call.now()).build()),
        caller -> CreateResponseProto.newBuilder().setStatus(createdBefore(caller, r.getSrc())).setHlc(call.now())
            .build());
  }

  @Override
  public OpenForWriteResponseProto openForWrite(RpcController c, OpenForWriteRequestProto r)
      throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.files.openForWrite(caller, r.getSrc(), r.getClientName())
        .map(open -> OpenForWriteResponseProto.newBuilder().setStatus(open.status)
            .setBlocks(withTokens(open.blocks, BlockAccessMode.WRITE, caller))
            .setHlc(call.now()).build()));
  }

  @Override
  public AddBlockResponseProto addBlock(RpcController c, AddBlockRequestProto r) throws ServiceException {
    return call.change(r.getHlc(), caller -> {
      Logged<LocatedBlockProto> added = fs.files.addBlock(caller, r.getSrc(), r.getFileId(), r.getClientName(),
          optional(r.hasPrevious(), r.getPrevious()));
      long epoch = fs.writerEpoch(r.getFileId(), r.getClientName());
      return added.map(block -> AddBlockResponseProto.newBuilder()
          .setBlock(withToken(block, BlockAccessMode.WRITE, caller, epoch)).setHlc(call.now()).build());
    }, caller -> AddBlockResponseProto.newBuilder().setBlock(addedBefore(caller, r)).setHlc(call.now()).build());
  }

  @Override
  public AbandonBlockResponseProto abandonBlock(RpcController c, AbandonBlockRequestProto r)
      throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.files.abandonBlock(caller, r.getSrc(), r.getFileId(),
        r.getClientName(), r.getBlock().getBlockId())
        .map(done -> AbandonBlockResponseProto.newBuilder().setHlc(call.now()).build()),
        caller -> AbandonBlockResponseProto.newBuilder().setHlc(call.now()).build());
  }

  @Override
  public GetAdditionalDatanodeResponseProto getAdditionalDatanode(RpcController c,
      GetAdditionalDatanodeRequestProto r) throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.files.additionalDatanode(caller, r.getSrc(), r.getFileId(),
        r.getClientName(), r.getBlockId(), r.getExcludedUuidsList())
        .map(datanode -> GetAdditionalDatanodeResponseProto.newBuilder().setDatanode(datanode).setHlc(call.now())
            .build()));
  }

  @Override
  public FsyncResponseProto fsync(RpcController c, FsyncRequestProto r) throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.files.fsync(caller, r.getSrc(), r.getFileId(),
        r.getClientName(), r.getLastBlock(), r.getLastEntriesList())
        .map(done -> FsyncResponseProto.newBuilder().setHlc(call.now()).build()));
  }

  @Override
  public CompleteResponseProto complete(RpcController c, CompleteRequestProto r) throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.files.complete(caller, r.getSrc(), r.getFileId(),
        r.getClientName(), optional(r.hasLast(), r.getLast()), r.getLastEntriesList())
        .map(closed -> CompleteResponseProto.newBuilder().setResult(closed).setHlc(call.now()).build()),
        caller -> CompleteResponseProto.newBuilder().setResult(true).setHlc(call.now()).build());
  }

  @Override
  public RenameResponseProto rename(RpcController c, RenameRequestProto r) throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.directories.rename(caller, r.getSrc(), r.getDst())
        .map(renamed -> RenameResponseProto.newBuilder().setResult(renamed).setHlc(call.now()).build()),
        caller -> RenameResponseProto.newBuilder().setResult(true).setHlc(call.now()).build());
  }

  @Override
  public DeleteResponseProto delete(RpcController c, DeleteRequestProto r) throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.directories.delete(caller, r.getSrc(), r.getRecursive())
        .map(deleted -> DeleteResponseProto.newBuilder().setResult(deleted).setHlc(call.now()).build()),
        caller -> DeleteResponseProto.newBuilder().setResult(true).setHlc(call.now()).build());
  }

  /**
   * The status a create made by another NameNode gave (its answer lost in a failover): the file at {@code src} now,
   * which is the one the create made unless a later change replaced it.
   */
  private io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto createdBefore(
      io.fffs.namenode.permission.Caller caller, String src) throws java.io.IOException {
    io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto status =
        fs.queries.getFileInfo(caller, src, TimeSpec.latest());
    if (status == null) {
      throw new io.fffs.common.error.FffsException(io.fffs.common.error.ErrorCode.NOT_FOUND, src
          + " was created, then removed before this retry of its create came");
    }
    return status;
  }

  /** The block an addBlock made by another NameNode added (its answer lost in a failover): the file's last block. */
  private LocatedBlockProto addedBefore(io.fffs.namenode.permission.Caller caller, AddBlockRequestProto r)
      throws java.io.IOException {
    LocatedBlocksProto blocks = fs.queries.getBlockLocations(caller, r.getSrc(), TimeSpec.latest(), 0,
        Long.MAX_VALUE, r.getClientName());
    if (blocks == null || blocks.getBlocksCount() == 0) {
      throw new io.fffs.common.error.FffsException(io.fffs.common.error.ErrorCode.NOT_FOUND, r.getSrc()
          + " has no block: its addBlock was undone before this retry came");
    }
    return withToken(blocks.getBlocks(blocks.getBlocksCount() - 1), BlockAccessMode.WRITE, caller,
        fs.writerEpoch(r.getFileId(), r.getClientName()));
  }

  private SetAttributeResponseProto attribute(boolean result) {
    return SetAttributeResponseProto.newBuilder().setResult(result).setHlc(call.now()).build();
  }

  @Override
  public SetAttributeResponseProto setPermission(RpcController c, SetPermissionRequestProto r)
      throws ServiceException {
    return call.change(r.getHlc(), caller ->
        fs.directories.setPermission(caller, r.getSrc(), r.getPermission()).map(this::attribute), caller -> attribute(true));
  }

  @Override
  public SetAttributeResponseProto setOwner(RpcController c, SetOwnerRequestProto r) throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.directories.setOwner(caller, r.getSrc(),
        r.hasUsername() ? r.getUsername() : null, r.hasGroupname() ? r.getGroupname() : null).map(this::attribute), caller -> attribute(true));
  }

  @Override
  public SetAttributeResponseProto setTimes(RpcController c, SetTimesRequestProto r) throws ServiceException {
    return call.change(r.getHlc(), caller ->
        fs.directories.setTimes(caller, r.getSrc(), r.getMtime(), r.getAtime()).map(this::attribute), caller -> attribute(true));
  }

  @Override
  public SetAttributeResponseProto setReplication(RpcController c, SetReplicationRequestProto r)
      throws ServiceException {
    return call.change(r.getHlc(), caller ->
        fs.directories.setReplication(caller, r.getSrc(), r.getReplication()).map(this::attribute), caller -> attribute(true));
  }

  @Override
  public TruncateResponseProto truncate(RpcController c, TruncateRequestProto r) throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.files.truncate(caller, r.getSrc(), r.getNewLength(),
        r.getClientName()).map(cut -> {
          TruncateResponseProto.Builder response = TruncateResponseProto.newBuilder().setResult(true);
          BlockToken token = cut.block() < 0 ? null
              : fs.blockTokens.issue(cut.block(), BlockAccessMode.WRITE, caller.user(), cut.writerEpoch());
          if (token != null) {
            response.setCutToken(token.toProto());
          }
          if (cut.block() >= 0) {
            response.addAllCutLocations(fs.datanodes().liveHolders(cut.block()));
          }
          return response.setHlc(call.now()).build();
        }));
  }

  /**
   * Each block's locations nearest the reader first; the last block of a file being written keeps pipeline order
   * (its primary knows the newest entries).
   */
  private LocatedBlocksProto nearestFirst(LocatedBlocksProto blocks, String reader) {
    LocatedBlocksProto.Builder sorted = blocks.toBuilder();
    for (int i = 0; i < sorted.getBlocksCount(); i++) {
      if (blocks.getUnderConstruction() && i == sorted.getBlocksCount() - 1) {
        continue;
      }
      LocatedBlockProto block = sorted.getBlocks(i);
      sorted.setBlocks(i, block.toBuilder().clearLocations()
          .addAllLocations(fs.datanodes().nearestFirst(block.getLocationsList(), reader)));
    }
    return sorted.build();
  }

  @Override
  public RenewLeaseResponseProto renewLease(RpcController c, RenewLeaseRequestProto r) throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      fs.files.renewLease(r.getClientName());
      return RenewLeaseResponseProto.newBuilder().setHlc(call.now()).build();
    });
  }

  @Override
  public RecoverLeaseResponseProto recoverLease(RpcController c, RecoverLeaseRequestProto r)
      throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.files.recoverLease(caller, r.getSrc())
        .map(closed -> RecoverLeaseResponseProto.newBuilder().setClosed(closed).setHlc(call.now()).build()));
  }

  /** Hadoop's SafeMode through the client protocol: the same as {@code bin/fffs admin -safemode}. */
  @Override
  public SetSafeModeResponseProto setSafeMode(RpcController c, SetSafeModeRequestProto r) throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      if (r.hasEnter()) {
        fs.changeSafeMode(caller, r.getEnter());
      }
      return SetSafeModeResponseProto.newBuilder().setOn(fs.safeMode().isOn()).setStatus(fs.safeMode().describe())
          .setHlc(call.now()).build();
    });
  }

  @Override
  public GetFileInfoResponseProto getFileInfo(RpcController c, GetFileInfoRequestProto r)
      throws ServiceException {
    TimeSpec time = timeOf(r.getTime());
    return call.queryAt(r.getHlc(), r.hasInodeId() ? TimeSpec.latest() : time, caller -> {
      FileStatusProto status = r.hasInodeId() ? fs.queries.getFileInfoById(caller, r.getInodeId(), r.getSrc())
          : fs.queries.getFileInfo(caller, r.getSrc(), time);
      GetFileInfoResponseProto.Builder response = GetFileInfoResponseProto.newBuilder().setHlc(call.now());
      return (status == null ? response : response.setStatus(status)).build();
    });
  }

  @Override
  public GetListingResponseProto getListing(RpcController c, GetListingRequestProto r) throws ServiceException {
    TimeSpec time = timeOf(r.getTime());
    return call.queryAt(r.getHlc(), time, caller -> {
      NamespaceQueries.Listing listing = fs.queries.getListing(caller, r.getSrc(), time, r.getStartAfter(),
          r.getLimit());
      return GetListingResponseProto.newBuilder().addAllEntries(listing.entries)
          .setRemainingEntries(listing.remaining).setHlc(call.now()).build();
    });
  }

  @Override
  public GetBlockLocationsResponseProto getBlockLocations(RpcController c, GetBlockLocationsRequestProto r)
      throws ServiceException {
    java.net.InetAddress reader = org.apache.hadoop.ipc.Server.getRemoteIp();
    return call.query(r.getHlc(), caller -> {
      String writer = r.hasWriterClientName() ? r.getWriterClientName() : null;
      LocatedBlocksProto blocks = fs.queries.getBlockLocations(caller, r.getSrc(), TimeSpec.fromWire(r.getTime()),
          r.getOffset(), r.getLength(), writer);
      if (blocks != null && writer == null && reader != null) {
        blocks = nearestFirst(blocks, reader.getHostAddress());
      }
      blocks = blocks == null ? null
          : withTokens(blocks, writer == null ? BlockAccessMode.READ : BlockAccessMode.WRITE, caller);
      GetBlockLocationsResponseProto.Builder response = GetBlockLocationsResponseProto.newBuilder()
          .setHlc(call.now());
      return (blocks == null ? response : response.setLocations(blocks)).build();
    });
  }

  @Override
  public GetContentSummaryResponseProto getContentSummary(RpcController c, GetContentSummaryRequestProto r)
      throws ServiceException {
    TimeSpec time = timeOf(r.getTime());
    return call.queryAt(r.getHlc(), time, caller -> GetContentSummaryResponseProto.newBuilder()
        .setSummary(fs.queries.getContentSummary(caller, r.getPath(), time))
        .setHlc(call.now()).build());
  }

  @Override
  public ReportBadReplicaResponseProto reportBadReplica(RpcController c, ReportBadReplicaRequestProto r)
      throws ServiceException {
    return call.query(r.getHlc(), caller -> {
      if (fs.datanodes().markCorruptIfHeld(r.getDatanodeUuid(), r.getBlockId())) {
        LOG.warn("{} reports the replica of block {} on DataNode {} damaged: {}", caller.user(), r.getBlockId(),
            r.getDatanodeUuid(), r.getReason());
      }
      return ReportBadReplicaResponseProto.newBuilder().setHlc(call.now()).build();
    });
  }

  @Override
  public FsckResponseProto fsck(RpcController c, FsckRequestProto r) throws ServiceException {
    return call.query(r.getHlc(), caller -> FsckResponseProto.newBuilder()
        .addAllFiles(fs.fsck.check(caller, r.getPath(), TimeSpec.fromWire(r.getTime()))).setHlc(call.now())
        .build());
  }

  @Override
  public ListVersionsResponseProto listVersions(RpcController c, ListVersionsRequestProto r)
      throws ServiceException {
    return call.query(r.getHlc(), caller -> ListVersionsResponseProto.newBuilder()
        .addAllVersions(fs.queries.listVersions(caller, r.getSrc())).setHlc(call.now()).build());
  }

  @Override
  public CurrentTimeResponseProto currentTime(RpcController c, CurrentTimeRequestProto r) throws ServiceException {
    return call.query(r.getHlc(), caller -> CurrentTimeResponseProto.newBuilder().setHlc(call.now()).build());
  }

  @Override
  public GetServerDefaultsResponseProto getServerDefaults(RpcController c, GetServerDefaultsRequestProto r)
      throws ServiceException {
    return call.query(r.getHlc(), caller -> GetServerDefaultsResponseProto.newBuilder().setDefaults(defaults)
        .setHlc(call.now()).build());
  }

  @Override
  public GetStatsResponseProto getStats(RpcController c, GetStatsRequestProto r) throws ServiceException {
    return call.query(r.getHlc(), caller -> {
      long capacity = 0;
      long used = 0;
      long[] disk = new long[3];
      for (var datanode : fs.datanodes().datanodes()) {
        if (fs.datanodes().isLive(datanode)) {
          capacity += datanode.capacityBytes();
          used += datanode.memoryUsedBytes();
          disk[0] += datanode.segmentBytes();
          disk[1] += datanode.liveSegmentBytes();
          disk[2] += datanode.currentBytes();
        }
      }
      return GetStatsResponseProto.newBuilder().setCapacity(capacity).setUsed(used)
          .setSegmentBytes(disk[0]).setLiveSegmentBytes(disk[1]).setCurrentBytes(disk[2])
          .setRemaining(Math.max(0, capacity - used)).setFiles(fs.inodeCount()).setBlocks(fs.blockCount())
          .setLiveDatanodes(fs.datanodes().liveCount()).setHlc(call.now()).build();
    });
  }

  // ---- bounded history ----------------------------------------------------------------------------------------

  @Override
  public SetRetentionResponseProto setRetention(RpcController c, SetRetentionRequestProto r)
      throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.history.setRetention(caller, r.getSrc(),
        r.hasRule() ? RetentionRule.fromProto(r.getRule()) : null)
        .map(done -> SetRetentionResponseProto.newBuilder().setHlc(call.now()).build()));
  }

  @Override
  public GetRetentionResponseProto getRetention(RpcController c, GetRetentionRequestProto r)
      throws ServiceException {
    return call.query(r.getHlc(), caller -> {
      HistoryOps.RetentionStatus status = fs.history.getRetention(caller, r.getSrc());
      GetRetentionResponseProto.Builder response = GetRetentionResponseProto.newBuilder()
          .setRule(status.rule().toProto()).setSetOn(status.setOn()).setHorizonMicros(status.horizonMicros())
          .setWindowStartMicros(status.windowStartMicros()).setKept(status.kept().toProto());
      if (status.ownRule() != null) {
        response.setOwnRule(status.ownRule().toProto());
      }
      return response.setHlc(call.now()).build();
    });
  }

  @Override
  public PinResponseProto pin(RpcController c, PinRequestProto r) throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.history.pin(caller, r.getSrc(), TimeSpec.fromWire(r.getTime()),
        r.getName()).map(pin -> PinResponseProto.newBuilder().setPin(pin.toProto()).setHlc(call.now()).build()));
  }

  @Override
  public UnpinResponseProto unpin(RpcController c, UnpinRequestProto r) throws ServiceException {
    return call.change(r.getHlc(), caller -> fs.history.unpin(caller, r.getName())
        .map(done -> UnpinResponseProto.newBuilder().setHlc(call.now()).build()));
  }

  @Override
  public ListPinsResponseProto listPins(RpcController c, ListPinsRequestProto r) throws ServiceException {
    return call.query(r.getHlc(), caller -> {
      ListPinsResponseProto.Builder response = ListPinsResponseProto.newBuilder();
      for (Pin pin : fs.history.listPins(caller, r.getSrc())) {
        response.addPins(pin.toProto());
      }
      return response.setHlc(call.now()).build();
    });
  }

  @Override
  public GetPinResponseProto getPin(RpcController c, GetPinRequestProto r) throws ServiceException {
    return call.query(r.getHlc(), caller -> GetPinResponseProto.newBuilder()
        .setPin(fs.history.getPin(caller, r.getName()).toProto()).setHlc(call.now()).build());
  }

  @Override
  public CollectHistoryResponseProto collectHistory(RpcController c, CollectHistoryRequestProto r)
      throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      GcPass.Result result = fs.collectHistory(caller);
      return CollectHistoryResponseProto.newBuilder().setInodesRemoved(result.inodesRemoved())
          .setVersionsDropped(result.versionsDropped()).setNamesDropped(result.namesDropped())
          .setHlc(call.now()).build();
    });
  }

  @Override
  public HistoryDiffResponseProto historyDiff(RpcController c, HistoryDiffRequestProto r) throws ServiceException {
    return call.query(r.getHlc(), caller -> {
      HistoryQueries.Diff diff = fs.historyQueries.diff(caller, r.getSrc(), TimeSpec.fromWire(r.getFrom()),
          TimeSpec.fromWire(r.getTo()), r.getLimit());
      HistoryDiffResponseProto.Builder response = HistoryDiffResponseProto.newBuilder();
      for (HistoryQueries.Difference d : diff.differences()) {
        HistoryDiffEntryProto.Builder entry = HistoryDiffEntryProto.newBuilder()
            .setKind(HistoryDiffEntryProto.Kind.valueOf(d.kind().name())).setPath(d.path())
            .setLengthBefore(d.lengthBefore()).setLengthAfter(d.lengthAfter());
        if (d.target() != null) {
          entry.setTarget(d.target());
        }
        response.addEntries(entry);
      }
      return response.setTruncated(diff.truncated()).setHlc(call.now()).build();
    });
  }

  @Override
  public HistoryUsageResponseProto historyUsage(RpcController c, HistoryUsageRequestProto r)
      throws ServiceException {
    return call.query(r.getHlc(), caller -> {
      HistoryQueries.Usage usage = fs.historyQueries.usage(caller, r.getSrc());
      return HistoryUsageResponseProto.newBuilder().setFiles(usage.files()).setDirectories(usage.directories())
          .setBytesNow(usage.bytesNow()).setVersionsKept(usage.versionsKept())
          .setPastOnlyInodes(usage.pastOnlyInodes()).setPastOnlyBytes(usage.pastOnlyBytes())
          .setHlc(call.now()).build();
    });
  }

  @Override
  public RestoreResponseProto restore(RpcController c, RestoreRequestProto r) throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      io.fffs.namenode.fs.RestoreOps.Result result = fs.restores.restore(caller, r.getSrc(),
          TimeSpec.fromWire(r.getTime()), r.hasDst() ? r.getDst() : null);
      return RestoreResponseProto.newBuilder().setFiles(result.files()).setDirectories(result.directories())
          .setBytes(result.bytes()).setHlc(call.now()).build();
    });
  }
  @Override
  public GetDelegationTokenResponseProto getDelegationToken(RpcController c, GetDelegationTokenRequestProto r)
      throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      DelegationTokenProto token = tokens.get(r.getRenewer());
      GetDelegationTokenResponseProto.Builder response = GetDelegationTokenResponseProto.newBuilder();
      return (token == null ? response : response.setToken(token)).setHlc(call.now()).build();
    });
  }

  @Override
  public RenewDelegationTokenResponseProto renewDelegationToken(RpcController c,
      RenewDelegationTokenRequestProto r) throws ServiceException {
    return call.serve(r.getHlc(), caller -> RenewDelegationTokenResponseProto.newBuilder()
        .setExpiryMillis(tokens.renew(r.getToken())).setHlc(call.now()).build());
  }

  @Override
  public CancelDelegationTokenResponseProto cancelDelegationToken(RpcController c,
      CancelDelegationTokenRequestProto r) throws ServiceException {
    return call.serve(r.getHlc(), caller -> {
      tokens.cancel(r.getToken());
      return CancelDelegationTokenResponseProto.newBuilder().setHlc(call.now()).build();
    });
  }
}
