package io.fffs.namenode.fs;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.NamenodeEditsProtos.DeleteOp;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.MkdirsOp;
import io.fffs.common.proto.NamenodeEditsProtos.RenameOp;
import io.fffs.common.proto.NamenodeEditsProtos.SetOwnerOp;
import io.fffs.common.proto.NamenodeEditsProtos.SetPermissionOp;
import io.fffs.common.proto.NamenodeEditsProtos.SetReplicationOp;
import io.fffs.common.proto.NamenodeEditsProtos.SetTimesOp;
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
import java.util.Map;

/**
 * Changing the tree and attributes: mkdirs, rename, delete, set*. Each is one change on the {@link MutationPath};
 * its answer is given once durable ({@link Logged}).
 */
public final class DirectoryOps {
  private final MutationPath changes;
  private final Namespace namespace;
  private final PermissionChecker permissions;
  private final LeaseManager leases;

  DirectoryOps(MutationPath changes, Namespace namespace, PermissionChecker permissions, LeaseManager leases) {
    this.changes = changes;
    this.namespace = namespace;
    this.permissions = permissions;
    this.leases = leases;
  }

  /** Creates a directory (and, with {@code createParent}, its missing parents). True if it exists afterwards. */
  public Logged<Boolean> mkdirs(Caller caller, String path, int permission, boolean createParent) throws IOException {
    return changes.mutate("mkdirs " + path, () -> {
      ResolvedPath target = resolve(path, Namespace.LATEST, caller).requireNoFileInTheMiddle();
      if (target.exists()) {
        if (target.lastState().isDirectory()) {
          return true;
        }
        throw new FffsException(ErrorCode.ALREADY_EXISTS, path + " already exists as a file");
      }
      int missing = target.inodes.length - target.existing;
      if (missing > 1 && !createParent) {
        throw new FffsException(ErrorCode.NOT_FOUND, "parent directory " + target.parentPath() + " of " + path
            + " does not exist");
      }
      if (!target.deepestExistingState().isDirectory()) {
        throw new FffsException(ErrorCode.NOT_A_DIRECTORY, target.deepestExistingPath() + " is a file");
      }
      permissions.check(caller, target.deepestExistingState(), target.deepestExistingPath(), Access.WRITE);
      MkdirsOp.Builder op = MkdirsOp.newBuilder().setPath(path).setPermission(permission)
          .setOwner(caller.user()).setGroup(target.deepestExistingState().group());
      for (int i = 0; i < missing; i++) {
        op.addInodeIds(namespace.allocateInodeId());
      }
      changes.log(EditOpProto.newBuilder().setMkdirs(op).build());
      return true;
    });
  }

  /**
   * Moves {@code src} to {@code dst} with Hadoop {@code FileSystem#rename} semantics: into {@code dst} when it is
   * an existing directory; false when the source is missing, the destination's parent is missing, or the
   * destination exists, or the destination is inside the source's own subtree (as HDFS does).
   */
  public Logged<Boolean> rename(Caller caller, String src, String dst) throws IOException {
    return changes.mutate("rename " + src, () -> {
      ResolvedPath from = resolve(src, Namespace.LATEST, caller);
      if (!from.exists() || from.isRoot()) {
        return false;
      }
      ResolvedPath to = resolve(dst, Namespace.LATEST, caller);
      String finalDst = to.path;
      if (to.exists() && to.lastState().isDirectory()) {
        finalDst = NamePaths.child(NamePaths.join(to.components), from.name());
        to = resolve(finalDst, Namespace.LATEST, caller);
      }
      String normalizedSrc = NamePaths.join(from.components);
      finalDst = NamePaths.join(to.components);
      if (finalDst.equals(normalizedSrc)) {
        return true;
      }
      if (NamePaths.isSelfOrDescendant(finalDst, normalizedSrc)) {
        // HDFS's FileSystem#rename answers false here too; only rename2-style APIs throw.
        return false;
      }
      if (to.exists() || to.fileInTheMiddle >= 0 || to.parent() == null || !to.parentState().isDirectory()) {
        return false;
      }
      permissions.check(caller, from.parentState(), from.parentPath(), Access.WRITE);
      permissions.check(caller, to.parentState(), to.parentPath(), Access.WRITE);
      changes.log(EditOpProto.newBuilder().setRename(RenameOp.newBuilder().setSrc(normalizedSrc).setDst(finalDst))
          .build());
      return true;
    });
  }

