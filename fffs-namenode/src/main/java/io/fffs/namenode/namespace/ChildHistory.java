package io.fffs.namenode.namespace;

import io.fffs.common.history.MomentSet;
import io.fffs.common.time.HlcTimestamp;
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

  /** Index of the first entry with HLC at least {@code hlc} ({@link #size()} if none). */
  public int firstAtOrAfter(long hlc) {
    return VersionChain.lastAtOrBefore(hlcs, size, hlc - 1) + 1;
  }

  /**
   * Drops every entry no moment of {@code kept} sees (as {@link VersionChain#retainVisible}), and then the
   * tombstones at its start, which say no more than an empty history does; returns how many went.
   */
  int retainVisible(MomentSet kept) {
    return retainVisible(kept, 0, Long.MAX_VALUE);
  }

  /**
   * {@link #retainVisible(MomentSet)} deciding only the entries with an HLC in [{@code fromHlc}, {@code toHlc})
   * ({@code Long.MAX_VALUE}: no end); consecutive ranges in ascending order drop what one call over all drops (as
   * {@link VersionChain#retainVisible(MomentSet, long, long)}; a tombstone at the start goes whenever it is reached,
   * as it would at the end).
   */
  int retainVisible(MomentSet kept, long fromHlc, long toHlc) {
    int before = size;
    if (!kept.isAll()) {
      int start = firstAtOrAfter(fromHlc);
      int end = toHlc == Long.MAX_VALUE ? size : firstAtOrAfter(toHlc);
      int out = start;
      for (int i = start; i < end; i++) {
        long from = HlcTimestamp.valueOf(hlcs[i]).physicalMicros();
        long to = i + 1 < size ? HlcTimestamp.valueOf(hlcs[i + 1]).physicalMicros() : MomentSet.END;
        if (kept.intersects(from, to)) {
          hlcs[out] = hlcs[i];
          inodeIds[out] = inodeIds[i];
          out++;
        }
      }
      System.arraycopy(hlcs, end, hlcs, out, size - end);
      System.arraycopy(inodeIds, end, inodeIds, out, size - end);
      size -= end - out;
    }
    int lead = 0;
    while (lead < size && inodeIds[lead] == Namespace.TOMBSTONE) {
      lead++;
    }
    if (lead > 0) {
      System.arraycopy(hlcs, lead, hlcs, 0, size - lead);
      System.arraycopy(inodeIds, lead, inodeIds, 0, size - lead);
      size -= lead;
    }
    return before - size;
  }
}
