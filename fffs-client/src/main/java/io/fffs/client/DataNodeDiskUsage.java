package io.fffs.client;

/**
 * What the live DataNodes' segment files hold, summed, as each DataNode last measured them ({@code bin/fffs history
 * du}).
 *
 * @param datanodes the live DataNodes counted
 * @param segmentBytes the segment files' size
 * @param liveBytes the records block-log entries still point to
 * @param currentBytes the bytes of the blocks' latest states
 */
public record DataNodeDiskUsage(int datanodes, long segmentBytes, long liveBytes, long currentBytes) {
  /** Collected and not yet freed by the segment cleaners. */
  public long reclaimableBytes() {
    return Math.max(0, segmentBytes - liveBytes);
  }

  /** Live records beyond the latest states: history on disk. */
  public long historyBytes() {
    return Math.max(0, liveBytes - currentBytes);
  }

  /** The line {@code bin/fffs history du} prints. */
  @Override
  public String toString() {
    return "disk	" + segmentBytes + " bytes in the segment files of " + datanodes + " DataNodes: " + liveBytes
        + " live (" + currentBytes + " latest states, " + historyBytes() + " history), " + reclaimableBytes()
        + " reclaimable";
  }
}
