package io.fffs.datanode.store.log;

import java.util.Arrays;

/**
 * One block's append-only log, held column-wise in primitive arrays (no object per entry). Entry {@code i} is
 * {@code (op, userTime, hlc, offset, length, blockLengthAfter, firstSeq, diskLoc)}:
 * <ul>
 *   <li>{@code hlc}: the packed HLC the entry was stamped with; strictly increasing along the log.</li>
 *   <li>{@code userTime}: the user time of the last record the entry completed, else the previous entry's (0 before
 *       any); never decreasing. The column is allocated only once a non-zero user time appears, so blocks of files
 *       without user times do not pay for it.</li>
 *   <li>{@code offset, length}: the byte range a write covered; for a truncate the new length in {@code offset}.</li>
 *   <li>{@code firstSeq}: arena sequence number of the write's first page (its pages are consecutive), or
 *       {@link #NONE} once recovered from disk.</li>
 *   <li>{@code diskLoc}: where the entry record starts in the segment files once persisted, or {@link #NONE}.</li>
 * </ul>
 *
 * <p>The columns grow by a quarter at a time, so at most ~20% of them is slack (this bounds the memory overhead
 * per byte written). Not thread-safe by itself: {@link Block} guards it (one writer, many readers).
 */
public final class BlockLog {
  public static final long NONE = -1;
  private static final int INITIAL = 4;

  private byte[] op = new byte[INITIAL];
  private long[] hlc = new long[INITIAL];
  private long[] userTime;
  private long[] offset = new long[INITIAL];
  private int[] length = new int[INITIAL];
  private long[] lengthAfter = new long[INITIAL];
  private long[] firstSeq = new long[INITIAL];
  private long[] diskLoc = new long[INITIAL];
  private int count;

  /** Appends an entry and returns its log index. */
  public int append(BlockOp entryOp, long entryUserTime, long entryHlc, long entryOffset, int entryLength,
      long entryLengthAfter, long entryFirstSeq, long entryDiskLoc) {
    if (count > 0 && entryHlc <= hlc[count - 1]) {
      throw new IllegalStateException("HLC " + entryHlc + " not after the log's last " + hlc[count - 1]);
    }
    if (count == op.length) {
      grow();
    }
    op[count] = entryOp.code();
    hlc[count] = entryHlc;
    if (userTime == null && entryUserTime != 0) {
      userTime = new long[op.length];
    }
    if (userTime != null) {
      userTime[count] = entryUserTime;
    }
    offset[count] = entryOffset;
    length[count] = entryLength;
    lengthAfter[count] = entryLengthAfter;
    firstSeq[count] = entryFirstSeq;
    diskLoc[count] = entryDiskLoc;
    return count++;
  }

  private void grow() {
    int size = op.length + Math.max(INITIAL, op.length >> 2);
    op = Arrays.copyOf(op, size);
    hlc = Arrays.copyOf(hlc, size);
    userTime = userTime == null ? null : Arrays.copyOf(userTime, size);
    offset = Arrays.copyOf(offset, size);
    length = Arrays.copyOf(length, size);
    lengthAfter = Arrays.copyOf(lengthAfter, size);
    firstSeq = Arrays.copyOf(firstSeq, size);
    diskLoc = Arrays.copyOf(diskLoc, size);
  }

  public int count() {
    return count;
  }

  public BlockOp op(int i) {
    return BlockOp.forCode(op[i]);
  }

  public long hlc(int i) {
    return hlc[i];
  }

  public long userTime(int i) {
    return userTime == null ? 0 : userTime[i];
  }

  public long offset(int i) {
    return offset[i];
  }

  public int length(int i) {
    return length[i];
  }

  public long lengthAfter(int i) {
    return lengthAfter[i];
  }

  public long firstSeq(int i) {
    return firstSeq[i];
  }

  public long diskLoc(int i) {
    return diskLoc[i];
  }

  public void setDiskLoc(int i, long location) {
    diskLoc[i] = location;
  }

  /** Whether the block exists (was created and not deleted) in the state after entry {@code i}. */
  public boolean existsAfter(int i) {
    return i >= 0 && op[i] != BlockOp.DELETE.code();
  }

  /** The last entry whose HLC physical part is at most {@code micros}, or -1. Binary search. */
  public int indexAtSystemTime(long micros) {
    // hlc <= (micros, MAX_LOGICAL)  <=>  hlc < (micros + 1) << 10
    long bound = (micros + 1) << io.fffs.common.time.HlcTimestamp.LOGICAL_BITS;
    return lastBelow(hlc, bound);
  }

  /** The entry stamped exactly {@code packedHlc}, or -1. Binary search (HLCs strictly increase along the log). */
  public int indexOfHlc(long packedHlc) {
    int found = lastBelow(hlc, packedHlc + 1);
    return found >= 0 && hlc[found] == packedHlc ? found : -1;
  }

  /** The last entry whose user time is at most {@code micros}, or -1. Binary search. */
  public int indexAtUserTime(long micros) {
    if (userTime == null || micros == Long.MAX_VALUE) {
      return count - 1; // every entry has user time 0 <= micros
    }
    return lastBelow(userTime, micros + 1);
  }

  /** The last index {@code i < count} with {@code values[i] < bound} in a non-decreasing column, or -1. */
  private int lastBelow(long[] values, long bound) {
    int lo = 0;
    int hi = count - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (values[mid] < bound) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** Bytes of the arrays (for the memory-overhead benchmark). */
  public long memoryBytes() {
    long perEntry = 1 + 8 + 8 + 4 + 8 + 8 + 8 + (userTime == null ? 0 : 8);
    return (long) op.length * perEntry + 8 * 16;
  }
}
