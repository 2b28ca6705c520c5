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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.apache.hadoop.thirdparty.protobuf.InvalidProtocolBufferException;

/**
 * Reads one segment file ({@link EditLogFormat}), telling a torn tail from damage in the middle. Zeros after the
 * last record are space the writer preallocated ({@link EditLog}): the end of the log, not damage. In a segment
 * with commit markers, records count only once their batch's marker is read; whatever follows the last good marker
 * of the newest segment is a torn write (never acknowledged), and a bad record or marker with a good marker after
 * it is damage. A newest segment with a bad header and nothing but zeros after it was being started at the crash.
 */
public final class EditLogReader {
  private EditLogReader() {}

  /**
   * Feeds every good, committed record of {@code file} to {@code sink} in order and returns the offset just past
   * the last of them (past its batch's commit marker).
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
    int version = in.getInt(8);
    if (!Arrays.equals(magic, EditLogFormat.MAGIC)
        || version != EditLogFormat.VERSION && version != EditLogFormat.VERSION_WITHOUT_MARKERS) {
      if (newest && allZero(bytes, EditLogFormat.FILE_HEADER_BYTES)) {
        // Started (truncated, preallocated) but its header never synced before a power loss: it holds nothing
        return 0;
      }
      throw corrupt(file, 0, "the header is not an FFFS edit-log header (version " + EditLogFormat.VERSION + ")");
    }
    Segment segment = new Segment(file, newest, bytes, in, version == EditLogFormat.VERSION, sink);
    segment.expectedTxid = in.getLong(12);
    return segment.read();
  }

  /** One pass over a segment's bytes. */
  private static final class Segment {
    final Path file;
    final boolean newest;
    final byte[] bytes;
    final ByteBuffer in;
    final boolean markers;
    final Consumer<EditRecord> sink;
    /** Records read since the last commit marker (with markers: applied only once their marker is read). */
    final List<EditRecord> batch = new ArrayList<>();
    int batchStart = EditLogFormat.FILE_HEADER_BYTES;
    long expectedTxid;

    Segment(Path file, boolean newest, byte[] bytes, ByteBuffer in, boolean markers, Consumer<EditRecord> sink) {
      this.file = file;
      this.newest = newest;
      this.bytes = bytes;
      this.in = in;
      this.markers = markers;
      this.sink = sink;
    }

    long read() throws FffsException {
      int offset = EditLogFormat.FILE_HEADER_BYTES;
      while (offset < bytes.length) {
        int left = bytes.length - offset;
        if (left < EditLogFormat.RECORD_HEADER_BYTES) {
          return bad(offset, newest, "a record header is cut short");
        }
        int length = in.getInt(offset);
        if (markers && length == EditLogFormat.COMMIT_TAG) {
          if (left < EditLogFormat.COMMIT_MARKER_BYTES) {
            return bad(offset, newest, "a commit marker is cut short");
          }
          if (!EditLogFormat.isCommitMarker(in, offset)) {
            return bad(offset, newest, "a commit marker fails its CRC32C");
          }
          offset = commit(offset);
          continue;
        }
        if (length == 0 && allZero(bytes, offset)) {
          break;  // preallocated space after the last record
        }
        if (length < 0 || length > EditLogFormat.MAX_BODY_BYTES) {
          return bad(offset, newest && allZero(bytes, offset), "a record length of " + length
              + " bytes is impossible");
        }
        int end = offset + EditLogFormat.RECORD_HEADER_BYTES + length;
        if (end > bytes.length || end < 0) {
          return bad(offset, newest, "a record runs past the end of the file");
        }
        int crc = EditLogFormat.crc(bytes, offset + 8, 16 + length);
        if (crc != in.getInt(offset + 4)) {
          return bad(offset, newest && allZero(bytes, end), "a record fails its CRC32C");
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
          throw corrupt(file, offset, "a record passes its CRC32C but its op does not parse (" + e.getMessage()
              + ")");
        }
        long hlc = in.getLong(offset + 16);
        if (hlc < 0) {
          throw corrupt(file, offset, "a record passes its CRC32C but carries a negative HLC (" + hlc + ")");
        }
        EditRecord record = new EditRecord(txid, HlcTimestamp.valueOf(hlc), op);
        if (markers) {
          batch.add(record);
        } else {
          sink.accept(record);
        }
        expectedTxid++;
        offset = end;
      }
      if (!markers) {
        return offset;
      }
      if (!batch.isEmpty()) {
        // Whole records whose commit marker never reached the disk: a batch torn before its force.
        return bad(batchStart, newest, "the records from here on have no commit marker");
      }
      return batchStart;
    }

    /** Takes the good commit marker at {@code offset}: hands its batch to the sink; returns the offset after it. */
    private int commit(int offset) throws FffsException {
      long lastTxid = in.getLong(offset + 8);
      long start = in.getLong(offset + 16);
      if (batch.isEmpty() || start != batchStart || lastTxid != expectedTxid - 1) {
        throw corrupt(file, offset, "a commit marker for txids up to " + lastTxid + " from offset " + start
            + " closes " + batch.size() + " records from offset " + batchStart);
      }
      batch.forEach(sink);
      batch.clear();
      batchStart = offset + EditLogFormat.COMMIT_MARKER_BYTES;
      return batchStart;
    }

    /**
     * A bad record or marker at {@code offset}: with markers, damage if a good marker follows anywhere (its batch
     * was written whole), else a torn tail of the newest segment, cut at the last marker; without markers, a torn
     * tail if {@code torn}. Returns where the good records end, or throws {@code CORRUPT} naming file and offset.
     */
    private int bad(int offset, boolean torn, String what) throws FffsException {
      if (!markers) {
        if (torn) {
          return offset;
        }
        throw corrupt(file, offset, what);
      }
      for (int p = offset + 1; p + EditLogFormat.COMMIT_MARKER_BYTES <= bytes.length; p++) {
        if (EditLogFormat.isCommitMarker(in, p)) {
          throw corrupt(file, offset, what + ", and the good commit marker at offset " + p
              + " shows it was written whole");
        }
      }
      if (newest) {
        return batchStart;  // nothing after the last marker was acknowledged
      }
      throw corrupt(file, offset, what + " in a segment that was closed");
    }
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
