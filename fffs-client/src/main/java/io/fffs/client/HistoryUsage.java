package io.fffs.client;

/**
 * What a tree holds now and in the history the NameNode keeps of it ({@code bin/fffs history du}): counts and
 * bytes as the namespace knows them (file lengths; a block only past versions list counts at the largest length a
 * kept version gives it). Bytes rewritten in place within a block the present still lists are not counted apart.
 */
public record HistoryUsage(long files, long directories, long bytesNow, long versionsKept, long pastOnlyInodes,
    long pastOnlyBytes) {
  /** Lines as {@code bin/fffs history du} prints them. */
  @Override
  public String toString() {
    return "now\t" + files + " files, " + directories + " directories, " + bytesNow + " bytes\n"
        + "history\t" + versionsKept + " versions kept, " + pastOnlyInodes + " deleted or replaced files and"
        + " directories kept, " + pastOnlyBytes + " bytes in blocks only the past lists";
  }
}
