package io.fffs.namenode.permission;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.namenode.namespace.InodeState;

/**
 * POSIX-style checks as HDFS does them: owner bits, then group bits, then other bits; the superuser (the user that
 * started the NameNode, or a member of the superuser group) passes every check. A refusal is {@code ACCESS_DENIED}
 * naming the path, the user and the missing permission.
 */
public final class PermissionChecker {
  /** The permission bits of an access: read 4, write 2, execute 1. */
  public enum Access {
    READ(4, "read"),
    WRITE(2, "write"),
    EXECUTE(1, "execute (traverse)"),
    READ_EXECUTE(5, "read and execute"),
    ALL(7, "read, write and execute");

    final int bits;
    final String words;

    Access(int bits, String words) {
      this.bits = bits;
      this.words = words;
    }
  }

  private final boolean enabled;
  private final String superUser;
  private final String superGroup;

  public PermissionChecker(boolean enabled, String superUser, String superGroup) {
    this.enabled = enabled;
    this.superUser = superUser;
    this.superGroup = superGroup;
  }

  public boolean isSuperUser(Caller caller) {
    return !enabled || caller.user().equals(superUser) || caller.groups().contains(superGroup);
  }

  public String superUser() {
    return superUser;
  }

  public String superGroup() {
    return superGroup;
  }

  /** Refuses unless {@code caller} has {@code access} on {@code state} (the inode at {@code path}). */
  public void check(Caller caller, InodeState state, String path, Access access) throws FffsException {
    if (isSuperUser(caller)) {
      return;
    }
    int mode = state.permission();
    int granted;
    if (caller.user().equals(state.owner())) {
      granted = (mode >> 6) & 7;
    } else if (caller.groups().contains(state.group())) {
      granted = (mode >> 3) & 7;
    } else {
      granted = mode & 7;
    }
    if ((granted & access.bits) != access.bits) {
      throw new FffsException(ErrorCode.ACCESS_DENIED, "user " + caller.user() + " lacks " + access.words
          + " permission on " + path + " (" + state.owner() + ":" + state.group() + " "
          + String.format("%03o", mode & 0777) + ")");
    }
  }

  /** Refuses unless {@code caller} owns {@code state} or is the superuser. */
  public void checkOwner(Caller caller, InodeState state, String path) throws FffsException {
    if (!isSuperUser(caller) && !caller.user().equals(state.owner())) {
      throw new FffsException(ErrorCode.ACCESS_DENIED, "user " + caller.user() + " is not the owner of " + path
          + " (owned by " + state.owner() + ")");
    }
  }

  /** Refuses unless {@code caller} is the superuser. */
  public void checkSuperUser(Caller caller, String what) throws FffsException {
    if (!isSuperUser(caller)) {
      throw new FffsException(ErrorCode.ACCESS_DENIED, "user " + caller.user() + " may not " + what
          + ": only the superuser (" + superUser + " or group " + superGroup + ") may");
    }
  }
}
