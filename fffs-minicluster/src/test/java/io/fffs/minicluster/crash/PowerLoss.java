package io.fffs.minicluster.crash;

import io.fffs.common.fault.SyncJournal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * What a power loss leaves of a killed node's log files (edit-log segments {@code edits_*}, DataNode segment files
 * {@code seg-*}): each is cut back to what its last fsync made durable, as the node's {@link SyncJournal} recorded
 * it — bytes written since revert to the zeros of preallocated space or are gone — except that at times a random
 * part of the unsynced tail is kept, as a write torn by the power loss. A file the journal never saw synced keeps
 * nothing but such a torn part. Other files (images, state files) are written whole and renamed after an fsync, so
 * a power loss keeps them as they are.
 */
final class PowerLoss {
  private PowerLoss() {}

  /** Applies a power loss to the log files under {@code dir}; returns how many files lost bytes. */
  static int apply(Path journal, Path dir, Random random) throws IOException {
    Map<Path, long[]> durable = new HashMap<>();
    if (Files.exists(journal)) {
      for (String line : Files.readAllLines(journal)) {
        String[] fields = line.split(" ");
        if (fields.length == 3) {  // a line cut by the kill is not a line
          durable.put(Path.of(fields[0]), new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[2])});
        }
      }
    }
    int changed = 0;
    List<Path> files;
    try (var walk = Files.walk(dir)) {
      files = walk.filter(Files::isRegularFile).filter(PowerLoss::isLog).toList();
    }
    for (Path file : files) {
      long[] kept = durable.getOrDefault(file.toAbsolutePath(), new long[] {0, 0});
      long size = Files.size(file);
      if (size <= kept[0]) {
        continue;
      }
      long torn = random.nextInt(3) == 0 ? (long) (random.nextDouble() * (size - kept[0])) : 0;
      long contentEnd = kept[0] + torn;
      long newSize = Math.max(kept[1], contentEnd);
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        if (size > newSize) {
          channel.truncate(newSize);
        }
        ByteBuffer zeros = ByteBuffer.allocate(64 * 1024);
        for (long at = contentEnd; at < Math.min(size, newSize); ) {
          zeros.clear().limit((int) Math.min(zeros.capacity(), Math.min(size, newSize) - at));
          at += channel.write(zeros, at);
        }
      }
      changed++;
    }
    return changed;
  }

  private static boolean isLog(Path file) {
    String name = file.getFileName().toString();
    return name.startsWith("edits_") || name.startsWith("seg-");
  }
}
