package io.fffs.namenode.fs;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockCopyProto;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.ReserveBlocksOp;
import io.fffs.common.proto.NamenodeEditsProtos.RestoreOp;
import io.fffs.common.proto.NamenodeEditsProtos.RestoredEntryProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.time.TimeText;
import io.fffs.namenode.blocks.DatanodeManager;
import io.fffs.namenode.lease.LeaseManager;
import io.fffs.namenode.namespace.ChildHistory;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.InodeState;
import io.fffs.namenode.namespace.NamePaths;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.permission.Caller;
import io.fffs.namenode.permission.PermissionChecker;
import io.fffs.namenode.permission.PermissionChecker.Access;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Restores a file or a tree as it was at a moment, as a new version (docs/history.md). No byte passes through the
 * client or the NameNode: the DataNodes copy each block's state at the moment into a new block of their own. In
 * three steps: plan (the tree as it was, new block ids reserved in the edit log, the copies queued for the DataNodes
 * holding the sources), wait until every copy is reported written, then one logged {@code RestoreOp} binds the
 * destination to new inodes listing the copies — readers see the old destination or the whole restored tree, and the
 * old one stays in history.
 */
public final class RestoreOps {
  private final MutationPath changes;
  private final QueryPath reads;
  private final Namespace namespace;
  private final PermissionChecker permissions;
  private final Horizon horizon;
  private final DatanodeManager datanodes;
  private final LeaseManager leases;
  private final BlockCopies copies;
  private final long timeoutNanos;
  private final LongSupplier nanoTime;

  RestoreOps(MutationPath changes, QueryPath reads, Namespace namespace, PermissionChecker permissions,
      Horizon horizon, DatanodeManager datanodes, LeaseManager leases, BlockCopies copies, long timeoutNanos,
      LongSupplier nanoTime) {
    this.changes = changes;
    this.reads = reads;
    this.namespace = namespace;
    this.permissions = permissions;
    this.horizon = horizon;
    this.datanodes = datanodes;
    this.leases = leases;
    this.copies = copies;
    this.timeoutNanos = timeoutNanos;
    this.nanoTime = nanoTime;
  }

  /** What a restore made. */
  public record Result(long files, long directories, long bytes) {}

  /** An entry of the tree as it was; a file's copies made in the order of its blocks. */
  private record Entry(String relative, InodeState state, List<BlockCopyProto> copies) {}

  /** A restore planned: the entries, the copies the DataNodes make. */
  private record Plan(String src, long micros, String dst, List<Entry> entries, List<Long> newBlocks) {}

