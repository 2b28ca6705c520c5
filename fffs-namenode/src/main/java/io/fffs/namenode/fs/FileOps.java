package io.fffs.namenode.fs;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.proto.NamenodeEditsProtos.AbandonBlockOp;
import io.fffs.common.proto.NamenodeEditsProtos.AddBlockOp;
import io.fffs.common.proto.NamenodeEditsProtos.CompleteOp;
import io.fffs.common.proto.NamenodeEditsProtos.CreateOp;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.FsyncOp;
import io.fffs.common.proto.NamenodeEditsProtos.OpenForWriteOp;
import io.fffs.common.proto.NamenodeEditsProtos.TruncateOp;
import io.fffs.namenode.blocks.DatanodeDescriptor;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.InodeState;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.permission.Caller;
import io.fffs.namenode.permission.PermissionChecker.Access;
import java.io.IOException;

/** Writing files: create, reopen, blocks, fsync, close, truncate. Each is one change of {@link Namesystem}. */
public final class FileOps {
  /** Blocks are checksummed in chunks of this many bytes; block sizes must be a multiple of it. */
  public static final int BYTES_PER_CHECKSUM = 512;

  private final Namesystem fs;

  FileOps(Namesystem fs) {
    this.fs = fs;
  }

  /** A file opened for writing: its status and its blocks. */
  public static final class OpenFile {
    public final FileStatusProto status;
    public final LocatedBlocksProto blocks;

    OpenFile(FileStatusProto status, LocatedBlocksProto blocks) {
      this.status = status;
      this.blocks = blocks;
    }
  }

