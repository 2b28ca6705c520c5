package io.fffs.namenode.fs;

import io.fffs.common.proto.CommonProtos.BlockLastEntryProto;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.proto.NamenodeEditsProtos.AbandonBlockOp;
import io.fffs.common.proto.NamenodeEditsProtos.AddBlockOp;
import io.fffs.common.proto.NamenodeEditsProtos.CompleteOp;
import io.fffs.common.proto.NamenodeEditsProtos.CreateOp;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.FenceWritersOp;
import io.fffs.common.proto.NamenodeEditsProtos.FsyncOp;
import io.fffs.common.proto.NamenodeEditsProtos.OpenForWriteOp;
import io.fffs.common.proto.NamenodeEditsProtos.TruncateOp;
import io.fffs.namenode.blocks.DatanodeDescriptor;
import io.fffs.namenode.blocks.DatanodeManager;
import io.fffs.namenode.lease.LeaseManager;
import io.fffs.namenode.lease.WriterFencing;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.InodeState;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.permission.Caller;
import io.fffs.namenode.permission.PermissionChecker;
import io.fffs.namenode.permission.PermissionChecker.Access;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writing files: create, reopen, blocks, fsync, close, truncate, lease recovery. Each is one change on the
 * {@link MutationPath}; its answer is given once durable ({@link Logged}).
 */
public final class FileOps {
  private static final Logger LOG = LoggerFactory.getLogger(FileOps.class);
  /** Blocks are checksummed in chunks of this many bytes; block sizes must be a multiple of it. */
  public static final int BYTES_PER_CHECKSUM = 512;

  private final MutationPath changes;
  private final Namespace namespace;
  private final PermissionChecker permissions;
  /** The lease holder of a file being recovered for {@code client} (or by the NameNode) while its fence spreads. */
  private static final String RECOVERY_HOLDER_PREFIX = "fffs-lease-recovery/";
  /** A fence found raised for this very recovery and confirmed by every live DataNode (nothing to spread). */
  private static final Fence CONFIRMED = new Fence(0, new long[0]);

  private final LeaseManager leases;
  private final DatanodeManager datanodes;
  private final WriterFencing fencing;
  private final long fenceTimeoutMillis;
  /** The {@link #recoverLease} calls that may wait for their fence at once (each holds an IPC handler). */
  private final Semaphore recoveryFenceWaits;
  /** The last fence {@link #recoverLease} published per file it holds, so a call again finds it confirmed. */
  private final Map<Long, Long> recoveryFences = new ConcurrentHashMap<>();

  FileOps(MutationPath changes, Namespace namespace, PermissionChecker permissions, LeaseManager leases,
      DatanodeManager datanodes, WriterFencing fencing, long fenceTimeoutMillis, int recoveryFenceWaits) {
    this.changes = changes;
    this.namespace = namespace;
    this.permissions = permissions;
    this.leases = leases;
    this.datanodes = datanodes;
    this.fencing = fencing;
    this.fenceTimeoutMillis = fenceTimeoutMillis;
    this.recoveryFenceWaits = new Semaphore(recoveryFenceWaits);
  }

  /** A file opened for writing: its status and its blocks (with the writer epoch their WRITE tokens carry). */
  public static final class OpenFile {
    public final FileStatusProto status;
    public final LocatedBlocksProto blocks;

    OpenFile(FileStatusProto status, LocatedBlocksProto blocks) {
      this.status = status;
      this.blocks = blocks;
    }
  }

  /** A writer fence raised and logged, to be spread to the DataNodes before the recovery is stamped. */
  private record Fence(long epoch, long[] blockIds) {}