  /**
   * Restores {@code src} as it was at {@code time} (a system time) to {@code dst} (null: to {@code src} itself).
   * The caller needs read access to the tree then and write access to the destination's directory now.
   *
   * @throws FffsException {@code HISTORY_EXPIRED} for a moment retention no longer keeps; {@code NOT_FOUND} when
   *     nothing was at {@code src} then; {@code NO_DATANODE} when a block has no live DataNode; {@code IO_ERROR}
   *     when the copies do not finish within {@code fffs.history.restore.timeout}
   */
  public Result restore(Caller caller, String src, TimeSpec time, String dst) throws IOException {
    if (time.kind() != TimeSpec.Kind.SYSTEM) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "restore names a moment of system time; " + src
          + time.toMarker() + " is " + (time.isLatest() ? "the present" : "a user time"));
    }
    long limit = reads.limitFor(time, src);
    Plan plan = changes.mutate("restore " + src, () -> plan(caller, src, time.micros(), limit,
        dst == null ? src : dst)).await();
    try {
      awaitCopies(plan);
      return changes.mutate("restore " + plan.dst, () -> commit(caller, plan)).await();
    } finally {
      copies.forget(plan.newBlocks);
    }
  }

  private Plan plan(Caller caller, String src, long micros, long limit, String dst) throws IOException {
    ResolvedPath from = ResolvedPath.resolve(namespace, src, limit, caller, permissions);
    horizon.check(from, micros);
    if (!from.exists()) {
      throw new FffsException(ErrorCode.NOT_FOUND, "nothing was at " + src + " at " + TimeText.isoMicros(micros)
          + "; nothing to restore");
    }
    checkDestination(caller, dst);
    List<Entry> entries = new ArrayList<>();
    walk(caller, from.last(), NamePaths.join(from.components), "", from.lastState(), limit, micros, entries);
    List<Long> newBlocks = new ArrayList<>();
    List<String> holders = new ArrayList<>();
    for (Entry entry : entries) {
      InodeState state = entry.state;
      for (int b = 0; b < state.blockCount(); b++) {
        List<DatanodeIdProto> locations = datanodes.locations(state.blockId(b));
        if (locations.isEmpty()) {
          throw new FffsException(ErrorCode.NO_DATANODE, "block " + state.blockId(b) + " of " + src + "/"
              + entry.relative + " has no live DataNode to copy it from; restore once it is back");
        }
        long copy = namespace.allocateBlockId();
        BlockCopyProto.Builder task = BlockCopyProto.newBuilder().setSrcBlockId(state.blockId(b)).setMicros(micros)
            .setDstBlockId(copy).setBlockSize(state.blockSize());
        if (state.userTimePlugin() != null) {
          task.setUserTimePlugin(state.userTimePlugin());
        }
        entry.copies.add(task.build());
        newBlocks.add(copy);
        holders.add(locations.get(0).getDatanodeUuid());
      }
    }
    if (!newBlocks.isEmpty()) {
      changes.log(EditOpProto.newBuilder().setReserveBlocks(ReserveBlocksOp.newBuilder()
          .setLastBlockId(newBlocks.get(newBlocks.size() - 1))).build());
    }
    int next = 0;
    for (Entry entry : entries) {
      for (BlockCopyProto copy : entry.copies) {
        copies.add(holders.get(next++), copy);
      }
    }
    return new Plan(NamePaths.join(from.components), micros, NamePaths.join(NamePaths.components(dst)), entries,
        newBlocks);
  }

  /** Collects the tree at {@code path} as of {@code limit}, a directory before what is in it. */
  private void walk(Caller caller, Inode inode, String path, String relative, InodeState state, long limit,
      long micros, List<Entry> entries) throws FffsException {
    entries.add(new Entry(relative, state, new ArrayList<>()));
    if (!state.isDirectory()) {
      permissions.check(caller, state, path, Access.READ);
      return;
    }
    permissions.check(caller, state, path, Access.READ_EXECUTE);
    horizon.checkNames(inode, path, micros);
    for (Map.Entry<String, ChildHistory> child : inode.children().entrySet()) {
      long id = child.getValue().at(limit);
      if (id == Namespace.TOMBSTONE) {
        continue;
      }
      Inode next = namespace.inode(id);
      String childPath = NamePaths.child(path, child.getKey());
      horizon.checkListed(next, childPath, micros);
      InodeState nextState = next.stateAt(limit);
      if (nextState != null) {
        walk(caller, next, childPath, relative.isEmpty() ? child.getKey() : relative + "/" + child.getKey(),
            nextState, limit, micros, entries);
      }
    }
  }

  /** The destination's directory exists now and may be written; an open file there is not replaced. */
  private ResolvedPath checkDestination(Caller caller, String dst) throws FffsException {
    ResolvedPath target = ResolvedPath.resolve(namespace, dst, Namespace.LATEST, caller, permissions)
        .requireNoFileInTheMiddle();
    if (target.isRoot()) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "the root cannot be restored over; restore to a path"
          + " below it");
    }
    if (target.parent() == null || !target.parentState().isDirectory()) {
      throw new FffsException(ErrorCode.NOT_FOUND, "the directory of " + dst + " does not exist; create it first");
    }
    permissions.check(caller, target.parentState(), target.parentPath(), Access.WRITE);
    if (target.exists() && !target.lastState().isDirectory() && target.lastState().isUnderConstruction()) {
      throw new FffsException(ErrorCode.LEASE_CONFLICT, dst + " is being written by "
          + target.lastState().leaseHolder() + "; restore over it once it is closed");
    }
    return target;
  }

  private void awaitCopies(Plan plan) throws IOException {
    long deadline = nanoTime.getAsLong() + timeoutNanos;
    for (long block : plan.newBlocks) {
      while (datanodes.reportedLength(block) < 0) {
        String failure = copies.failure(block);
        if (failure != null) {
          FffsException cause = new FffsException(failure);
          throw new FffsException(cause.code(), "restoring " + plan.src + " failed: a DataNode could not copy"
              + " block " + block + ": " + cause.detail());
        }
        if (nanoTime.getAsLong() - deadline > 0) {
          throw new FffsException(ErrorCode.IO_ERROR, "restoring " + plan.src + " timed out waiting for the"
              + " DataNodes to copy block " + block + " (fffs.history.restore.timeout); nothing was changed");
        }
        try {
          TimeUnit.MILLISECONDS.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted waiting for the copies of a restore");
        }
      }
    }
  }

  private Result commit(Caller caller, Plan plan) throws IOException {
    ResolvedPath target = checkDestination(caller, plan.dst);
    if (target.exists()) {
      namespace.forEachLatestFile(target.last(), file -> leases.remove(file.id()));
    }
    RestoreOp.Builder op = RestoreOp.newBuilder().setDst(plan.dst).setSrc(plan.src).setMicros(plan.micros);
    long files = 0;
    long directories = 0;
    long bytes = 0;
    for (Entry entry : plan.entries) {
      InodeState state = entry.state;
      RestoredEntryProto.Builder restored = RestoredEntryProto.newBuilder().setPath(entry.relative)
          .setInodeId(namespace.allocateInodeId()).setDirectory(state.isDirectory())
          .setPermission(state.permission()).setOwner(state.owner()).setGroup(state.group());
      if (state.isDirectory()) {
        directories++;
      } else {
        files++;
        restored.setReplication(state.replication()).setBlockSize(state.blockSize());
        if (state.userTimePlugin() != null) {
          restored.setUserTimePlugin(state.userTimePlugin());
        }
        for (BlockCopyProto copy : entry.copies) {
          long length = datanodes.reportedLength(copy.getDstBlockId());
          restored.addBlockIds(copy.getDstBlockId()).addBlockLengths(length);
          bytes += length;
        }
      }
      op.addEntries(restored);
    }
    changes.log(EditOpProto.newBuilder().setRestore(op).build());
    return new Result(files, directories, bytes);
  }
}
