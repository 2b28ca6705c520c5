package io.fffs.namenode.namespace;

import io.fffs.common.history.RetentionRule;
import java.util.Arrays;

/**
 * One immutable state of an inode: what {@code getFileInfo} shows for it as of some time. Every change makes a new
 * state ({@code with…} methods); a state once in a {@link VersionChain} never changes, so readers of the past need
 * no lock on it. The block list is a pair of arrays shared by reference until a change copies them.
 */
public final class InodeState {
  private static final long[] NO_BLOCKS = new long[0];

  final boolean directory;
  final short permission;
  final String owner;
  final String group;
  final long mtime;
  final long atime;
  final short replication;
  final long blockSize;
  final String userTimePlugin;
  final long[] blockIds;
  final long[] blockLengths;
  final String leaseHolder;
  final String change;
  /** A directory's own retention rule, or null when it follows its parent's. */
  final RetentionRule retention;

  InodeState(boolean directory, short permission, String owner, String group, long mtime, long atime,
      short replication, long blockSize, String userTimePlugin, long[] blockIds, long[] blockLengths,
      String leaseHolder, String change) {
    this(directory, permission, owner, group, mtime, atime, replication, blockSize, userTimePlugin, blockIds,
        blockLengths, leaseHolder, change, null);
  }

  InodeState(boolean directory, short permission, String owner, String group, long mtime, long atime,
      short replication, long blockSize, String userTimePlugin, long[] blockIds, long[] blockLengths,
      String leaseHolder, String change, RetentionRule retention) {
    this.directory = directory;
    this.permission = permission;
    this.owner = owner;
    this.group = group;
    this.mtime = mtime;
    this.atime = atime;
    this.replication = replication;
    this.blockSize = blockSize;
    this.userTimePlugin = userTimePlugin;
    this.blockIds = blockIds;
    this.blockLengths = blockLengths;
    this.leaseHolder = leaseHolder;
    this.change = change;
    this.retention = retention;
  }

  static InodeState newDirectory(short permission, String owner, String group, long mtime) {
    return new InodeState(true, permission, owner, group, mtime, mtime, (short) 0, 0, null, NO_BLOCKS, NO_BLOCKS,
        null, "mkdir");
  }

  static InodeState newFile(short permission, String owner, String group, long mtime, short replication,
      long blockSize, String userTimePlugin, String leaseHolder) {
    return new InodeState(false, permission, owner, group, mtime, mtime, replication, blockSize, userTimePlugin,
        NO_BLOCKS, NO_BLOCKS, leaseHolder, "create");
  }

  public boolean isDirectory() {
    return directory;
  }

  public short permission() {
    return permission;
  }

  public String owner() {
    return owner;
  }

  public String group() {
    return group;
  }

  /** Modification time, ms since the epoch. */
  public long mtime() {
    return mtime;
  }

  /** Access time, ms since the epoch. */
  public long atime() {
    return atime;
  }

  public short replication() {
    return replication;
  }

  public long blockSize() {
    return blockSize;
  }

  /** The user-time extractor chosen at create time, or null. */
  public String userTimePlugin() {
    return userTimePlugin;
  }

  public int blockCount() {
    return blockIds.length;
  }

  public long blockId(int index) {
    return blockIds[index];
  }

  public long blockLength(int index) {
    return blockLengths[index];
  }

  /** Sum of the block lengths. */
  public long length() {
    long length = 0;
    for (long blockLength : blockLengths) {
      length += blockLength;
    }
    return length;
  }

  /** The client writing the file, or null when it is closed. */
  public String leaseHolder() {
    return leaseHolder;
  }

  public boolean isUnderConstruction() {
    return leaseHolder != null;
  }

  /** The kind of change that made this state ({@code create}, {@code addBlock}, {@code fsync}, ...). */
  public String change() {
    return change;
  }

  InodeState with(String newChange, long newMtime) {
    return new InodeState(directory, permission, owner, group, newMtime, atime, replication, blockSize,
        userTimePlugin, blockIds, blockLengths, leaseHolder, newChange, retention);
  }

  InodeState withPermission(short newPermission) {
    return new InodeState(directory, newPermission, owner, group, mtime, atime, replication, blockSize,
        userTimePlugin, blockIds, blockLengths, leaseHolder, "setPermission", retention);
  }

  InodeState withOwner(String newOwner, String newGroup) {
    return new InodeState(directory, permission, newOwner == null ? owner : newOwner,
        newGroup == null ? group : newGroup, mtime, atime, replication, blockSize, userTimePlugin, blockIds,
        blockLengths, leaseHolder, "setOwner", retention);
  }

  InodeState withTimes(long newMtime, long newAtime) {
    return new InodeState(directory, permission, owner, group, newMtime < 0 ? mtime : newMtime,
        newAtime < 0 ? atime : newAtime, replication, blockSize, userTimePlugin, blockIds, blockLengths,
        leaseHolder, "setTimes", retention);
  }

  InodeState withReplication(short newReplication) {
    return new InodeState(directory, permission, owner, group, mtime, atime, newReplication, blockSize,
        userTimePlugin, blockIds, blockLengths, leaseHolder, "setReplication", retention);
  }

  InodeState withLease(String holder, String newChange, long newMtime) {
    return new InodeState(directory, permission, owner, group, newMtime, atime, replication, blockSize,
        userTimePlugin, blockIds, blockLengths, holder, newChange, retention);
  }

  InodeState withBlocks(long[] newIds, long[] newLengths, String newChange, long newMtime) {
    return new InodeState(directory, permission, owner, group, newMtime, atime, replication, blockSize,
        userTimePlugin, newIds, newLengths, leaseHolder, newChange, retention);
  }

  InodeState withRetention(RetentionRule rule) {
    return new InodeState(directory, permission, owner, group, mtime, atime, replication, blockSize,
        userTimePlugin, blockIds, blockLengths, leaseHolder, "setRetention", rule);
  }

  /** A directory's own retention rule; null when it follows its parent's (and for files). */
  public RetentionRule retention() {
    return retention;
  }

  /** Block ids copied (callers may keep the array). */
  public long[] blockIds() {
    return blockIds.clone();
  }

  /** Block lengths copied (callers may keep the array). */
  public long[] blockLengths() {
    return blockLengths.clone();
  }

  /** Index of {@code blockId} in the block list, or -1. */
  int indexOfBlock(long blockId) {
    for (int i = blockIds.length - 1; i >= 0; i--) {
      if (blockIds[i] == blockId) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof InodeState)) {
      return false;
    }
    InodeState o = (InodeState) other;
    return directory == o.directory && permission == o.permission && owner.equals(o.owner)
        && group.equals(o.group) && mtime == o.mtime && atime == o.atime && replication == o.replication
        && blockSize == o.blockSize && java.util.Objects.equals(userTimePlugin, o.userTimePlugin)
        && Arrays.equals(blockIds, o.blockIds) && Arrays.equals(blockLengths, o.blockLengths)
        && java.util.Objects.equals(leaseHolder, o.leaseHolder) && change.equals(o.change)
        && java.util.Objects.equals(retention, o.retention);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(directory, permission, owner, group, mtime, Arrays.hashCode(blockIds));
  }

  @Override
  public String toString() {
    return (directory ? "dir " : "file ") + Integer.toOctalString(permission) + " " + owner + ":" + group
        + " mtime=" + mtime + (directory ? "" : " blocks=" + Arrays.toString(blockIds) + "/"
        + Arrays.toString(blockLengths)) + (leaseHolder == null ? "" : " writer=" + leaseHolder)
        + (retention == null ? "" : " retention=" + retention) + " (" + change + ")";
  }
}
