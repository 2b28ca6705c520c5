package io.fffs.datanode.store.history;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * What garbage collection has applied to this DataNode's blocks, on disk: {@code retention.state} in the data
 * directory. Written (to a temporary file, forced, renamed, directory forced) before any entry is dropped, so that
 * recovery, which finds dropped entries again in segment files the cleaner has not rewritten yet, drops them again
 * and answers exactly as before the restart. Little-endian.
 *
 * <pre>
 *   0          8         12           20            28       32
 *  +----------+---------+------------+-------------+--------+
 *  | FFFSRET1 | version | generation | nextBlockId | count N|
 *  +----------+---------+------------+-------------+--------+
 *  N blocks:  blockId u64 | intervals M u32 | M x (from u64, to u64)   (the moments the block keeps)
 *  then:      CRC32C u32 of everything before it
 * </pre>
 * A block below {@code nextBlockId} that the file does not list was dropped whole.
 */
final class RetentionStateFile {
  static final String NAME = "retention.state";
  private static final long MAGIC = 0x3154455253464646L; // "FFFSRET1" little-endian
  private static final int VERSION = 1;

  /** The state as read back. */
  record State(long generation, long nextBlockId, Map<Long, MomentSet> kept) {}

  private RetentionStateFile() {}

  static void write(Path dataDir, State state) throws IOException {
    int size = 32 + 4;
    for (MomentSet kept : state.kept().values()) {
      size += 12 + 16 * kept.intervalCount();
    }
    ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    out.putLong(MAGIC).putInt(VERSION).putLong(state.generation()).putLong(state.nextBlockId())
        .putInt(state.kept().size());
    for (Map.Entry<Long, MomentSet> entry : new TreeMap<>(state.kept()).entrySet()) {
      MomentSet kept = entry.getValue();
      out.putLong(entry.getKey()).putInt(kept.intervalCount());
      for (int i = 0; i < kept.intervalCount(); i++) {
        out.putLong(kept.start(i)).putLong(kept.end(i));
      }
    }
    CRC32C crc = new CRC32C();
    crc.update(out.array(), 0, out.position());
    out.putInt((int) crc.getValue());
    out.flip();
    replace(dataDir, NAME, out);
  }

  /**
   * Replaces file {@code name} in {@code dataDir} with {@code content} so that a crash leaves the old file or the new
   * one whole: a temporary file written and forced, renamed over it, the directory forced.
   */
  static void replace(Path dataDir, String name, ByteBuffer content) throws IOException {
    Path tmp = dataDir.resolve(name + ".tmp");
    try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      while (content.hasRemaining()) {
        channel.write(content);
      }
      channel.force(true);
    }
    Files.move(tmp, dataDir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel dir = FileChannel.open(dataDir, StandardOpenOption.READ)) {
      dir.force(true);
    }
  }

  /** The state on disk, or null if garbage collection never applied anything here. */
  static State read(Path dataDir) throws FffsException {
    Path file = dataDir.resolve(NAME);
    if (!Files.exists(file)) {
      return null;
    }
    try {
      ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
      if (in.remaining() < 36) {
        throw corrupt(file, "it is shorter than its header");
      }
      CRC32C crc = new CRC32C();
      crc.update(in.array(), 0, in.limit() - 4);
      if ((int) crc.getValue() != in.getInt(in.limit() - 4)) {
        throw corrupt(file, "it fails its CRC32C");
      }
      if (in.getLong() != MAGIC || in.getInt() != VERSION) {
        throw corrupt(file, "it is not a retention state file of version " + VERSION);
      }
      long generation = in.getLong();
      long next = in.getLong();
      int count = in.getInt();
      Map<Long, MomentSet> kept = new TreeMap<>();
      for (int b = 0; b < count; b++) {
        long blockId = in.getLong();
        int intervals = in.getInt();
        MomentSet.Builder moments = new MomentSet.Builder();
        for (int i = 0; i < intervals; i++) {
          moments.add(in.getLong(), in.getLong());
        }
        kept.put(blockId, moments.build());
      }
      return new State(generation, next, kept);
    } catch (IOException | RuntimeException e) {
      if (e instanceof FffsException) {
        throw (FffsException) e;
      }
      throw corrupt(file, e.toString());
    }
  }

  private static FffsException corrupt(Path file, String what) {
    return new FffsException(ErrorCode.CORRUPT, "the retention state " + file + " is damaged: " + what
        + "; without it the DataNode cannot tell collected history from kept history — restore it, or remove the"
        + " DataNode's data and let the blocks re-replicate");
  }
}
