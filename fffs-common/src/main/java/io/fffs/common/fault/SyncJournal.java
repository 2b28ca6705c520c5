package io.fffs.common.fault;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A fault hook for power-loss tests that does nothing in production. With the system property
 * {@value #PROPERTY} naming a file, every fsync of a log file (an edit-log segment, a DataNode segment file)
 * appends a line {@code <path> <contentEnd> <fileSize>} to it: what a power loss from then on would keep of that
 * file — its bytes up to {@code contentEnd}, and zeros (preallocated space) up to {@code fileSize}. The line is
 * written (not fsync'd: it survives a kill -9, which is all a test needs) after the fsync returns and before the
 * caller reports anything durable, so a test that kills the process and then cuts each file back to its last line
 * (keeping a torn part of the rest at will) leaves what a power loss could have left.
 */
public final class SyncJournal {
  public static final String PROPERTY = "fffs.fault.sync-journal";
  private static final FileOutputStream OUT = open(System.getProperty(PROPERTY));

  private SyncJournal() {}

  private static FileOutputStream open(String path) {
    if (path == null || path.isEmpty()) {
      return null;
    }
    try {
      return new FileOutputStream(path, true);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the sync journal " + path, e);
    }
  }

  /** {@code file} is durable up to {@code contentEnd}, and its size {@code fileSize} with it. */
  public static void synced(Path file, long contentEnd, long fileSize) {
    if (OUT == null) {
      return;
    }
    byte[] line = (file.toAbsolutePath() + " " + contentEnd + " " + fileSize + "\n")
        .getBytes(StandardCharsets.UTF_8);
    synchronized (SyncJournal.class) {
      try {
        OUT.write(line);  // one write of an O_APPEND file: whole lines, whatever the thread
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write the sync journal", e);
      }
    }
  }
}
