package io.fffs.namenode.edits;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The on-disk layout of an edit-log segment file, {@code edits_<firstTxid, 20 digits>}. Big-endian throughout.
 *
 * <pre>
 * File header (20 bytes)
 *   0        8          12              20
 *  +--------+----------+---------------+
 *  |FFFSEDIT| version  | first txid    |
 *  +--------+----------+---------------+
 *
 * Record (24 + L bytes), repeated
 *   0            4            8               16              24
 *  +------------+------------+---------------+---------------+--------------------------+
 *  | body len L | CRC32C     | txid          | HLC (packed)  | EditOpProto (L bytes)    |
 *  +------------+------------+---------------+---------------+--------------------------+
 *                 CRC32C covers bytes 8 .. 24+L: txid, HLC and the op.
 *
 * Commit marker (24 bytes, version 2), after the records of each batch, in the same write and force
 *   0            4            8               16              24
 *  +------------+------------+---------------+---------------+
 *  | 0xFFFFFFFF | CRC32C     | last txid     | batch start   |
 *  +------------+------------+---------------+---------------+
 *                 CRC32C covers bytes 8 .. 24; batch start is the file offset of the batch's first record.
 * </pre>
 *
 * Txids are consecutive across segments. A record is acknowledged only after the segment is forced to disk with
 * it. Version 2 (written now) closes every batch with a commit marker, so at start-up the tail after the last good
 * marker of the newest segment is a torn write and is cut, while a bad record or marker with a good marker after it
 * was written whole and is {@code CORRUPT} — wherever it is. Version 1 (no markers, still read) cuts a record that
 * runs past the end of the newest segment or fails its CRC as the last thing in it.
 */
public final class EditLogFormat {
  static final byte[] MAGIC = {'F', 'F', 'F', 'S', 'E', 'D', 'I', 'T'};
  static final int VERSION = 2;
  /** Segments written before commit markers; still read. */
  static final int VERSION_WITHOUT_MARKERS = 1;
  /** The length field of a commit marker (no record has a negative length). */
  static final int COMMIT_TAG = -1;
  static final int COMMIT_MARKER_BYTES = 24;
  static final int FILE_HEADER_BYTES = 20;
  static final int RECORD_HEADER_BYTES = 24;
  /** Larger than any op we write; a length beyond it is damage, not a record. */
  static final int MAX_BODY_BYTES = 64 << 20;
  static final String PREFIX = "edits_";

  private EditLogFormat() {}

  static String fileName(long firstTxid) {
    return String.format("%s%020d", PREFIX, firstTxid);
  }

  /** The first txid a segment file name stands for, or -1 if the name is not a segment's. */
  static long firstTxidOf(Path file) {
    String name = file.getFileName().toString();
    if (!name.startsWith(PREFIX) || name.length() != PREFIX.length() + 20) {
      return -1;
    }
    try {
      return Long.parseLong(name.substring(PREFIX.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  static ByteBuffer fileHeader(long firstTxid) {
    ByteBuffer header = ByteBuffer.allocate(FILE_HEADER_BYTES).order(ByteOrder.BIG_ENDIAN);
    header.put(MAGIC).putInt(VERSION).putLong(firstTxid).flip();
    return header;
  }

  /** One record, ready to write. */
  static ByteBuffer encode(long txid, long hlc, byte[] body) {
    ByteBuffer record = ByteBuffer.allocate(RECORD_HEADER_BYTES + body.length).order(ByteOrder.BIG_ENDIAN);
    record.putInt(body.length).putInt(0).putLong(txid).putLong(hlc).put(body);
    record.putInt(4, crc(record.array(), 8, 16 + body.length));
    record.flip();
    return record;
  }

  /** The commit marker of a batch whose first record starts at {@code batchStart} and whose last is {@code lastTxid}. */
  static ByteBuffer commitMarker(long lastTxid, long batchStart) {
    ByteBuffer marker = ByteBuffer.allocate(COMMIT_MARKER_BYTES).order(ByteOrder.BIG_ENDIAN);
    marker.putInt(COMMIT_TAG).putInt(0).putLong(lastTxid).putLong(batchStart);
    marker.putInt(4, crc(marker.array(), 8, 16));
    marker.flip();
    return marker;
  }

  /** Whether a good commit marker starts at {@code offset} of {@code bytes}. */
  static boolean isCommitMarker(ByteBuffer bytes, int offset) {
    return offset >= 0 && offset + COMMIT_MARKER_BYTES <= bytes.limit() && bytes.getInt(offset) == COMMIT_TAG
        && bytes.getInt(offset + 4) == crc(bytes.array(), offset + 8, 16);
  }

  static int crc(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }
}
