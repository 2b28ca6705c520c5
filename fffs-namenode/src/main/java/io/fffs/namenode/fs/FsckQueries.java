package io.fffs.namenode.fs;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckFileProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.blocks.DatanodeManager;
import io.fffs.namenode.namespace.ChildHistory;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.InodeState;
import io.fffs.namenode.namespace.NamePaths;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.permission.Caller;
import io.fffs.namenode.permission.PermissionChecker;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * fsck: every file under a path as of a time, each block with its length then and each replica's state now
 * (current, stale, damaged, dead) with its last entry and length. The verdict is the caller's: a block with no
 * current replica (and no stale one holding its history up to the time asked) is lost.
 */
public final class FsckQueries {
  private final QueryPath reads;
  private final Namespace namespace;
  private final PermissionChecker permissions;
  private final DatanodeManager datanodes;
  private final Horizon horizon;

  FsckQueries(QueryPath reads, Namespace namespace, PermissionChecker permissions, DatanodeManager datanodes,
      Horizon horizon) {
    this.reads = reads;
    this.namespace = namespace;
    this.permissions = permissions;
    this.datanodes = datanodes;
    this.horizon = horizon;
  }

  /** The files under {@code path} as of {@code time}, in name order. */
  public List<FsckFileProto> check(Caller caller, String path, TimeSpec time) throws IOException {
    long limit = reads.limitFor(time, path);
    return reads.query(() -> {
      ResolvedPath resolved = ResolvedPath.resolve(namespace, path, limit, caller, permissions);
      horizon.check(resolved, time);
      ResolvedPath target = resolved.requireExists();
      List<FsckFileProto> files = new ArrayList<>();
      walk(target.last(), NamePaths.join(target.components), target.lastState(), limit, files);
      return files;
    });
  }

  private void walk(Inode inode, String path, InodeState state, long limit, List<FsckFileProto> files) {
    if (!state.isDirectory()) {
      FsckFileProto.Builder file = FsckFileProto.newBuilder().setPath(path).setLength(state.length())
          .setReplication(state.replication());
      if (state.isUnderConstruction() && state.leaseHolder() != null) {
        file.setOpenBy(state.leaseHolder());
      }
      for (int i = 0; i < state.blockCount(); i++) {
        file.addBlocks(FsckBlockProto.newBuilder().setBlockId(state.blockId(i)).setNumBytes(state.blockLength(i))
            .addAllReplicas(datanodes.fsckReplicas(state.blockId(i)))
            .setMisReplicated(datanodes.misReplicated(state.blockId(i))));
      }
      files.add(file.build());
      return;
    }
    for (Map.Entry<String, ChildHistory> entry : inode.children().entrySet()) {
      long id = entry.getValue().at(limit);
      if (id != Namespace.TOMBSTONE) {
        Inode child = namespace.inode(id);
        InodeState childState = child.stateAt(limit);
        if (childState != null) {
          walk(child, NamePaths.child(path, entry.getKey()), childState, limit, files);
        }
      }
    }
  }
}
