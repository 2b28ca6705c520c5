package io.fffs.datanode.store.log;

import java.util.Arrays;

/**
 * For each page of a block, the log indexes of the entries that wrote it, ascending. The page's bytes as of log
 * index {@code i} are those of the last version at or below {@code i}: one binary search per page. Where that
 * version's page is stored follows from its entry ({@link BlockLog#firstSeq} plus the page's position in the
 * write), so a version costs one {@code int}.
 *
 * <p>Compact for the common case of one version per page: {@code head[p]} is the only version's log index when
 * {@code >= 0}, {@link #EMPTY} for no version, and {@code -2 - k} when page {@code p} has several versions, kept in
 * {@code lists[k]} as {@code [size, v0, v1, …]}. Adding a version is O(1) amortized, so a write touching {@code k}
 * pages costs O(k).
 *
 * <p>Not thread-safe by itself: {@link Block} guards it.
 */
public final class PageVersionIndex {
  private static final int EMPTY = -1;

  private int[] head = new int[0];
  private int[][] lists = new int[0][];
  private int listCount;

  /** Records that entry {@code logIndex} wrote page {@code page}; log indexes must arrive in ascending order. */
  public void add(int page, int logIndex) {
    if (page >= head.length) {
      int size = Math.max(page + 1, Math.max(16, head.length * 2));
      int old = head.length;
      head = Arrays.copyOf(head, size);
      Arrays.fill(head, old, size, EMPTY);
    }
    int current = head[page];
    if (current == EMPTY) {
      head[page] = logIndex;
    } else if (current >= 0) {
      head[page] = -2 - newList(current, logIndex);
    } else {
      int k = -2 - current;
      int[] list = lists[k];
      int size = list[0];
      if (size + 1 == list.length) {
        list = Arrays.copyOf(list, list.length * 2);
        lists[k] = list;
      }
      list[size + 1] = logIndex;
      list[0] = size + 1;
    }
  }

  private int newList(int first, int second) {
    if (listCount == lists.length) {
      lists = Arrays.copyOf(lists, Math.max(8, lists.length * 2));
    }
    lists[listCount] = new int[] {2, first, second, 0};
    return listCount++;
  }

  /** The log index of the version of {@code page} current at {@code logIndex}, or -1 if none. */
  public int versionAt(int page, int logIndex) {
    if (page >= head.length) {
      return -1;
    }
    int current = head[page];
    if (current == EMPTY) {
      return -1;
    }
    if (current >= 0) {
      return current <= logIndex ? current : -1;
    }
    int[] list = lists[-2 - current];
    int lo = 1;
    int hi = list[0];
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (list[mid] <= logIndex) {
        found = list[mid];
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** Bytes of the arrays (for the memory-overhead benchmark). */
  public long memoryBytes() {
    long bytes = 16 + 4L * head.length + 16 + 4L * lists.length;
    for (int k = 0; k < listCount; k++) {
      bytes += 16 + 4L * lists[k].length;
    }
    return bytes;
  }
}
