package io.fffs.datanode.store.persist;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.TreeSet;

/**
 * The blocks a DataNode set aside because damage in its segment files touched them ({@code quarantine} in the data
 * directory): one block id per line, in decimal. Written whole to a temporary file, synced, then renamed over the
 * old one, so a crash leaves the old list or the new one. A quarantined block is not served and is reported
 * corrupt until the NameNode has it dropped (a good copy exists elsewhere).
 */
public final class QuarantineFile {
  public static final String NAME = "quarantine";

  private QuarantineFile() {}

  /** The ids listed in {@code dataDir}, or none. */
  public static Set<Long> read(Path dataDir) throws FffsException {
    Path file = dataDir.resolve(NAME);
    Set<Long> ids = new TreeSet<>();
    if (!Files.exists(file)) {
      return ids;
    }
    try {
      for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
        if (!line.isBlank()) {
          ids.add(Long.parseLong(line.trim()));
        }
      }
    } catch (IOException | NumberFormatException e) {
      throw new FffsException(ErrorCode.CORRUPT, "the quarantine list " + file + " cannot be read (" + e.getMessage()
          + "); remove it, and the DataNode finds the damage again at its next recovery", e);
    }
    return ids;
  }

  /** Replaces the list in {@code dataDir} with {@code ids}. */
  public static void write(Path dataDir, Set<Long> ids) throws FffsException {
    Path file = dataDir.resolve(NAME);
    Path temporary = dataDir.resolve(NAME + ".tmp");
    StringBuilder text = new StringBuilder();
    for (long id : new TreeSet<>(ids)) {
      text.append(id).append('\n');
    }
    try {
      Files.writeString(temporary, text, StandardCharsets.US_ASCII);
      try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
        channel.force(true);
      }
      Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      try (FileChannel directory = FileChannel.open(dataDir, StandardOpenOption.READ)) {
        directory.force(true);  // the rename is durable too
      }
    } catch (IOException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "cannot write the quarantine list " + file + ": "
          + e.getMessage(), e);
    }
  }
}
