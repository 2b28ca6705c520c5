package io.fffs.datanode.store;

/**
 * What the store's segment files hold ({@code bin/fffs admin -report}, {@code bin/fffs history du}).
 *
 * @param segmentBytes the segment files' sizes
 * @param liveBytes the records some block-log entry still points to: what the segment cleaner keeps
 * @param currentBytes the bytes of every live block's latest state (the rest of {@code liveBytes}, with the
 *     records' own metadata, is history)
 */
public record DiskUsage(long segmentBytes, long liveBytes, long currentBytes) {
  public static final DiskUsage NONE = new DiskUsage(0, 0, 0);

  /** Bytes on disk no entry points to: garbage collection dropped them, the cleaner has yet to free them. */
  public long reclaimableBytes() {
    return Math.max(0, segmentBytes - liveBytes);
  }

  /** Live bytes beyond the latest states: what history holds on disk. */
  public long historyBytes() {
    return Math.max(0, liveBytes - currentBytes);
  }
}
