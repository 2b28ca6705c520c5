package io.fffs.datanode.store.history;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * The blocks this DataNode began holding after it applied its last retention table although their ids are below
 * that table's {@code nextBlockId} (a re-replication copy, a pipeline's replacement member, a block first written
 * after the table was made): {@code retention.adopted} in the data directory. The {@link RetentionStateFile} does not
 * list them, and recovery would take them for blocks the table dropped; listed here, they are kept whole until the
 * next table decides. Each record is appended and forced before the block's first change is answered. The file is
 * written whole (temporary file, forced, renamed, directory forced) once a table has been applied and at each
 * start-up, with the records that count then, so a torn tail never stays ahead of later appends. Records count only
 * under a header of the generation {@code retention.state} holds. Little-endian.
 *
 * <pre>
 *   0          8         12           20            24
 *  +----------+---------+------------+-------------+
 *  | FFFSADP1 | version | generation | CRC32C u32  |   (the CRC of the 20 bytes before it)
 *  +----------+---------+------------+-------------+
 *  then records: blockId u64 | CRC32C u32 of the blockId's 8 bytes
 * </pre>
 * A torn last record (a crash while it was appended: its block's change was not answered) is ignored; a damaged
 * header or a damaged record before the last is reported.
 */
final class AdoptedBlocksFile {
  static final String NAME = "retention.adopted";
  private static final long MAGIC = 0x3150444153464646L; // "FFFSADP1" little-endian
  private static final int VERSION = 1;
  private static final int HEADER = 24;
  private static final int RECORD = 12;

  private AdoptedBlocksFile() {}

  /** Writes the file whole for the table of {@code generation}, listing {@code blockIds}. */
  static void write(Path dataDir, long generation, Set<Long> blockIds) throws IOException {
    ByteBuffer out = ByteBuffer.allocate(HEADER + RECORD * blockIds.size()).order(ByteOrder.LITTLE_ENDIAN);
    out.putLong(MAGIC).putInt(VERSION).putLong(generation);
    CRC32C crc = new CRC32C();
    crc.update(out.array(), 0, HEADER - 4);
    out.putInt((int) crc.getValue());
    for (long blockId : blockIds) {
      out.putLong(blockId).putInt(crc(blockId));
    }
    out.flip();
    RetentionStateFile.replace(dataDir, NAME, out);
  }

  /** Appends {@code blockId} and forces it to disk. */
  static void append(Path dataDir, long blockId) throws IOException {
    ByteBuffer record = ByteBuffer.allocate(RECORD).order(ByteOrder.LITTLE_ENDIAN);
    record.putLong(blockId).putInt(crc(blockId)).flip();
    try (FileChannel channel = FileChannel.open(dataDir.resolve(NAME), StandardOpenOption.WRITE,
        StandardOpenOption.APPEND)) {
      while (record.hasRemaining()) {
        channel.write(record);
      }
      channel.force(false);
    }
  }

  /**
   * The blocks adopted since the table of {@code generation} was applied; none if there is no file or it is of
   * another table (a crash between writing the retention state and this file).
   */
  static Set<Long> read(Path dataDir, long generation) throws FffsException {
    Path file = dataDir.resolve(NAME);
    Set<Long> adopted = new HashSet<>();
    if (!Files.exists(file)) {
      return adopted;
    }
    try {
      ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
      if (in.remaining() < HEADER || in.getLong() != MAGIC || in.getInt() != VERSION) {
        throw corrupt(file, "its header is not that of an adopted-blocks file of version " + VERSION);
      }
      long written = in.getLong();
      CRC32C crc = new CRC32C();
      crc.update(in.array(), 0, HEADER - 4);
      if (in.getInt() != (int) crc.getValue()) {
        throw corrupt(file, "its header fails its CRC32C");
      }
      if (written != generation) {
        return adopted;  // written for an older table, whose state a crash kept from being replaced: none count
      }
      while (in.remaining() >= RECORD) {
        long blockId = in.getLong();
        if (in.getInt() != crc(blockId)) {
          if (in.remaining() < RECORD) {
            break;  // the last record, torn
          }
          throw corrupt(file, "the record at byte " + (in.position() - RECORD) + " fails its CRC32C");
        }
        adopted.add(blockId);
      }
      return adopted;
    } catch (IOException e) {
      throw corrupt(file, e.toString());
    }
  }

  private static int crc(long blockId) {
    CRC32C crc = new CRC32C();
    crc.update(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(blockId).flip());
    return (int) crc.getValue();
  }

  private static FffsException corrupt(Path file, String what) {
    return new FffsException(ErrorCode.CORRUPT, "the adopted-blocks list " + file + " is damaged: " + what
        + "; without it the DataNode cannot tell blocks it took in since its last retention table from blocks that"
        + " table dropped — restore it, or remove the DataNode's data and let the blocks re-replicate");
  }
}
