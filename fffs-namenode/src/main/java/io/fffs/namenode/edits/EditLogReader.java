package io.fffs.namenode.edits;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.time.HlcTimestamp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Consumer;
import org.apache.hadoop.thirdparty.protobuf.InvalidProtocolBufferException;

/**
 * Reads one segment file ({@link EditLogFormat}), telling a torn tail from damage in the middle. Zeros after the
 * last record are space the writer preallocated ({@link EditLog}): the end of the log, not damage; a record that
 * fails its CRC with only zeros after it in the newest segment is a torn write into that space.
 */
public final class EditLogReader {
  private EditLogReader() {}

  /**
   * Feeds every good record of {@code file} to {@code sink} in order and returns the offset just past the last
   * good record.
   *
   * @param newest whether this is the newest segment, the only one whose tail may be torn
   * @throws FffsException {@code CORRUPT} naming the file and offset of a damaged record that is not a torn tail
   */
  public static long read(Path file, boolean newest, Consumer<EditRecord> sink) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
    if (bytes.length < EditLogFormat.FILE_HEADER_BYTES) {
      if (newest) {
        return 0;  // torn while the header was being written: the segment holds nothing
      }
      throw corrupt(file, 0, "the file is shorter than its header");
    }
    byte[] magic = Arrays.copyOf(bytes, EditLogFormat.MAGIC.length);
    if (!Arrays.equals(magic, EditLogFormat.MAGIC) || in.getInt(8) != EditLogFormat.VERSION) {
      throw corrupt(file, 0, "the header is not an FFFS edit-log header (version " + EditLogFormat.VERSION + ")");
    }
    long expectedTxid = in.getLong(12);
    int offset = EditLogFormat.FILE_HEADER_BYTES;
    while (offset < bytes.length) {
      int left = bytes.length - offset;
      if (left < EditLogFormat.RECORD_HEADER_BYTES) {
        return tornOrCorrupt(file, newest, offset, "a record header is cut short");
      }
      int length = in.getInt(offset);
      if (length == 0 && allZero(bytes, offset)) {
        return offset;  // preallocated space after the last record
      }
      if (length < 0 || length > EditLogFormat.MAX_BODY_BYTES) {
        return tornOrCorrupt(file, newest && allZero(bytes, offset), offset, "a record length of " + length
            + " bytes is impossible");
      }
      int end = offset + EditLogFormat.RECORD_HEADER_BYTES + length;
      if (end > bytes.length || end < 0) {
        return tornOrCorrupt(file, newest, offset, "a record runs past the end of the file");
      }
      int crc = EditLogFormat.crc(bytes, offset + 8, 16 + length);
      if (crc != in.getInt(offset + 4)) {
        return tornOrCorrupt(file, newest && allZero(bytes, end), offset, "a record fails its CRC32C");
      }
      long txid = in.getLong(offset + 8);
      if (txid != expectedTxid) {
        throw corrupt(file, offset, "txid " + txid + " where " + expectedTxid + " was expected");
      }
      EditOpProto op;
      try {
        op = EditOpProto.parseFrom(ByteBuffer.wrap(bytes, offset + 24, length));
      } catch (InvalidProtocolBufferException e) {
        // The CRC matched, so this is what was written: no torn tail, but an op this NameNode cannot read.
        throw corrupt(file, offset, "a record passes its CRC32C but its op does not parse (" + e.getMessage() + ")");
      }
      long hlc = in.getLong(offset + 16);
      if (hlc < 0) {
        throw corrupt(file, offset, "a record passes its CRC32C but carries a negative HLC (" + hlc + ")");
      }
      sink.accept(new EditRecord(txid, HlcTimestamp.valueOf(hlc), op));
      expectedTxid++;
      offset = end;
    }
    return offset;
  }

  /** Whether {@code file} holds only zeros from {@code offset} on: preallocated space, not a torn record. */
  public static boolean zerosFrom(Path file, long offset) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    return offset <= bytes.length && allZero(bytes, (int) offset);
  }

  /** Whether {@code bytes} hold only zeros from {@code from} on (true at the end). */
  private static boolean allZero(byte[] bytes, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static long tornOrCorrupt(Path file, boolean torn, int offset, String what) throws FffsException {
    if (torn) {
      return offset;
    }
    throw corrupt(file, offset, what);
  }

  private static FffsException corrupt(Path file, long offset, String what) {
    return new FffsException(ErrorCode.CORRUPT, "edit log " + file + " is damaged at offset " + offset + ": "
        + what + "; restore the file from a backup or move it aside to start from the newest image");
  }
}