  /** Creates a file and gives {@code clientName} its lease. */
  public FileStatusProto create(Caller caller, String path, int permission, String clientName, boolean overwrite,
      boolean createParent, int replication, long blockSize, String userTimePlugin) throws IOException {
    if (blockSize <= 0 || blockSize % BYTES_PER_CHECKSUM != 0) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "block size " + blockSize + " of " + path
          + " must be a positive multiple of " + BYTES_PER_CHECKSUM);
    }
    if (replication < 1 || replication > 512) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "replication " + replication + " of " + path
          + " must be between 1 and 512");
    }
    return fs.mutate("create " + path, () -> {
      ResolvedPath target = fs.resolve(path, Namespace.LATEST, caller).requireNoFileInTheMiddle();
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
        fs.permissions.check(caller, target.parentState(), target.parentPath(), Access.WRITE);
        checkNotBeingWritten(target.last(), path, clientName);
        fs.leases.remove(target.last().id());
      } else {
        missingParents = target.inodes.length - 1 - target.existing;
        if (missingParents > 0 && !createParent) {
          throw new FffsException(ErrorCode.NOT_FOUND, "parent directory " + target.parentPath() + " of " + path
              + " does not exist");
        }
        if (!target.deepestExistingState().isDirectory()) {
          throw new FffsException(ErrorCode.NOT_A_DIRECTORY, target.deepestExistingPath() + " is a file");
        }
        fs.permissions.check(caller, target.deepestExistingState(), target.deepestExistingPath(), Access.WRITE);
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
        op.addParentInodeIds(fs.namespace.allocateInodeId());
      }
      op.setInodeId(fs.namespace.allocateInodeId());
      if (userTimePlugin != null && !userTimePlugin.isEmpty()) {
        op.setUserTimePlugin(userTimePlugin);
      }
      fs.log(EditOpProto.newBuilder().setCreate(op).build());
      fs.leases.add(clientName, op.getInodeId());
      return latestStatus(path, fs.namespace.inode(op.getInodeId()));
    });
  }

  /** Reopens a closed file for writing (append or in-place writes); recovers an expired lease first. */
  public OpenFile openForWrite(Caller caller, String path, String clientName) throws IOException {
    return fs.mutate("write to " + path, () -> {
      ResolvedPath target = fs.resolve(path, Namespace.LATEST, caller).requireExists();
      Inode file = target.last();
      if (target.lastState().isDirectory()) {
        throw new FffsException(ErrorCode.IS_A_DIRECTORY, path + " is a directory; only files can be written");
      }
      fs.permissions.check(caller, target.lastState(), path, Access.WRITE);
      String holder = fs.leases.holder(file.id());
      if (!clientName.equals(holder)) {
        checkNotBeingWritten(file, path, clientName);
        if (file.latest().isUnderConstruction()) {
          fs.log(recoveryOf(file, fs));
        }
        fs.log(EditOpProto.newBuilder().setOpenForWrite(OpenForWriteOp.newBuilder().setInodeId(file.id())
            .setClientName(clientName)).build());
        fs.leases.add(clientName, file.id());
      }
      InodeState state = file.latest();
      return new OpenFile(latestStatus(path, file),
          Statuses.locatedBlocks(state, file.states().latestHlc(), 0, Long.MAX_VALUE, fs.datanodes));
    });
  }

  /** Allocates the next block of an open file on a live, healthy DataNode. */
  public LocatedBlockProto addBlock(Caller caller, String path, long fileId, String clientName,
      BlockProto previous) throws IOException {
    return fs.mutate("add a block to " + path, () -> {
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
      DatanodeDescriptor target = fs.datanodes.chooseTarget();
      long blockId = fs.namespace.allocateBlockId();
      fs.log(EditOpProto.newBuilder().setAddBlock(op.setBlockId(blockId).setDatanodeUuid(target.uuid())).build());
      fs.datanodes.placed(blockId, target.uuid());
      fs.leases.renew(clientName);
      return LocatedBlockProto.newBuilder()
          .setBlock(BlockProto.newBuilder().setBlockId(blockId).setNumBytes(0))
          .setOffset(offset)
          .addLocations(target.id())
          .build();
    });
  }

  /** Drops the last block of an open file (a writer that could not use it). */
  public void abandonBlock(Caller caller, String path, long fileId, String clientName, long blockId)
      throws IOException {
    fs.mutate("abandon a block of " + path, () -> {
      Inode file = checkLease(fileId, path, clientName);
      InodeState state = file.latest();
      if (state.blockCount() == 0 || state.blockId(state.blockCount() - 1) != blockId) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "block " + blockId + " is not the last block of "
            + path);
      }
      fs.log(EditOpProto.newBuilder().setAbandonBlock(AbandonBlockOp.newBuilder().setInodeId(fileId)
          .setBlockId(blockId)).build());
      return null;
    });
  }

  /** Records the length a writer reached in a block, so that new readers see it. */
  public void fsync(Caller caller, String path, long fileId, String clientName, BlockProto block)
      throws IOException {
    fs.mutate("fsync " + path, () -> {
      Inode file = checkLease(fileId, path, clientName);
      InodeState state = file.latest();
      int index = blockIndex(state, block.getBlockId(), path);
      checkBlockLength(state, block.getNumBytes(), path);
      if (state.blockLength(index) != block.getNumBytes()) {
        fs.log(EditOpProto.newBuilder().setFsync(FsyncOp.newBuilder().setInodeId(fileId)
            .setBlockId(block.getBlockId()).setLength(block.getNumBytes())).build());
      }
      fs.leases.renew(clientName);
      return null;
    });
  }

  /**
   * Closes a file: final length of its last block; the lease ends. A file already closed as this close would
   * leave it (same last block and length: a retried close) answers true; one closed otherwise (by lease recovery
   * or another writer, so this writer's later bytes were not kept) is {@code LEASE_CONFLICT}.
   */
  public boolean complete(Caller caller, String path, long fileId, String clientName, BlockProto last)
      throws IOException {
    return fs.mutate("close " + path, () -> {
      Inode file = fs.namespace.requireInode(fileId);
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
      fs.log(EditOpProto.newBuilder().setComplete(op).build());
      fs.leases.remove(fileId);
      return true;
    });
  }

  /**
   * Cuts a closed file to {@code newLength}; its past stays readable. Returns the block the client must cut on its
   * DataNode (the one holding the new last byte, or the first block for length 0), or -1 when none is cut.
   */
  public long truncate(Caller caller, String path, long newLength, String clientName) throws IOException {
    return fs.mutate("truncate " + path, () -> {
      ResolvedPath target = fs.resolve(path, Namespace.LATEST, caller).requireExists();
      InodeState state = target.lastState();
      if (state.isDirectory()) {
        throw new FffsException(ErrorCode.IS_A_DIRECTORY, path + " is a directory; only files can be truncated");
      }
      fs.permissions.check(caller, state, path, Access.WRITE);
      if (state.isUnderConstruction()) {
        throw new FffsException(ErrorCode.LEASE_CONFLICT, path + " is open for writing by "
            + state.leaseHolder() + "; close it before truncating");
      }
      if (newLength < 0 || newLength > state.length()) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "cannot truncate " + path + " of length "
            + state.length() + " to " + newLength + ": the new length must be between 0 and the current length");
      }
      if (newLength == state.length()) {
        return -1L;
      }
      long cut = blockHolding(state, Math.max(0, newLength - 1));
      fs.log(EditOpProto.newBuilder().setTruncate(TruncateOp.newBuilder().setInodeId(target.last().id())
          .setNewLength(newLength)).build());
      fs.datanodes.forgetReportedLength(cut);
      return cut;
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
  static EditOpProto recoveryOf(Inode file, Namesystem fs) {
    CompleteOp.Builder op = CompleteOp.newBuilder().setInodeId(file.id()).setRecovered(true);
    InodeState state = file.latest();
    if (state.blockCount() > 0) {
      int last = state.blockCount() - 1;
      long reported = fs.datanodes.reportedLength(state.blockId(last));
      long length = Math.min(state.blockSize(), Math.max(state.blockLength(last), reported));
      op.setLastBlockId(state.blockId(last)).setLastBlockLength(length);
    }
    return EditOpProto.newBuilder().setComplete(op).build();
  }

  /** Renews every lease of {@code clientName}. */
  public void renewLease(String clientName) {
    fs.leases.renew(clientName);
  }

  private void checkNotBeingWritten(Inode file, String path, String clientName) throws FffsException {
    String holder = fs.leases.holder(file.id());
    if (holder != null && !holder.equals(clientName) && !fs.leases.softExpired(file.id())) {
      throw new FffsException(ErrorCode.LEASE_CONFLICT, path + " is being written by client " + holder
          + "; wait until it closes the file or its lease expires");
    }
  }

  private Inode checkLease(long fileId, String path, String clientName) throws FffsException {
    Inode file = fs.namespace.requireInode(fileId);
    String holder = fs.leases.holder(fileId);
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
