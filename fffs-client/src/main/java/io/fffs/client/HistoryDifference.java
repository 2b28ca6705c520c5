package io.fffs.client;

/**
 * One difference of a tree between two moments ({@code bin/fffs history diff}).
 *
 * @param kind created, deleted, renamed or modified
 * @param path the entry's path at the first moment (for a created one: at the second)
 * @param target for a rename, the path at the second moment; else null
 * @param lengthBefore a file's length at the first moment (-1 where it did not exist; 0 for directories)
 * @param lengthAfter a file's length at the second moment (-1 where it did not exist)
 */
public record HistoryDifference(Kind kind, String path, String target, long lengthBefore, long lengthAfter) {
  /** What happened to the entry. */
  public enum Kind { CREATED, DELETED, RENAMED, MODIFIED }

  /** {@code +} created, {@code -} deleted, {@code R} renamed, {@code M} modified, as HDFS's snapshotDiff marks them. */
  @Override
  public String toString() {
    switch (kind) {
      case CREATED:
        return "+\t" + path;
      case DELETED:
        return "-\t" + path;
      case RENAMED:
        return "R\t" + path + " -> " + target;
      default:
        return "M\t" + path + (lengthBefore == lengthAfter ? "" : "\t(" + lengthBefore + " -> " + lengthAfter
            + " bytes)");
    }
  }
}
