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
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The blocks this DataNode began holding that its {@link RetentionStateFile} does not decide for:
 * {@code retention.adopted} in the data directory. Two kinds:
 * <ul>
 *   <li>blocks whose ids are below the last table's {@code nextBlockId} although they began here after it was applied
 *       (a re-replication copy, a pipeline's replacement member, a block first written after the table was made):
 *       recovery would take them for blocks the table dropped; listed here, they are kept whole until the next table
 *       decides;
 *   <li>copies of blocks whose history garbage collection trimmed on their source, whatever their ids: the moments
 *       the source keeps of them, which they answer for exactly until a table lists them.
 * </ul>
 * Each record is appended and forced before the block's first change is answered. The file is written whole
 * (temporary file, forced, renamed, directory forced) once a table has been applied and at each start-up, with the
 * records that count then, so a torn tail never stays ahead of later appends. Records count under a header of the
 * generation {@code retention.state} holds (0 while none was applied); under an older one (a crash between a table's
 * state and this list), only the copies' records of blocks that table does not decide for. A later record of a block
 * replaces an earlier one. Little-endian.
 *
 * <pre>
 *   0          8         12           20            24
 *  +----------+---------+------------+-------------+
 *  | FFFSADP1 | version | generation | CRC32C u32  |   (the CRC of the 20 bytes before it)
 *  +----------+---------+------------+-------------+
 *  then records (version 2):
 *    blockId u64 | n i32 | CRC32C u32 of the 12 bytes before it
 *    n = -1: the block is kept whole; n >= 0: it keeps the moments of n bounds ([from, to) pairs, µs; none when 0),
 *    which follow when n > 0: n i64 | CRC32C u32 of them
 *  (version 1, read only: blockId u64 | CRC32C u32 of it; kept whole)
 * </pre>
 * A torn last record (a crash while it was appended: its block's change was not answered) is ignored: a short one,
 * one whose kept moments fail their CRC with nothing after them, or one whose first 16 bytes fail theirs with only
 * zeros after them (space the file system gave the append but the crash left unwritten). A damaged header or a
 * damaged record with more records after it is reported.
 */
final class AdoptedBlocksFile {
  static final String NAME = "retention.adopted";
  private static final long MAGIC = 0x3150444153464646L; // "FFFSADP1" little-endian
  private static final int VERSION = 2;
  private static final int HEADER = 24;
  private static final int RECORD_V1 = 12;
  private static final int PREFIX = 16;
  /** More bounds than any kept set has: a record claiming more is damaged. */
  private static final int MAX_BOUNDS = 1 << 20;
  private static final int WHOLE = -1;

  private AdoptedBlocksFile() {}

  /** Writes the file whole for the table of {@code generation}, listing {@code blocks} (kept moments, or null). */
  static void write(Path dataDir, long generation, Map<Long, MomentSet> blocks) throws IOException {
    int size = HEADER;
    for (MomentSet kept : blocks.values()) {
      size += recordSize(kept);
    }
    ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    out.putLong(MAGIC).putInt(VERSION).putLong(generation);
    out.putInt(crc(out.array(), 0, HEADER - 4));
    for (Map.Entry<Long, MomentSet> block : blocks.entrySet()) {
      putRecord(out, block.getKey(), block.getValue());
    }
    out.flip();
    RetentionStateFile.replace(dataDir, NAME, out);
  }

  /** Appends the record of {@code blockId} (kept moments, or null) and forces it to disk. */
  static void append(Path dataDir, long blockId, MomentSet kept) throws IOException {
    ByteBuffer record = ByteBuffer.allocate(recordSize(kept)).order(ByteOrder.LITTLE_ENDIAN);
    putRecord(record, blockId, kept);
    record.flip();
    try (FileChannel channel = FileChannel.open(dataDir.resolve(NAME), StandardOpenOption.WRITE,
        StandardOpenOption.APPEND)) {
      while (record.hasRemaining()) {
        channel.write(record);
      }
      channel.force(false);
    }
  }

  private static int recordSize(MomentSet kept) {
    int bounds = kept == null ? 0 : 2 * kept.intervalCount();
    return PREFIX + (bounds == 0 ? 0 : 8 * bounds + 4);
  }

  private static void putRecord(ByteBuffer out, long blockId, MomentSet kept) {
    int start = out.position();
    int bounds = kept == null ? 0 : 2 * kept.intervalCount();
    out.putLong(blockId).putInt(kept == null ? WHOLE : bounds);
    out.putInt(crc(out.array(), start, 12));
    if (bounds > 0) {
      int from = out.position();
      for (int i = 0; i < kept.intervalCount(); i++) {
        out.putLong(kept.start(i)).putLong(kept.end(i));
      }
      out.putInt(crc(out.array(), from, 8 * bounds));
    }
  }

  /**
   * The blocks recorded since the table of {@code generation} (bound {@code nextBlockId}) was applied, with their
   * kept moments (null: whole); none if there is no file. A list of an older table (a crash between writing the
   * retention state and this file) gives only its copies of blocks at or above the bound, which the table leaves
   * undecided.
   */
  static Map<Long, MomentSet> read(Path dataDir, long generation, long nextBlockId) throws FffsException {
    Path file = dataDir.resolve(NAME);
    Map<Long, MomentSet> adopted = new HashMap<>();
    if (!Files.exists(file)) {
      return adopted;
    }
    try {
      ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
      int version = in.remaining() < HEADER || in.getLong() != MAGIC ? -1 : in.getInt();
      if (version != 1 && version != VERSION) {
        throw corrupt(file, "its header is not that of an adopted-blocks file of version 1 or " + VERSION);
      }
      long written = in.getLong();
      if (in.getInt() != crc(in.array(), 0, HEADER - 4)) {
        throw corrupt(file, "its header fails its CRC32C");
      }
      while (version == 1 ? readV1(file, in, adopted) : readRecord(file, in, adopted)) {
        // one record per turn
      }
      if (written != generation) {
        // Written for an older table, whose state a crash kept from being replaced: the newer table decides for every
        // block below its bound; only the kept moments of copies above it still count.
        adopted.entrySet().removeIf(block -> block.getValue() == null || block.getKey() < nextBlockId);
      }
      return adopted;
    } catch (FffsException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw corrupt(file, e.toString());
    }
  }

  /** Reads one record into {@code adopted}; false at the end of the list (a torn last record ends it too). */
  private static boolean readRecord(Path file, ByteBuffer in, Map<Long, MomentSet> adopted) throws FffsException {
    int start = in.position();
    if (in.remaining() < PREFIX) {
      return false;  // nothing more, or the last record torn
    }
    long blockId = in.getLong();
    int bounds = in.getInt();
    if (in.getInt() != crc(in.array(), start, 12)) {
      if (zerosFrom(in, start + PREFIX)) {
        return false;  // the last record, torn: nothing but zeros after its first bytes
      }
      throw corrupt(file, "the record at byte " + start + " fails its CRC32C");
    }
    if (bounds != WHOLE && (bounds < 0 || bounds % 2 != 0 || bounds > MAX_BOUNDS)) {
      throw corrupt(file, "the record at byte " + start + " gives " + bounds + " bounds of kept moments");
    }
    MomentSet kept = bounds == WHOLE ? null : MomentSet.NONE;
    if (bounds > 0) {
      if (in.remaining() < 8 * bounds + 4) {
        return false;  // the last record, torn
      }
      int from = in.position();
      long[] values = new long[bounds];
      for (int i = 0; i < bounds; i++) {
        values[i] = in.getLong();
      }
      if (in.getInt() != crc(in.array(), from, 8 * bounds)) {
        if (!in.hasRemaining()) {
          return false;  // the last record, torn
        }
        throw corrupt(file, "the kept moments of the record at byte " + start + " fail their CRC32C");
      }
      kept = MomentSet.of(values);
    }
    adopted.put(blockId, kept);
    return true;
  }

  /** Reads one record of a version-1 list (a block kept whole); false at the end of the list. */
  private static boolean readV1(Path file, ByteBuffer in, Map<Long, MomentSet> adopted) throws FffsException {
    if (in.remaining() < RECORD_V1) {
      return false;
    }
    int start = in.position();
    long blockId = in.getLong();
    if (in.getInt() != crc(in.array(), start, 8)) {
      if (in.remaining() < RECORD_V1) {
        return false;  // the last record, torn
      }
      throw corrupt(file, "the record at byte " + start + " fails its CRC32C");
    }
    adopted.put(blockId, null);
    return true;
  }

  /** Whether every byte from {@code from} to the end is zero (space a crash left unwritten; none at all counts). */
  private static boolean zerosFrom(ByteBuffer in, int from) {
    for (int i = from; i < in.limit(); i++) {
      if (in.get(i) != 0) {
        return false;
      }
    }
    return true;
  }

  private static int crc(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }

  private static FffsException corrupt(Path file, String what) {
    return new FffsException(ErrorCode.CORRUPT, "the adopted-blocks list " + file + " is damaged: " + what
        + "; without it the DataNode cannot tell blocks it took in since its last retention table from blocks that"
        + " table dropped — restore it, or remove the DataNode's data and let the blocks re-replicate");
  }
}