  /** Creates a file and gives {@code clientName} its lease. */
  public Logged<FileStatusProto> create(Caller caller, String path, int permission, String clientName,
      boolean overwrite, boolean createParent, int replication, long blockSize, String userTimePlugin)
      throws IOException {
    if (blockSize <= 0 || blockSize % BYTES_PER_CHECKSUM != 0) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "block size " + blockSize + " of " + path
          + " must be a positive multiple of " + BYTES_PER_CHECKSUM);
    }
    if (replication < 1 || replication > 512) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "replication " + replication + " of " + path
          + " must be between 1 and 512");
    }
    return changes.mutate("create " + path, () -> {
      ResolvedPath target = resolve(path, Namespace.LATEST, caller).requireNoFileInTheMiddle();
      if (target.isRoot()) {
        throw new FffsException(ErrorCode.ALREADY_EXISTS, "/ is a directory; cannot create a file there");
      }
      int missingParents = 0;
      if (target.exists()) {
        InodeState existing = target.lastState();
        if (existing.isDirectory()) {
          throw new FffsException(ErrorCode.ALREADY_EXISTS, path + " already exists as a directory");
        }
        if (!overwrite) {
          throw new FffsException(ErrorCode.ALREADY_EXISTS, path + " already exists; create it with overwrite"
              + " to replace it (its history stays readable)");
        }
        permissions.check(caller, target.parentState(), target.parentPath(), Access.WRITE);
        checkNotBeingWritten(target.last(), path, clientName);
        leases.remove(target.last().id());
      } else {
        missingParents = target.inodes.length - 1 - target.existing;
        if (missingParents > 0 && !createParent) {
          throw new FffsException(ErrorCode.NOT_FOUND, "parent directory " + target.parentPath() + " of " + path
              + " does not exist");
        }
        if (!target.deepestExistingState().isDirectory()) {
          throw new FffsException(ErrorCode.NOT_A_DIRECTORY, target.deepestExistingPath() + " is a file");
        }
        permissions.check(caller, target.deepestExistingState(), target.deepestExistingPath(), Access.WRITE);
      }
      CreateOp.Builder op = CreateOp.newBuilder()
          .setPath(path)
          .setPermission(permission)
          .setOwner(caller.user())
          .setGroup(target.deepestExistingState().group())
          .setReplication(replication)
          .setBlockSize(blockSize)
          .setClientName(clientName)
          .setParentPermission(permission | 0300 | (permission & 0444) >> 2);  // r implies x for directories
      for (int i = 0; i < missingParents; i++) {
        op.addParentInodeIds(namespace.allocateInodeId());
      }
      op.setInodeId(namespace.allocateInodeId());
      if (userTimePlugin != null && !userTimePlugin.isEmpty()) {
        op.setUserTimePlugin(userTimePlugin);
      }
      changes.log(EditOpProto.newBuilder().setCreate(op).build());
      leases.add(clientName, op.getInodeId());
      return latestStatus(path, namespace.inode(op.getInodeId()));
    });
  }

  /** Reopens a closed file for writing (append or in-place writes); recovers an expired lease first. */
  public Logged<OpenFile> openForWrite(Caller caller, String path, String clientName) throws IOException {
    spread(changes.mutate("fence the writer of " + path, () -> fenceForTakeover(caller, path, clientName)).await());
    return changes.mutate("write to " + path, () -> {
      ResolvedPath target = resolve(path, Namespace.LATEST, caller).requireExists();
      Inode file = target.last();
      if (target.lastState().isDirectory()) {
        throw new FffsException(ErrorCode.IS_A_DIRECTORY, path + " is a directory; only files can be written");
      }
      permissions.check(caller, target.lastState(), path, Access.WRITE);
      String holder = leases.holder(file.id());
      if (!clientName.equals(holder)) {
        checkNotBeingWritten(file, path, clientName);
        if (file.latest().isUnderConstruction()) {
          changes.log(recoveryOf(file));
          recoveryFences.remove(file.id());
        }
        changes.log(EditOpProto.newBuilder().setOpenForWrite(OpenForWriteOp.newBuilder().setInodeId(file.id())
            .setClientName(clientName)).build());
        leases.add(clientName, file.id());
      }
      InodeState state = file.latest();
      LocatedBlocksProto.Builder blocks = Statuses.locatedBlocks(state, file.states().latestHlc(), 0,
          Long.MAX_VALUE, datanodes).toBuilder().setWriterEpoch(file.writerEpoch());
      for (int i = 0; i < blocks.getBlocksCount(); i++) {
        LocatedBlockProto block = blocks.getBlocks(i);
        blocks.setBlocks(i, block.toBuilder().clearLocations()
            .addAllLocations(datanodes.writerLocations(block.getBlock().getBlockId(), state.replication())));
      }
      return new OpenFile(latestStatus(path, file), blocks.build());
    });
  }

  /**
   * Before a client takes over a file whose writer is gone: raises the file's writer epoch and hands the lease to a
   * recovery holder for {@code clientName} (so the old writer gets no new block or token); null when the file is
   * not open, the caller already writes it, or fencing is off.
   */
  private Fence fenceForTakeover(Caller caller, String path, String clientName) throws IOException {
    if (!fencing.enabled()) {
      return null;
    }
    ResolvedPath target = resolve(path, Namespace.LATEST, caller).requireExists();
    Inode file = target.last();
    if (target.lastState().isDirectory() || !file.latest().isUnderConstruction()
        || clientName.equals(leases.holder(file.id()))) {
      return null;  // the ordinary checks of openForWrite answer
    }
    permissions.check(caller, target.lastState(), path, Access.WRITE);
    checkNotBeingWritten(file, path, clientName);
    return fence(file, RECOVERY_HOLDER_PREFIX + clientName);
  }

  /** Logs a raised writer epoch for {@code file} and gives its lease to {@code holder}. */
  private Fence fence(Inode file, String holder) throws FffsException {
    long epoch = file.writerEpoch() + 1;
    changes.log(EditOpProto.newBuilder().setFenceWriters(FenceWritersOp.newBuilder().setInodeId(file.id())
        .setEpoch(epoch)).build());
    leases.add(holder, file.id());
    InodeState state = file.latest();
    long[] blocks = new long[state.blockCount()];
    for (int i = 0; i < blocks.length; i++) {
      blocks[i] = state.blockId(i);
    }
    return new Fence(epoch, blocks);
  }

  /**
   * Once its epoch is durable, tells the DataNodes of {@code fence} and waits until the live ones hold it; returns
   * those that did not within the fence timeout.
   */
  private List<String> spread(Fence fence) throws IOException {
    if (fence == null) {
      return List.of();
    }
    return awaitFence(fencing.publish(fence.epoch(), fence.blockIds()));
  }

  /** Waits until the live DataNodes hold fence {@code seq}; returns those that did not within the fence timeout. */
  private List<String> awaitFence(long seq) throws IOException {
    try {
      return fencing.awaitConfirmed(seq, this::liveDatanodes, fenceTimeoutMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while fencing the writers of a file");
    }
  }

  private List<String> liveDatanodes() {
    List<String> live = new ArrayList<>();
    for (DatanodeDescriptor datanode : datanodes.datanodes()) {
      if (datanodes.isLive(datanode)) {
        live.add(datanode.uuid());
      }
    }
    return live;
  }

  /**
   * The writer epoch {@code clientName}'s WRITE tokens for file {@code fileId} carry: the file's, while it holds
   * the lease; else 0, which DataNodes refuse once the file was taken over. Call under the namesystem lock.
   */
  long writerEpoch(long fileId, String clientName) {
    Inode file = namespace.inode(fileId);
    return file != null && clientName.equals(leases.holder(fileId)) ? file.writerEpoch() : 0;
  }

  /**
   * Allocates the next block of an open file on up to its replication of live, healthy DataNodes (fewer when fewer
   * fit: the block is then under-replicated), the primary first.
   */
  public Logged<LocatedBlockProto> addBlock(Caller caller, String path, long fileId, String clientName,
      BlockProto previous) throws IOException {
    java.net.InetAddress writer = org.apache.hadoop.ipc.Server.getRemoteIp();  // the first replica goes there
    String writerAddress = writer == null ? null : writer.getHostAddress();
    return changes.mutate("add a block to " + path, () -> {
      Inode file = checkLease(fileId, path, clientName);
      InodeState state = file.latest();
      AddBlockOp.Builder op = AddBlockOp.newBuilder().setInodeId(fileId);
      long offset = 0;
      if (previous != null) {
        int last = state.blockCount() - 1;
        if (last < 0 || state.blockId(last) != previous.getBlockId()) {
          throw new FffsException(ErrorCode.INVALID_ARGUMENT, "block " + previous.getBlockId()
              + " is not the last block of " + path);
        }
        checkBlockLength(state, previous.getNumBytes(), path);
        op.setPreviousLength(previous.getNumBytes());
        offset = state.length() - state.blockLength(last) + previous.getNumBytes();
      } else if (state.blockCount() > 0) {
        offset = state.length();
      }
      List<DatanodeDescriptor> targets = datanodes.chooseTargets(state.replication(), writerAddress);
      long blockId = namespace.allocateBlockId();
      List<String> uuids = new ArrayList<>(targets.size());
      LocatedBlockProto.Builder located = LocatedBlockProto.newBuilder()
          .setBlock(BlockProto.newBuilder().setBlockId(blockId).setNumBytes(0))
          .setOffset(offset);
      for (DatanodeDescriptor target : targets) {
        uuids.add(target.uuid());
        located.addLocations(target.id());
      }
      op.setBlockId(blockId).setDatanodeUuid(uuids.get(0)).addAllReplicaDatanodeUuids(uuids.subList(1, uuids.size()));
      changes.log(EditOpProto.newBuilder().setAddBlock(op).build());
      datanodes.placed(blockId, uuids);
      leases.renew(clientName);
      if (targets.size() < state.replication()) {
        LOG.debug("Block {} of {} placed on {} of {} DataNodes asked for", blockId, path, targets.size(),
            state.replication());
      }
      return located.build();
    });
  }

  /** Drops the last block of an open file (a writer that could not use it). */
  public Logged<Void> abandonBlock(Caller caller, String path, long fileId, String clientName, long blockId)
      throws IOException {
    return changes.mutate("abandon a block of " + path, () -> {
      Inode file = checkLease(fileId, path, clientName);
      InodeState state = file.latest();
      if (state.blockCount() == 0 || state.blockId(state.blockCount() - 1) != blockId) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "block " + blockId + " is not the last block of "
            + path);
      }
      changes.log(EditOpProto.newBuilder().setAbandonBlock(AbandonBlockOp.newBuilder().setInodeId(fileId)
          .setBlockId(blockId)).build());
      return null;
    });
  }

  /**
   * A DataNode to replace one that left the pipeline of {@code blockId}, the file's last block: live, healthy, with
   * no replica of the block, not in {@code excluded}, its clock within the max offset of the block's first replica's.
   * It is recorded as a replica at once; it is listed once it reports the block's newest entry.
   */
  public Logged<DatanodeIdProto> additionalDatanode(Caller caller, String path, long fileId, String clientName,
      long blockId, java.util.Collection<String> excluded) throws IOException {
    return changes.mutate("find a replacement DataNode for " + path, () -> {
      Inode file = checkLease(fileId, path, clientName);
      InodeState state = file.latest();
      if (state.blockCount() == 0 || state.blockId(state.blockCount() - 1) != blockId) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "block " + blockId + " is not the last block of "
            + path);
      }
      List<String> holders = datanodes.replicaView(blockId, Long.MAX_VALUE).holders();
      java.util.Set<String> exclude = new java.util.HashSet<>(holders);
      exclude.addAll(excluded);
      List<DatanodeIdProto> chosen = datanodes.chooseCopyTargets(1, holders.isEmpty() ? null : holders.get(0),
          exclude, holders);
      if (chosen.isEmpty()) {
        throw new FffsException(ErrorCode.NO_DATANODE, "no live, healthy DataNode outside the pipeline of block "
            + blockId + " of " + path + " can replace one that left it");
      }
      datanodes.addedToPipeline(blockId, chosen.get(0).getDatanodeUuid());
      leases.renew(clientName);
      return chosen.get(0);
    });
  }

  /** Records the length a writer reached in a block, so that new readers see it. */
  public Logged<Void> fsync(Caller caller, String path, long fileId, String clientName, BlockProto block)
      throws IOException {
    return fsync(caller, path, fileId, clientName, block, List.of());
  }

  /**
   * Records the length a writer reached in a block, and the last entries of the blocks it wrote ({@code entries}):
   * replicas that report older ones are not listed, and the pipeline members named are taken as reporting them.
   */
  public Logged<Void> fsync(Caller caller, String path, long fileId, String clientName, BlockProto block,
      List<BlockLastEntryProto> entries) throws IOException {
    return changes.mutate("fsync " + path, () -> {
      Inode file = checkLease(fileId, path, clientName);
      InodeState state = file.latest();
      int index = blockIndex(state, block.getBlockId(), path);
      checkBlockLength(state, block.getNumBytes(), path);
      List<BlockLastEntryProto> raised = raisedLastEntries(state, entries);
      if (state.blockLength(index) != block.getNumBytes() || !raised.isEmpty()) {
        changes.log(EditOpProto.newBuilder().setFsync(FsyncOp.newBuilder().setInodeId(fileId)
            .setBlockId(block.getBlockId()).setLength(block.getNumBytes()).addAllLastEntries(raised)).build());
      }
      writerReports(state, entries);
      leases.renew(clientName);
      return null;
    });
  }

  /** The entries of {@code entries} on blocks of the file that are newer than the ones kept (blocks and HLCs only). */
  private List<BlockLastEntryProto> raisedLastEntries(InodeState state, List<BlockLastEntryProto> entries) {
    List<BlockLastEntryProto> raised = new ArrayList<>();
    for (BlockLastEntryProto entry : entries) {
      if (holds(state, entry.getBlockId())
          && entry.getLastEntryHlc() > namespace.lastEntries().get(entry.getBlockId())) {
        raised.add(BlockLastEntryProto.newBuilder().setBlockId(entry.getBlockId())
            .setLastEntryHlc(entry.getLastEntryHlc()).build());
      }
    }
    return raised;
  }

  private static boolean holds(InodeState state, long blockId) {
    for (int i = 0; i < state.blockCount(); i++) {
      if (state.blockId(i) == blockId) {
        return true;
      }
    }
    return false;
  }

  /** The writer's pipeline members hold its blocks' last entries: taken as their reports, which may lag. */
  private void writerReports(InodeState state, List<BlockLastEntryProto> entries) {
    for (BlockLastEntryProto entry : entries) {
      if (holds(state, entry.getBlockId()) && entry.hasLength()) {
        datanodes.writerReported(entry.getBlockId(), entry.getDatanodeUuidsList(), entry.getLength(),
            entry.getLastEntryHlc());
      }
    }
  }

  /**
   * Closes a file: final length of its last block; the lease ends. A file already closed as this close would
   * leave it (same last block and length: a retried close) answers true; one closed otherwise (by lease recovery
   * or another writer, so this writer's later bytes were not kept) is {@code LEASE_CONFLICT}.
   */
  public Logged<Boolean> complete(Caller caller, String path, long fileId, String clientName, BlockProto last)
      throws IOException {
    return complete(caller, path, fileId, clientName, last, List.of());
  }

  /** {@link #complete}, with the last entries of the blocks the writer wrote (as {@link #fsync} takes them). */
  public Logged<Boolean> complete(Caller caller, String path, long fileId, String clientName, BlockProto last,
      List<BlockLastEntryProto> entries) throws IOException {
    return changes.mutate("close " + path, () -> {
      Inode file = namespace.requireInode(fileId);
      InodeState latest = file.latest();
      if (!latest.isUnderConstruction()) {
        int blocks = latest.blockCount();
        boolean same = last == null ? blocks == 0 : blocks > 0 && latest.blockId(blocks - 1) == last.getBlockId()
            && latest.blockLength(blocks - 1) == last.getNumBytes();
        if (same) {
          return true;  // a retried close
        }
        throw new FffsException(ErrorCode.LEASE_CONFLICT, "client " + clientName + " cannot close " + path
            + ": it was closed already, at " + latest.length() + " bytes, by lease recovery or another writer, so"
            + " what this client wrote after that was not kept; open the file for append and write it again");
      }
      checkLease(fileId, path, clientName);
      CompleteOp.Builder op = CompleteOp.newBuilder().setInodeId(fileId);
      if (last != null) {
        blockIndex(file.latest(), last.getBlockId(), path);
        checkBlockLength(file.latest(), last.getNumBytes(), path);
        op.setLastBlockId(last.getBlockId()).setLastBlockLength(last.getNumBytes());
      }
      op.addAllLastEntries(raisedLastEntries(file.latest(), entries));
      writerReports(file.latest(), entries);
      changes.log(EditOpProto.newBuilder().setComplete(op).build());
      leases.remove(fileId);
      return true;
    });
  }

  /**
   * Cuts a closed file to {@code newLength}; its past stays readable. Returns the block the client must cut on its
   * DataNode (the one holding the new last byte, or the first block for length 0), or -1 when none is cut.
   */
  /** What a truncate cut: its block ({@code -1}: none) and the file's writer epoch, which the cut's token carries. */
  public record Cut(long block, long writerEpoch) {}

  public Logged<Cut> truncate(Caller caller, String path, long newLength, String clientName) throws IOException {
    return changes.mutate("truncate " + path, () -> {
      ResolvedPath target = resolve(path, Namespace.LATEST, caller).requireExists();
      InodeState state = target.lastState();
      if (state.isDirectory()) {
        throw new FffsException(ErrorCode.IS_A_DIRECTORY, path + " is a directory; only files can be truncated");
      }
      permissions.check(caller, state, path, Access.WRITE);
      if (state.isUnderConstruction()) {
        throw new FffsException(ErrorCode.LEASE_CONFLICT, path + " is open for writing by "
            + state.leaseHolder() + "; close it before truncating");
      }
      if (newLength < 0 || newLength > state.length()) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "cannot truncate " + path + " of length "
            + state.length() + " to " + newLength + ": the new length must be between 0 and the current length");
      }
      if (newLength == state.length()) {
        return new Cut(-1L, 0);
      }
      long cut = blockHolding(state, Math.max(0, newLength - 1));
      changes.log(EditOpProto.newBuilder().setTruncate(TruncateOp.newBuilder().setInodeId(target.last().id())
          .setNewLength(newLength)).build());
      datanodes.forgetReportedLength(cut);
      // the DataNodes fence writers older than the file's last reopen: the cut must not look like one of them
      return new Cut(cut, target.last().writerEpoch());
    });
  }

  private static long blockHolding(InodeState state, long offset) {
    long start = 0;
    for (int i = 0; i < state.blockCount(); i++) {
      long end = start + state.blockLength(i);
      if (offset < end) {
        return state.blockId(i);
      }
      start = end;
    }
    return -1L;
  }

  /**
   * The op that closes a file whose writer is gone (lease recovery): its last block gets the longer of the length
   * the writer last reported and the length its DataNode reports — what a writer's hflush made visible is kept.
   */
  private EditOpProto recoveryOf(Inode file) {
    CompleteOp.Builder op = CompleteOp.newBuilder().setInodeId(file.id()).setRecovered(true);
    InodeState state = file.latest();
    if (state.blockCount() > 0) {
      int last = state.blockCount() - 1;
      long reported = datanodes.reportedLength(state.blockId(last));
      long length = Math.min(state.blockSize(), Math.max(state.blockLength(last), reported));
      op.setLastBlockId(state.blockId(last)).setLastBlockLength(length);
      // With every holder live (each reports its writes before it confirms the fence), the newest last entry
      // reported is the block's last: recorded as a closing writer's is.
      long lastEntry = datanodes.recoveredLastEntry(state.blockId(last));
      if (lastEntry != 0) {
        op.addLastEntries(BlockLastEntryProto.newBuilder().setBlockId(state.blockId(last)).setLastEntryHlc(lastEntry));
      }
    }
    return EditOpProto.newBuilder().setComplete(op).build();
  }

  /**
   * Closes file {@code inodeId} if its writer's lease has passed the hard limit (lease recovery by the NameNode
   * itself); does nothing if the writer renewed since, or another client took the file over.
   */
  public Logged<Void> recoverHardExpiredLease(long inodeId) throws IOException {
    if (fencing.enabled()) {
      spread(changes.mutate("fence the writer of file " + inodeId, () -> {
        Inode inode = namespace.inode(inodeId);
        return leases.hardExpired(inodeId) && inode != null && inode.latest().isUnderConstruction()
            ? fence(inode, namenodeRecovery(inodeId)) : null;
      }).await());
    }
    return changes.mutate("lease recovery", () -> {
      // Checked again under the write lock: since the expired leases were listed, the writer may have renewed,
      // or another client may have taken the file over (a fresh lease this must not close).
      if (fencing.enabled() ? !namenodeRecovery(inodeId).equals(leases.holder(inodeId))
          : !leases.hardExpired(inodeId)) {
        return null;
      }
      Inode inode = namespace.inode(inodeId);
      if (inode != null && inode.latest().isUnderConstruction()) {
        changes.log(recoveryOf(inode));
        LOG.info("Closed file {} after its writer's lease ran out", inodeId);
      }
      leases.remove(inodeId);
      recoveryFences.remove(inodeId);
      return null;
    });
  }

  /**
   * Closes file {@code path} now if it is open, whoever writes it (Hadoop's {@code LeaseRecoverable}, which HBase
   * and others call to take over the file of a writer they hold dead): its writer is fenced on the DataNodes first,
   * then the file is closed as lease recovery closes it ({@link #recoveryOf}: what the writer hflushed is kept).
   * Answers whether the file is closed: true for one that already was; false, leaving it open under a recovery
   * lease of its own, when a live DataNode did not confirm the fence in time (its reports of the writer's last
   * packets may not be in yet), when no wait was free ({@link #spreadForRecovery}) or when another client took the
   * file over meanwhile. Asked again, it closes the file at once if every live DataNode confirmed the fence it
   * published by then, else fences again.
   */
  public Logged<Boolean> recoverLease(Caller caller, String path) throws IOException {
    long inodeId;
    if (fencing.enabled()) {
      long[] fenced = {-1L};
      Fence fence = changes.mutate("fence the writer of " + path, () -> {
        Inode file = leaseTarget(caller, path);
        if (!file.latest().isUnderConstruction()) {
          return null;
        }
        fenced[0] = file.id();
        String holder = namenodeRecovery(file.id());
        Long published = recoveryFences.get(file.id());
        if (holder.equals(leases.holder(file.id())) && published != null
            && fencing.unconfirmed(published, liveDatanodes()).isEmpty()) {
          return CONFIRMED;  // fenced by an earlier call that could not wait for it
        }
        return fence(file, holder);
      }).await();
      if (fence == null || (fence != CONFIRMED && !spreadForRecovery(fence, fenced[0]))) {
        boolean closed = fence == null;  // closed when looked at: a writer that opened it since is not fenced
        return changes.mutate("recover the lease of " + path, () -> closed);
      }
      inodeId = fenced[0];
    } else {
      inodeId = -1L;
    }
    return changes.mutate("recover the lease of " + path, () -> {
      // The fenced inode itself: the path may name another file by now.
      Inode file = inodeId >= 0 ? namespace.inode(inodeId) : leaseTarget(caller, path);
      if (inodeId >= 0) {
        recoveryFences.remove(inodeId);
      }
      if (file == null || !file.latest().isUnderConstruction()) {
        return true;
      }
      if (inodeId >= 0 && !namenodeRecovery(inodeId).equals(leases.holder(file.id()))) {
        return false;  // taken over since the fence (by an append, or a recovery of its own)
      }
      changes.log(recoveryOf(file));
      leases.remove(file.id());
      LOG.info("Closed {} (file {}) by lease recovery for {}", path, file.id(), caller.user());
      return true;
    });
  }

  /**
   * Publishes a {@link #recoverLease} fence and waits until every live DataNode confirmed it; whether they did.
   * Without a free wait (as many recoveries wait already as may), false at once: the fence stays published, and
   * the caller asks again, as HDFS's callers of {@code recoverLease} do while it answers false.
   */
  private boolean spreadForRecovery(Fence fence, long inodeId) throws IOException {
    long seq = fencing.publish(fence.epoch(), fence.blockIds());
    recoveryFences.put(inodeId, seq);
    if (!recoveryFenceWaits.tryAcquire()) {
      return false;
    }
    try {
      return awaitFence(seq).isEmpty();
    } finally {
      recoveryFenceWaits.release();
    }
  }

  /** The lease holder of file {@code inodeId} while the NameNode recovers it: one per file, renewed by nothing else. */
  private static String namenodeRecovery(long inodeId) {
    return RECOVERY_HOLDER_PREFIX + "namenode/" + inodeId;
  }

  /** The file at {@code path} whose lease {@code caller} may recover; HDFS's words for a missing one or a directory. */
  private Inode leaseTarget(Caller caller, String path) throws FffsException {
    ResolvedPath target = resolve(path, Namespace.LATEST, caller).requireNoFileInTheMiddle();
    if (!target.exists()) {
      throw new FffsException(ErrorCode.NOT_FOUND, "File does not exist: " + path);
    }
    if (target.lastState().isDirectory()) {
      throw new FffsException(ErrorCode.IS_A_DIRECTORY, "Path is not a file: " + path + " is a directory; only a"
          + " file has a lease to recover");
    }
    permissions.check(caller, target.lastState(), path, Access.WRITE);
    return target.last();
  }

  /** Renews every lease of {@code clientName}. */
  public void renewLease(String clientName) {
    leases.renew(clientName);
  }

  private ResolvedPath resolve(String path, long limit, Caller caller) throws FffsException {
    return ResolvedPath.resolve(namespace, path, limit, caller, permissions);
  }

  private void checkNotBeingWritten(Inode file, String path, String clientName) throws FffsException {
    String holder = leases.holder(file.id());
    if (holder != null && !holder.equals(clientName) && !holder.equals(RECOVERY_HOLDER_PREFIX + clientName)
        && !leases.softExpired(file.id())) {
      throw new FffsException(ErrorCode.LEASE_CONFLICT, path + (holder.startsWith(RECOVERY_HOLDER_PREFIX)
          ? " is being taken over from its previous writer (lease recovery); try again in a moment"
          : " is being written by client " + holder + "; wait until it closes the file or its lease expires"));
    }
  }

  private Inode checkLease(long fileId, String path, String clientName) throws FffsException {
    Inode file = namespace.requireInode(fileId);
    String holder = leases.holder(fileId);
    if (!file.latest().isUnderConstruction() || !clientName.equals(holder)) {
      throw new FffsException(ErrorCode.LEASE_CONFLICT, path + " is not open for writing by client " + clientName
          + (holder == null ? " (it is closed)" : " (client " + holder + " holds its lease)"));
    }
    return file;
  }

  private static int blockIndex(InodeState state, long blockId, String path) throws FffsException {
    for (int i = 0; i < state.blockCount(); i++) {
      if (state.blockId(i) == blockId) {
        return i;
      }
    }
    throw new FffsException(ErrorCode.INVALID_ARGUMENT, "block " + blockId + " is not part of " + path);
  }

  private static void checkBlockLength(InodeState state, long length, String path) throws FffsException {
    if (length < 0 || length > state.blockSize()) {
      throw new FffsException(ErrorCode.BLOCK_SIZE_EXCEEDED, "a block of " + path + " cannot hold " + length
          + " bytes: the block size is " + state.blockSize());
    }
  }

  private static FileStatusProto latestStatus(String path, Inode inode) {
    return Statuses.fileStatus(path, inode, inode.latest(), inode.states().latestHlc());
  }
}
