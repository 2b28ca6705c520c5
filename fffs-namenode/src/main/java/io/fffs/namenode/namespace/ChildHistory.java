package io.fffs.namenode.namespace;

import java.util.Arrays;

/**
 * The history of one name in a directory: which inode it named from which HLC on, {@link Namespace#TOMBSTONE}
 * when it named nothing. Primitive arrays, no object per entry (a directory of a million files has a million of
 * these). Same append and lookup rules as {@link VersionChain}.
 */
public final class ChildHistory {
  private long[] hlcs = new long[1];
  private long[] inodeIds = new long[1];
  private int size;

  void add(long hlc, long inodeId) {
    if (size > 0 && hlc < hlcs[size - 1]) {
      throw new IllegalStateException("HLC went backwards: " + hlc + " after " + hlcs[size - 1]);
    }
    if (size == hlcs.length) {
      hlcs = Arrays.copyOf(hlcs, size * 2);
      inodeIds = Arrays.copyOf(inodeIds, size * 2);
    }
    hlcs[size] = hlc;
    inodeIds[size] = inodeId;
    size++;
  }

  /** The inode the name stood for as of {@code limit}, or {@link Namespace#TOMBSTONE}. */
  public long at(long limit) {
    int index = VersionChain.lastAtOrBefore(hlcs, size, limit);
    return index < 0 ? Namespace.TOMBSTONE : inodeIds[index];
  }

  public long latest() {
    return size == 0 ? Namespace.TOMBSTONE : inodeIds[size - 1];
  }

  public int size() {
    return size;
  }

  public long hlc(int index) {
    return hlcs[index];
  }

  public long inodeId(int index) {
    return inodeIds[index];
  }
}
