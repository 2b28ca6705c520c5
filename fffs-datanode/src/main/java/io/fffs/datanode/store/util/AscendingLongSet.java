package io.fffs.datanode.store.util;

import java.util.Arrays;
import java.util.NoSuchElementException;

/**
 * A set of longs added in ascending order and removed in any order, which knows its smallest member: what the
 * store keeps of entries (HLCs) and page ranges (sequence numbers) not yet on disk. No object per member: the
 * members live in {@code values[first, end)}, in the order added, with a flag for each one removed since; {@code
 * first} moves past the removed prefix, {@code end} back over a removed suffix. 9 bytes of heap per member, where a
 * {@code TreeSet<Long>} takes ~56. Adding is amortized O(1), removing O(log n) plus the members it moves past.
 *
 * <p>Not thread-safe: its owner locks.
 */
public final class AscendingLongSet {
  private static final int INITIAL_SLOTS = 1024;

  private long[] values = new long[INITIAL_SLOTS];
  private boolean[] removed = new boolean[INITIAL_SLOTS];
  private int first;
  private int end;
  private int size;

  /**
   * Adds {@code value}, which must be above every member.
   *
   * @throws IllegalStateException if it is not (a binary search over members out of order could miss one)
   */
  public void add(long value) {
    if (end > first && value <= values[end - 1]) {
      throw new IllegalStateException(value + " added after " + values[end - 1] + ": members must ascend");
    }
    if (end == values.length) {
      makeRoom();
    }
    values[end] = value;
    removed[end] = false;
    end++;
    size++;
  }

  /** Removes {@code value}; false if it is not a member (never added, or removed already). */
  public boolean remove(long value) {
    int slot = Arrays.binarySearch(values, first, end, value);
    if (slot < 0 || removed[slot]) {
      return false;
    }
    removed[slot] = true;
    size--;
    while (first < end && removed[first]) {
      first++;
    }
    while (end > first && removed[end - 1]) {
      end--;
    }
    if (first == end) {
      first = 0;
      end = 0;
    }
    return true;
  }

  /** The smallest member. */
  public long first() {
    if (size == 0) {
      throw new NoSuchElementException("the set is empty");
    }
    return values[first];
  }

  public boolean isEmpty() {
    return size == 0;
  }

  public int size() {
    return size;
  }

  /** Moves the slots in use to the front, into arrays twice as large if they fill more than half. */
  private void makeRoom() {
    int used = end - first;
    long[] toValues = values;
    boolean[] toRemoved = removed;
    if (used > values.length / 2) {
      toValues = new long[values.length * 2];
      toRemoved = new boolean[toValues.length];
    }
    System.arraycopy(values, first, toValues, 0, used);
    System.arraycopy(removed, first, toRemoved, 0, used);
    values = toValues;
    removed = toRemoved;
    first = 0;
    end = used;
  }
}
