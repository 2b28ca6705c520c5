package io.fffs.namenode.namespace;

import io.fffs.common.history.MomentSet;
import io.fffs.common.time.HlcTimestamp;
import java.util.Arrays;

/**
 * A history of values, each valid from the HLC (packed) it was recorded at until the next one: the inode state
 * chain and the child-name history ({@code docs/design.md}, NameNode). Appends only, in non-decreasing HLC order;
 * two values may share one HLC (a rename's tombstone and new entry), and the later one wins. Lookups "as of" a
 * limit are one binary search. Written under the namespace write lock; readers see a consistent prefix under the
 * read lock.
 *
 * @param <T> the value type (immutable)
 */
public final class VersionChain<T> {
  private long[] hlcs = new long[2];
  private Object[] values = new Object[2];
  private int size;

  /** Records {@code value} from {@code hlc} on. */
  public void add(long hlc, T value) {
    if (size > 0 && hlc < hlcs[size - 1]) {
      throw new IllegalStateException("HLC went backwards: " + hlc + " after " + hlcs[size - 1]);
    }
    if (size == hlcs.length) {
      hlcs = Arrays.copyOf(hlcs, size * 2);
      values = Arrays.copyOf(values, size * 2);
    }
    hlcs[size] = hlc;
    values[size] = value;
    size++;
  }

  /** Index of the last version with HLC at most {@code limit}, or -1 if none. */
  public int indexAt(long limit) {
    return lastAtOrBefore(hlcs, size, limit);
  }

  /** Index of the last of {@code hlcs[0..size)} (non-decreasing) that is at most {@code limit}, or -1. */
  static int lastAtOrBefore(long[] hlcs, int size, long limit) {
    if (size == 0 || hlcs[0] > limit) {
      return -1;
    }
    if (hlcs[size - 1] <= limit) {
      return size - 1;
    }
    int low = 0;
    int high = size - 1;  // invariant: hlcs[low] <= limit < hlcs[high]
    while (high - low > 1) {
      int mid = (low + high) >>> 1;
      if (hlcs[mid] <= limit) {
        low = mid;
      } else {
        high = mid;
      }
    }
    return low;
  }

  /** The value as of {@code limit}, or null if there was none yet. */
  public T at(long limit) {
    int index = indexAt(limit);
    return index < 0 ? null : value(index);
  }

  public T latest() {
    return size == 0 ? null : value(size - 1);
  }

  public long latestHlc() {
    return size == 0 ? -1 : hlcs[size - 1];
  }

  public int size() {
    return size;
  }

  public long hlc(int index) {
    return hlcs[index];
  }

  @SuppressWarnings("unchecked")
  public T value(int index) {
    return (T) values[index];
  }

  /** Index of the first version with HLC at least {@code hlc} ({@link #size()} if none). */
  public int firstAtOrAfter(long hlc) {
    return lastAtOrBefore(hlcs, size, hlc - 1) + 1;
  }

  /**
   * Drops every version no moment of {@code kept} sees, keeping the order of the rest; returns how many went. A
   * version is seen from its HLC's physical µs up to (not including) the next version's; a lookup "as of" a kept
   * moment then finds the same version as before.
   */
  public int retainVisible(MomentSet kept) {
    return retainVisible(kept, 0, Long.MAX_VALUE);
  }

  /**
   * {@link #retainVisible(MomentSet)} deciding only the versions with an HLC in [{@code fromHlc}, {@code toHlc})
   * ({@code Long.MAX_VALUE}: no end). Applied to consecutive ranges in ascending order it drops what one call over
   * all of them drops: whether a version is seen depends on its HLC and the next version's, which deciding the
   * versions before it does not change. Goes through the range's versions (and moves those after it down).
   */
  public int retainVisible(MomentSet kept, long fromHlc, long toHlc) {
    if (kept.isAll()) {
      return 0;
    }
    int start = firstAtOrAfter(fromHlc);
    int end = toHlc == Long.MAX_VALUE ? size : firstAtOrAfter(toHlc);
    int out = start;
    for (int i = start; i < end; i++) {
      long from = HlcTimestamp.valueOf(hlcs[i]).physicalMicros();
      long to = i + 1 < size ? HlcTimestamp.valueOf(hlcs[i + 1]).physicalMicros() : MomentSet.END;
      if (kept.intersects(from, to)) {
        hlcs[out] = hlcs[i];
        values[out] = values[i];
        out++;
      }
    }
    int dropped = end - out;
    System.arraycopy(hlcs, end, hlcs, out, size - end);
    System.arraycopy(values, end, values, out, size - end);
    Arrays.fill(values, size - dropped, size, null);
    size -= dropped;
    return dropped;
  }
}