  /**
   * Deletes {@code path}; its history stays readable at past times. False when it does not exist, and for the
   * root, which is never deleted. A non-empty directory needs {@code recursive}.
   */
  public Logged<Boolean> delete(Caller caller, String path, boolean recursive) throws IOException {
    return changes.mutate("delete " + path, () -> {
      ResolvedPath target = resolve(path, Namespace.LATEST, caller);
      if (!target.exists()) {
        return false;
      }
      Inode inode = target.last();
      // Checked before the root's answer: a non-recursive delete of a non-empty root fails loudly, as in HDFS.
      if (inode.isDirectory() && !recursive && hasLiveChildren(inode)) {
        throw new FffsException(ErrorCode.DIRECTORY_NOT_EMPTY, path + " is a non-empty directory; delete it"
            + " recursively to remove it and everything below it");
      }
      if (target.isRoot()) {
        return false;
      }
      permissions.check(caller, target.parentState(), target.parentPath(), Access.WRITE);
      if (!permissions.isSuperUser(caller)) {
        checkSubtree(caller, inode, NamePaths.join(target.components));
      }
      changes.log(EditOpProto.newBuilder().setDelete(DeleteOp.newBuilder().setPath(NamePaths.join(target.components)))
          .build());
      dropLeases(inode);
      return true;
    });
  }

  public Logged<Boolean> setPermission(Caller caller, String path, int permission) throws IOException {
    return changes.mutate("set permission of " + path, () -> {
      ResolvedPath target = existing(caller, path);
      permissions.checkOwner(caller, target.lastState(), path);
      changes.log(EditOpProto.newBuilder().setSetPermission(SetPermissionOp.newBuilder()
          .setPath(NamePaths.join(target.components)).setPermission(permission & 07777)).build());
      return true;
    });
  }

  /** Changes owner (superuser only) and/or group (superuser, or the owner to one of its own groups). */
  public Logged<Boolean> setOwner(Caller caller, String path, String owner, String group) throws IOException {
    return changes.mutate("set owner of " + path, () -> {
      ResolvedPath target = existing(caller, path);
      SetOwnerOp.Builder op = SetOwnerOp.newBuilder().setPath(NamePaths.join(target.components));
      if (owner != null) {
        permissions.checkSuperUser(caller, "change the owner of " + path);
        op.setOwner(owner);
      }
      if (group != null) {
        permissions.checkOwner(caller, target.lastState(), path);
        if (!permissions.isSuperUser(caller) && !caller.groups().contains(group)) {
          throw new FffsException(ErrorCode.ACCESS_DENIED, "user " + caller.user() + " is not in group " + group
              + " and so cannot give " + path + " to it");
        }
        op.setGroup(group);
      }
      if (owner != null || group != null) {
        changes.log(EditOpProto.newBuilder().setSetOwner(op).build());
      }
      return true;
    });
  }

  /** Sets modification and access time (ms; -1 keeps one). */
  public Logged<Boolean> setTimes(Caller caller, String path, long mtime, long atime) throws IOException {
    return changes.mutate("set times of " + path, () -> {
      ResolvedPath target = existing(caller, path);
      permissions.check(caller, target.lastState(), path, Access.WRITE);
      changes.log(EditOpProto.newBuilder().setSetTimes(SetTimesOp.newBuilder()
          .setPath(NamePaths.join(target.components)).setMtime(mtime).setAtime(atime)).build());
      return true;
    });
  }

  /** Sets a file's replication; false for a directory. */
  public Logged<Boolean> setReplication(Caller caller, String path, int replication) throws IOException {
    return changes.mutate("set replication of " + path, () -> {
      ResolvedPath target = existing(caller, path);
      if (target.lastState().isDirectory()) {
        return false;
      }
      if (replication < 1 || replication > 512) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "replication " + replication + " must be 1 to 512");
      }
      permissions.check(caller, target.lastState(), path, Access.WRITE);
      changes.log(EditOpProto.newBuilder().setSetReplication(SetReplicationOp.newBuilder()
          .setPath(NamePaths.join(target.components)).setReplication(replication)).build());
      return true;
    });
  }

  private ResolvedPath resolve(String path, long limit, Caller caller) throws FffsException {
    return ResolvedPath.resolve(namespace, path, limit, caller, permissions);
  }

  private ResolvedPath existing(Caller caller, String path) throws FffsException {
    return resolve(path, Namespace.LATEST, caller).requireExists();
  }

  static boolean hasLiveChildren(Inode directory) {
    for (ChildHistory history : directory.children().values()) {
      if (history.latest() != Namespace.TOMBSTONE) {
        return true;
      }
    }
    return false;
  }

  /** A recursive delete needs full access to every directory below (as HDFS checks it). */
  private void checkSubtree(Caller caller, Inode directory, String path) throws FffsException {
    if (!directory.isDirectory()) {
      return;
    }
    InodeState state = directory.latest();
    if (hasLiveChildren(directory)) {
      permissions.check(caller, state, path, Access.ALL);
    }
    for (Map.Entry<String, ChildHistory> child : directory.children().entrySet()) {
      long id = child.getValue().latest();
      if (id != Namespace.TOMBSTONE) {
        checkSubtree(caller, namespace.inode(id), NamePaths.child(path, child.getKey()));
      }
    }
  }

  private void dropLeases(Inode inode) {
    namespace.forEachLatestFile(inode, file -> leases.remove(file.id()));
  }
}
