package io.fffs.datanode.store.persist;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The layout of a segment file in {@code fffs.datanode.data.dir}. All integers little-endian.
 *
 * <p>File {@code seg-<fileNumber, 10 digits>.log} = header, records (entry and padding records), and — once closed
 * cleanly — a footer.
 * <pre>
 * Header (32 bytes)
 *   0                   8         12        16                  24          28        32
 *  +-------------------+---------+---------+-------------------+-----------+---------+
 *  | magic "FFFSSEG\0" | version | pageSize| fileNumber        | alignment | CRC32C  |
 *  +-------------------+---------+---------+-------------------+-----------+---------+
 *                                                       CRC32C covers bytes 0..27
 *   alignment: 0 when the file is written through the page cache; else the block size (a power of two, at least
 *   4096) that every write to the file starts and ends on (O_DIRECT). Version 1 files have 0 there and no padding
 *   records; they are read as they are.
 *
 * Entry record (pages first, then the entry, so a complete entry implies complete pages)
 *   0         4           8                                     B = 8 + pageCount * pageSize
 *  +---------+-----------+-------------------------------------+
 *  | "FFEN"  | pageCount | pages: pageCount * pageSize bytes   |
 *  +---------+-----------+-------------------------------------+
 *   B+0       B+8        B+12 B+13     B+16      B+24       B+32     B+40     B+44      B+48
 *  +---------+----------+----+--------+---------+----------+--------+--------+---------+-------------+
 *  | blockId | logIndex | op | 3 zero | hlc     | userTime | offset | length | 4 zero  | lengthAfter |
 *  | u64     | u32      | u8 |        | u64     | u64      | u64    | u32    |         | u64         |
 *  +---------+----------+----+--------+---------+----------+--------+--------+---------+-------------+
 *   B+56                               B+56+4*pageCount
 *  +-----------------------------------+---------------+
 *  | CRC32C of each page, u32 each      | record CRC32C |
 *  +-----------------------------------+---------------+
 *   The record CRC32C covers bytes 0..7 and B .. B+56+4*pageCount-1 (everything but the pages, which have
 *   their own CRCs so a single page can be checked when it is reloaded).
 *
 * Padding record (version 2, only in files with an alignment): fills the rest of a batch up to the next multiple
 * of the alignment, so that the next write starts aligned; or stands before an entry record whose pages are
 * written in place from the memory arena, so that they start on the alignment (its 8-byte prefix ends there). At
 * least 12 bytes; when fewer than 12 are left to the boundary it runs on to the boundary after. Readers skip it
 * wherever it is.
 *   0        4                  8                      12
 *  +--------+------------------+----------------------+-----------------------------+
 *  | "FFPD" | length (all of   | CRC32C of bytes 0..7 | length - 12 zero bytes      |
 *  |        | the record) u32  |                      |                             |
 *  +--------+------------------+----------------------+-----------------------------+
 *
 * Commit mark: a padding record whose filler is not zeros but records how far the file had been fsync'd, written at
 * the end of each batch and right after each fsync, so that damage in what was fsync'd is told apart from a torn
 * tail. Readers that skip padding skip it. Version 4 (36 bytes):
 *   0        4            8                      12       16                  24                  32
 *  +--------+------------+----------------------+--------+-------------------+-------------------+--------+
 *  | "FFPD" | 36 u32     | CRC32C of bytes 0..7 | "FFCM" | batch start u64   | synced u64        | CRC32C |
 *  +--------+------------+----------------------+--------+-------------------+-------------------+--------+
 *   batch start: where the batch's first record starts (the mark's own offset for a mark written after an fsync).
 *   synced: every byte of the file before this offset had been fsync'd when the mark was written. CRC32C covers
 *   bytes 0..31. Batches between two fsyncs are written without waiting for the disk, so after a power loss any of
 *   their pages may be missing, in any order; a bad record in a file without a footer is damage only when a valid
 *   mark after it has {@code synced} beyond it, else a torn tail, cut there with every record after it.
 *   Version 3 marks are 28 bytes (no synced offset): every batch was fsync'd before the next was written, and in
 *   version 1 to 3 files any valid record after a bad one makes it damage.

 * Footer (20 bytes), written when a file is closed cleanly; in a file with an alignment a padding record before
 * it makes the footer end on a boundary
 *   0        4            8                    16        20
 *  +--------+------------+--------------------+---------+
 *  | "FFFT" | 0xFFFFFFFF | entry record count | CRC32C  |   CRC32C covers bytes 0..15
 *  +--------+------------+--------------------+---------+
 * </pre>
 * A file without a footer was being written when the process stopped: a record in it that is incomplete or fails
 * its CRC, with no commit mark after it that shows it fsync'd (above), is a torn tail and is cut with everything
 * after it. In a file with a footer every failure is corruption, a padding record that fails its CRC or holds a
 * non-zero filler byte (but a commit mark's) included.
 *
 * <p>A record's place is a <em>disk location</em>: {@code fileNumber << 40 | byte offset}.
 */
public final class SegmentFormat {
  public static final long FILE_MAGIC = 0x0047455353464646L; // "FFFSSEG\0" little-endian
  /** The version written; {@link #MIN_VERSION} to this one are read. */
  public static final int VERSION = 4;
  public static final int MIN_VERSION = 1;
  public static final int HEADER_BYTES = 32;
  public static final int ENTRY_MAGIC = 0x4e454646; // "FFEN"
  public static final int FOOTER_MAGIC = 0x54464646; // "FFFT"
  public static final int PAD_MAGIC = 0x44504646; // "FFPD"
  public static final int PAD_MIN_BYTES = 12;
  public static final int COMMIT_MAGIC = 0x4d434646; // "FFCM"
  /** The commit mark written (version 4). */
  public static final int COMMIT_BYTES = 36;
  /** The commit mark of version 3 files, still read. */
  public static final int COMMIT_BYTES_V3 = 28;
  public static final int PREFIX_BYTES = 8;
  public static final int BODY_FIXED_BYTES = 56;
  public static final int FOOTER_BYTES = 20;
  private static final int OFFSET_BITS = 40;

  private SegmentFormat() {}

  /** The segment files of {@code dataDir}, oldest first. */
  public static java.util.List<Path> list(Path dataDir) throws java.io.IOException {
    java.util.List<Path> files = new java.util.ArrayList<>();
    try (java.nio.file.DirectoryStream<Path> dir = java.nio.file.Files.newDirectoryStream(dataDir, "seg-*.log")) {
      for (Path file : dir) {
        if (fileNumberOf(file) >= 0) {
          files.add(file);
        }
      }
    }
    files.sort((a, b) -> Long.compare(fileNumberOf(a), fileNumberOf(b)));
    return files;
  }

  public static Path path(Path dir, long fileNumber) {
    return dir.resolve(String.format("seg-%010d.log", fileNumber));
  }

  /** The file number of a segment file name, or -1 if the name is not one. */
  public static long fileNumberOf(Path file) {
    String name = file.getFileName().toString();
    if (!name.startsWith("seg-") || !name.endsWith(".log")) {
      return -1;
    }
    try {
      return Long.parseLong(name.substring(4, name.length() - 4));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  public static long location(long fileNumber, long offset) {
    return fileNumber << OFFSET_BITS | offset;
  }

  public static long fileOf(long location) {
    return location >>> OFFSET_BITS;
  }

  public static long offsetOf(long location) {
    return location & ((1L << OFFSET_BITS) - 1);
  }

  /** Bytes of an entry record with {@code pageCount} pages. */
  public static long recordBytes(int pageCount, int pageSize) {
    return PREFIX_BYTES + (long) pageCount * pageSize + BODY_FIXED_BYTES + 4L * pageCount + 4;
  }

  /** Offset of the body (blockId) from the start of the record. */
  public static long bodyOffset(int pageCount, int pageSize) {
    return PREFIX_BYTES + (long) pageCount * pageSize;
  }

  /** Offset of page {@code j}'s CRC32C from the start of the record. */
  public static long pageCrcOffset(int j, int pageCount, int pageSize) {
    return bodyOffset(pageCount, pageSize) + BODY_FIXED_BYTES + 4L * j;
  }

  /** The header of a file written with {@code alignment} (0: through the page cache). */
  public static ByteBuffer header(int pageSize, long fileNumber, int alignment) {
    ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    header.putLong(FILE_MAGIC).putInt(VERSION).putInt(pageSize).putLong(fileNumber).putInt(alignment);
    header.putInt(crc(header.array(), 0, HEADER_BYTES - 4));
    return header.flip();
  }

  public static ByteBuffer prefix(int pageCount) {
    return ByteBuffer.allocate(PREFIX_BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(ENTRY_MAGIC).putInt(pageCount)
        .flip();
  }

  /** The entry body with its page CRCs and record CRC; {@code prefix} is the record's first 8 bytes. */
  public static ByteBuffer body(ByteBuffer prefix, EntryMeta entry, int[] pageCrcs) {
    int count = pageCrcs.length;
    ByteBuffer body = ByteBuffer.allocate(BODY_FIXED_BYTES + 4 * count + 4).order(ByteOrder.LITTLE_ENDIAN);
    body.putLong(entry.blockId()).putInt(entry.logIndex()).put(entry.op().code()).put((byte) 0).putShort((short) 0)
        .putLong(entry.hlc()).putLong(entry.userTime()).putLong(entry.offset()).putInt(entry.length()).putInt(0)
        .putLong(entry.lengthAfter());
    for (int crc : pageCrcs) {
      body.putInt(crc);
    }
    CRC32C crc = new CRC32C();
    crc.update(prefix.duplicate());
    crc.update(body.array(), 0, body.position());
    body.putInt((int) crc.getValue());
    return body.flip();
  }

  /**
   * Bytes of the padding record to put at {@code position} so that {@code tail} more bytes after it end on a
   * multiple of {@code alignment}; 0 when they already do.
   */
  public static int paddingBytes(long position, int tail, int alignment) {
    int gap = (int) Math.floorMod(-(position + tail), (long) alignment);
    return gap == 0 || gap >= PAD_MIN_BYTES ? gap : gap + alignment;
  }

  /**
   * The first {@link #PAD_MIN_BYTES} bytes of a padding record of {@code bytes} bytes (at least that many); zeros
   * fill the rest of it.
   */
  public static ByteBuffer paddingHeader(int bytes) {
    ByteBuffer pad = ByteBuffer.allocate(PAD_MIN_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    pad.putInt(PAD_MAGIC).putInt(bytes);
    pad.putInt(crc(pad.array(), 0, 8));
    return pad.clear();
  }

  /**
   * The commit mark that ends a batch whose first record starts at {@code batchStart} (or, written after an fsync,
   * starts there itself), when the file had been fsync'd up to {@code synced}.
   */
  public static ByteBuffer commitMark(long batchStart, long synced) {
    ByteBuffer mark = ByteBuffer.allocate(COMMIT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    mark.put(paddingHeader(COMMIT_BYTES)).putInt(COMMIT_MAGIC).putLong(batchStart).putLong(synced);
    mark.putInt(crc(mark.array(), 0, COMMIT_BYTES - 4));
    return mark.flip();
  }

  /**
   * Whether the filler of a padding record of {@link #COMMIT_BYTES} or {@link #COMMIT_BYTES_V3} bytes (its bytes
   * from 12 on; {@code record} holds all of it) makes it a valid commit mark.
   */
  public static boolean isCommitMark(ByteBuffer record) {
    int bytes = record.capacity();
    return (bytes == COMMIT_BYTES || bytes == COMMIT_BYTES_V3) && record.getInt(PAD_MIN_BYTES) == COMMIT_MAGIC
        && record.getInt(bytes - 4) == crc(record.array(), 0, bytes - 4);
  }

  /** A valid version 4 commit mark's {@code synced} offset; -1 for a version 3 mark, which has none. */
  public static long commitSynced(ByteBuffer record) {
    return record.capacity() == COMMIT_BYTES ? record.getLong(24) : -1;
  }

  public static ByteBuffer footer(long entryCount) {
    ByteBuffer footer = ByteBuffer.allocate(FOOTER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    footer.putInt(FOOTER_MAGIC).putInt(-1).putLong(entryCount);
    footer.putInt(crc(footer.array(), 0, FOOTER_BYTES - 4));
    return footer.flip();
  }

  public static int crc(byte[] bytes, int from, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, from, length);
    return (int) crc.getValue();
  }

  public static int crc(ByteBuffer bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes.duplicate());
    return (int) crc.getValue();
  }
}
