package io.fffs.datanode.store.persist;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.datanode.store.StoreStats;
import io.fffs.datanode.store.log.BlockLog;
import io.fffs.datanode.store.log.BlockOp;
import io.fffs.datanode.store.log.Pages;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Reads one segment file front to back at recovery ({@link SegmentFormat}), handing each valid entry to a sink, and
 * decides what a bad record means: in a file with a footer, or with a valid record anywhere after it (each batch
 * ends with a commit mark, so the last entry of a batch that was fsync'd has one), it is corruption ({@code CORRUPT}
 * with file and offset, or skipped to the next valid record for quarantine); at the end of a file without a footer,
 * with nothing valid after it, it is a torn tail, which is cut off
 * (the file is truncated there and closed with a footer). Page CRCs are checked for files without a footer, the only
 * ones a crash can have torn; pages of cleanly closed files are checked when they are reloaded. Padding records
 * (files written with O_DIRECT) are checked — CRC and zero filler — and skipped.
 */
final class SegmentScanner implements AutoCloseable {
  /** Receives the entries of a file in order. */
  interface Sink {
    void entry(EntryMeta meta, long location, Path file, long offset) throws FffsException;
  }

  /**
   * Told of a damaged record recovery skips instead of stopping: where, what failed, and the block the record
   * names (-1 when its body could not be read; the id is unchecked when the record failed its CRC).
   */
  interface DamageSink {
    void damaged(Path file, long offset, String problem, long suspectBlockId);
  }

  /** What a scan found: the number of valid entries and whether a torn tail was cut. */
  record Result(long entries, boolean cutTornTail) {}

  private final Path file;
  private final long fileNumber;
  private final int pageSize;
  private final StoreStats stats;
  private final FileChannel channel;
  private final long size;
  private final CRC32C crc = new CRC32C();
  /** The header's alignment once read: where, after a damaged record, the next batch may start. */
  private int alignment;
  /** The header's format version once read. */
  private int version;

  private SegmentScanner(Path file, long fileNumber, int pageSize, StoreStats stats, boolean writable)
      throws IOException {
    this.file = file;
    this.fileNumber = fileNumber;
    this.pageSize = pageSize;
    this.stats = stats;
    this.channel = writable ? FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)
        : FileChannel.open(file, StandardOpenOption.READ);
    this.size = channel.size();
  }

  /** What a scrub of one file found: entries and bytes verified, and the corruption found (null if none). */
  record Verification(long entries, long bytes, String corruption) {}

  /**
   * Verifies every record of a file, pages included, without changing it (the scrubber). Only a file still being
   * written may lack its footer; it ends at its last complete record: a record that is not valid and not followed
   * by a valid one is taken as not written yet. Anything else that fails is the corruption reported, with its
   * offset.
   *
   * @param throttle told the bytes of each record verified; it may sleep to keep a rate
   */
  static Verification verify(Path file, long fileNumber, int pageSize, StoreStats stats, boolean mayBeOpen,
      java.util.function.LongConsumer throttle) throws IOException {
    try (SegmentScanner scanner = new SegmentScanner(file, fileNumber, pageSize, stats, false)) {
      return scanner.verify(mayBeOpen, throttle);
    }
  }

  private Verification verify(boolean mayBeOpen, java.util.function.LongConsumer throttle) throws IOException {
    boolean footer = hasFooter();
    if (!footer && !mayBeOpen) {
      // Only a file a persistence thread still appends to may lack its footer; any other is damaged.
      return new Verification(0, 0, "offset " + Math.max(0, size - SegmentFormat.FOOTER_BYTES)
          + ": a closed segment file without a valid footer");
    }
    if (size < SegmentFormat.HEADER_BYTES) {
      return new Verification(0, 0, null);
    }
    ByteBuffer header = read(0, SegmentFormat.HEADER_BYTES);
    if (header.getLong(0) != SegmentFormat.FILE_MAGIC
        || header.getInt(28) != SegmentFormat.crc(header.array(), 0, 28)) {
      return new Verification(0, 0, "offset 0: the file header fails its check");
    }
    if (!knownVersion(header.getInt(8))) {
      return new Verification(0, 0, "offset 0: " + unknownVersion(header.getInt(8)));
    }
    alignment = header.getInt(24);
    long pos = SegmentFormat.HEADER_BYTES;
    long entries = 0;
    long end = footer ? size - SegmentFormat.FOOTER_BYTES : size;
    while (pos < end) {
      Parsed record = parse(pos, true);
      if (!record.valid()) {
        if (footer || followedByValidRecord(record, pos)) {
          return new Verification(entries, pos, "offset " + pos + ": " + record.problem);
        }
        break;  // the tail of a file still being written
      }
      entries += record.padding ? 0 : 1;
      pos += record.bytes;
      throttle.accept(record.bytes);
    }
    return new Verification(entries, pos, null);
  }

  static Result scan(Path file, long fileNumber, int pageSize, StoreStats stats, Sink sink) throws FffsException {
    return scan(file, fileNumber, pageSize, stats, sink, null);
  }

  /**
   * {@link #scan(Path, long, int, StoreStats, Sink)}, but a damaged record whose end is known (or, in an aligned
   * file, followed by a valid record on one of the next two alignment boundaries) is told to {@code damage} and
   * skipped; null: it is {@code CORRUPT}.
   */
  static Result scan(Path file, long fileNumber, int pageSize, StoreStats stats, Sink sink, DamageSink damage)
      throws FffsException {
    try (SegmentScanner scanner = new SegmentScanner(file, fileNumber, pageSize, stats, true)) {
      return scanner.run(sink, damage);
    } catch (FffsException e) {
      throw e;
    } catch (IOException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "cannot read segment file " + file + " at recovery: "
          + e.getMessage() + "; check fffs.datanode.data.dir", e);
    }
  }

  private Result run(Sink sink, DamageSink damage) throws IOException, FffsException {
    boolean footer = hasFooter();
    if (size < SegmentFormat.HEADER_BYTES) {
      return cut(0, 0);
    }
    checkHeader();
    long pos = SegmentFormat.HEADER_BYTES;
    long entries = 0;
    while (pos < size) {
      if (footer && pos == size - SegmentFormat.FOOTER_BYTES) {
        return new Result(entries, false);
      }
      Parsed record = parse(pos, !footer);
      if (!record.valid()) {
        if (footer || writtenWhole(record, pos)) {
          long next = damage == null ? -1 : nextValidRecord(record, pos, footer);
          if (next < 0) {
            throw corrupt(pos, record.problem);
          }
          damage.damaged(file, pos, record.problem, record.suspectBlock >= 0 ? record.suspectBlock
              : suspectEndingAt(pos, next));
          pos = next;
          continue;
        }
        return cut(pos, entries);
      }
      if (!record.padding) {
        sink.entry(record.meta, SegmentFormat.location(fileNumber, pos), file, pos);
        entries++;
      }
      pos += record.bytes;
    }
    if (footer) {
      throw corrupt(pos, "the footer is missing where the file ends");
    }
    // A file the process stopped writing without a torn record: close it so later scans treat it as complete.
    return cut(pos, entries);
  }

  private boolean hasFooter() throws IOException {
    if (size < SegmentFormat.HEADER_BYTES + SegmentFormat.FOOTER_BYTES) {
      return false;
    }
    ByteBuffer footer = read(size - SegmentFormat.FOOTER_BYTES, SegmentFormat.FOOTER_BYTES);
    return footer.getInt(0) == SegmentFormat.FOOTER_MAGIC && footer.getInt(4) == -1
        && footer.getInt(16) == SegmentFormat.crc(footer.array(), 0, 16);
  }

  private void checkHeader() throws IOException, FffsException {
    ByteBuffer header = read(0, SegmentFormat.HEADER_BYTES);
    if (header.getLong(0) != SegmentFormat.FILE_MAGIC || header.getInt(28) != SegmentFormat.crc(header.array(), 0,
        28) || header.getLong(16) != fileNumber) {
      throw corrupt(0, "the file header is not a valid segment header");
    }
    if (!knownVersion(header.getInt(8))) {
      throw corrupt(0, unknownVersion(header.getInt(8)));
    }
    alignment = header.getInt(24);
    version = header.getInt(8);
    int filePageSize = header.getInt(12);
    if (filePageSize != pageSize) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "segment file " + file + " was written with pages of "
          + filePageSize + " B but fffs.datanode.page.size is " + pageSize + "; set it back to " + filePageSize);
    }
  }

  private static boolean knownVersion(int version) {
    return version >= SegmentFormat.MIN_VERSION && version <= SegmentFormat.VERSION;
  }

  private static String unknownVersion(int version) {
    return "the file has segment format version " + version + ", but this DataNode reads versions "
        + SegmentFormat.MIN_VERSION + " to " + SegmentFormat.VERSION + " (written by a newer or a foreign release?)";
  }

  /**
   * A parsed record, or the reason it is not valid; {@code bytes} is its length when the prefix was readable (and,
   * for a padding record, passed its CRC). A valid padding record has {@code padding} set and no {@code meta}.
   */
  private static final class Parsed {
    EntryMeta meta;
    boolean padding;
    String problem;
    long bytes = -1;
    long suspectBlock = -1;
    /** A commit mark, and its synced offset (-1 in a version 3 mark). */
    boolean commit;
    long synced = -1;

    boolean valid() {
      return meta != null || padding;
    }
  }

  private Parsed parse(long pos, boolean verifyPages) throws IOException {
    Parsed result = new Parsed();
    if (size - pos < SegmentFormat.PREFIX_BYTES) {
      result.problem = "a record prefix cut short";
      return result;
    }
    ByteBuffer prefix = read(pos, SegmentFormat.PREFIX_BYTES);
    if (prefix.getInt(0) == SegmentFormat.PAD_MAGIC) {
      return parsePadding(pos, prefix, result);
    }
    int pageCount = prefix.getInt(4);
    if (prefix.getInt(0) != SegmentFormat.ENTRY_MAGIC || pageCount < 0) {
      result.problem = "no entry record starts here";
      return result;
    }
    result.bytes = SegmentFormat.recordBytes(pageCount, pageSize);
    if (pos + result.bytes > size) {
      result.problem = "an entry record of " + result.bytes + " bytes runs past the end of the file";
      return result;
    }
    long bodyPos = pos + SegmentFormat.bodyOffset(pageCount, pageSize);
    int bodyBytes = SegmentFormat.BODY_FIXED_BYTES + 4 * pageCount;
    ByteBuffer body = read(bodyPos, bodyBytes + 4);
    crc.reset();
    crc.update(prefix.array(), 0, SegmentFormat.PREFIX_BYTES);
    crc.update(body.array(), 0, bodyBytes);
    result.suspectBlock = body.getLong(0);
    if ((int) crc.getValue() != body.getInt(bodyBytes)) {
      stats.crcFailures.increment();
      result.problem = "the entry record fails its CRC32C";
      return result;
    }
    BlockOp op = BlockOp.forCode(body.get(12));
    long offset = body.getLong(32);
    int length = body.getInt(40);
    if (op == null || pageCount != Pages.ofEntry(op, offset, length, pageSize)) {
      result.problem = "the entry record holds an impossible op or page count";
      return result;
    }
    if (verifyPages) {
      ByteBuffer page = ByteBuffer.allocate(pageSize);
      for (int j = 0; j < pageCount; j++) {
        page.clear();
        SegmentPageReader.readFully(channel, page, pos + SegmentFormat.PREFIX_BYTES + (long) j * pageSize);
        crc.reset();
        crc.update(page.flip());
        if ((int) crc.getValue() != body.getInt(SegmentFormat.BODY_FIXED_BYTES + 4 * j)) {
          stats.crcFailures.increment();
          result.problem = "page " + j + " of the entry fails its CRC32C";
          return result;
        }
      }
    }
    result.meta = new EntryMeta(body.getLong(0), body.getInt(8), op, body.getLong(16), body.getLong(24), offset,
        length, body.getLong(48), BlockLog.NONE, pageCount);
    return result;
  }

  private Parsed parsePadding(long pos, ByteBuffer prefix, Parsed result) throws IOException {
    if (size - pos < SegmentFormat.PAD_MIN_BYTES) {
      result.problem = "a padding record cut short";
      return result;
    }
    int stored = read(pos + SegmentFormat.PREFIX_BYTES, 4).getInt(0);
    if (stored != SegmentFormat.crc(prefix.array(), 0, SegmentFormat.PREFIX_BYTES)) {
      stats.crcFailures.increment();
      result.problem = "the padding record fails its CRC32C";
      return result;
    }
    int length = prefix.getInt(4);
    if (length < SegmentFormat.PAD_MIN_BYTES) {
      result.problem = "a padding record of an impossible length " + length;
      return result;
    }
    result.bytes = length;
    if (pos + length > size) {
      result.problem = "a padding record of " + length + " bytes runs past the end of the file";
      return result;
    }
    if (length == SegmentFormat.COMMIT_BYTES || length == SegmentFormat.COMMIT_BYTES_V3) {
      ByteBuffer record = read(pos, length);
      if (record.getInt(SegmentFormat.PAD_MIN_BYTES) != 0) {
        if (!SegmentFormat.isCommitMark(record)) {
          stats.crcFailures.increment();
          result.problem = "the commit mark fails its CRC32C";
          return result;
        }
        result.padding = true;
        result.commit = true;
        result.synced = SegmentFormat.commitSynced(record);
        return result;
      }
    }
    ByteBuffer filler = read(pos + SegmentFormat.PAD_MIN_BYTES, length - SegmentFormat.PAD_MIN_BYTES);
    for (int i = 0; i < filler.capacity(); i++) {
      if (filler.get(i) != 0) {
        result.problem = "the padding record holds a non-zero byte at its offset " + (SegmentFormat.PAD_MIN_BYTES
            + i);
        return result;
      }
    }
    result.padding = true;
    return result;
  }

  /**
   * Whether the bad record at {@code pos} of a file without a footer had been written whole (damage) rather than
   * torn. Since version 4, batches between fsyncs reach the disk in no particular order, so only a commit mark
   * after it whose synced offset lies beyond it says so ({@link SegmentFormat}); before, every batch was fsync'd
   * and any valid record after it did.
   */
  private boolean writtenWhole(Parsed bad, long pos) throws IOException {
    return version >= 4 ? syncedEvidenceAfter(bad, pos) : followedByValidRecord(bad, pos);
  }

  /**
   * Whether a valid commit mark after {@code pos} has its synced offset beyond {@code pos}: walks the records
   * after the bad one, searching past any other bad ones for the next valid record.
   */
  private boolean syncedEvidenceAfter(Parsed bad, long pos) throws IOException {
    long at = bad.bytes >= 0 && pos + bad.bytes < size ? pos + bad.bytes : -1;
    Parsed record = at >= 0 ? parse(at, false) : null;
    while (true) {
      if (record == null || !record.valid()) {
        at = validRecordAfter(Math.max(pos, at), size);
        if (at < 0) {
          return false;
        }
        record = parse(at, false);
      }
      if (record.commit && record.synced > pos) {
        return true;
      }
      at += record.bytes;
      if (at >= size) {
        return false;
      }
      record = parse(at, false);
    }
  }

  /**
   * Whether a valid record follows the bad one at {@code pos}: then the bad one is damage, not a torn tail. Where
   * its length cannot be trusted and the file is aligned, the next batch starts on one of the next two alignment
   * boundaries (a padding record may run past the first).
   */
  private boolean followedByValidRecord(Parsed bad, long pos) throws IOException {
    if (bad.bytes >= 0 && pos + bad.bytes < size && parse(pos + bad.bytes, false).valid()) {
      return true;
    }
    // A bad record whose length is wrong, or whose successor is bad too: any valid record after it (a batch's
    // commit mark at the least) shows it was written whole.
    return validRecordAfter(pos, size) >= 0;
  }

  /**
   * The offset of the first valid record after {@code pos} and before {@code end}, or -1: the next batch's records
   * after damage whose length cannot be trusted. Looks for the magic of an entry or padding record at every
   * offset, then parses there (a valid record's CRC rules out a chance match).
   */
  private long validRecordAfter(long pos, long end) throws IOException {
    int chunk = 1 << 20;
    for (long from = pos + 1; from + SegmentFormat.PREFIX_BYTES <= end; from += chunk) {
      ByteBuffer bytes = read(from, (int) Math.min(chunk + 3, end - from));
      for (int i = 0; i + 4 <= bytes.capacity() && i < chunk; i++) {
        int magic = bytes.getInt(i);
        if ((magic == SegmentFormat.ENTRY_MAGIC || magic == SegmentFormat.PAD_MAGIC)
            && parse(from + i, false).valid()) {
          return from + i;
        }
      }
    }
    return -1;
  }

  /**
   * The block an entry record at {@code pos} whose magic is damaged names (unchecked), when its page count says it
   * ends where a valid record starts; else -1.
   */
  private long suspectEndingAt(long pos, long next) throws IOException {
    if (next - pos < SegmentFormat.PREFIX_BYTES) {
      return -1;
    }
    int pageCount = read(pos, SegmentFormat.PREFIX_BYTES).getInt(4);
    long end = pageCount < 0 ? -1 : pos + SegmentFormat.recordBytes(pageCount, pageSize);
    if (end < 0 || end > next || end != next && !parse(end, false).valid()) {
      return -1;
    }
    return read(pos + SegmentFormat.bodyOffset(pageCount, pageSize), 8).getLong(0);
  }

  /**
   * Where scanning can go on after the damaged record at {@code pos}: its end when its length is known, else the
   * first of the next two alignment boundaries a valid record starts on, else the next valid record found
   * anywhere after it; -1 when there is none.
   */
  private long nextValidRecord(Parsed bad, long pos, boolean footer) throws IOException {
    long end = footer ? size - SegmentFormat.FOOTER_BYTES : size;
    if (bad.bytes >= 0 && pos + bad.bytes <= end) {
      return pos + bad.bytes;
    }
    if (alignment > 0) {
      long boundary = (pos / alignment + 1) * alignment;
      for (long at = boundary; at <= boundary + alignment && at < end; at += alignment) {
        if (parse(at, false).valid()) {
          return at;
        }
      }
    }
    return validRecordAfter(pos, end);
  }

  /**
   * Cuts the file at {@code pos} (a torn tail, or nothing when {@code pos} is the end) and closes it with a footer,
   * so later scans treat it as complete; a file without even a whole header is deleted.
   */
  private Result cut(long pos, long entries) throws IOException {
    boolean torn = pos < size;
    channel.truncate(pos);
    if (pos < SegmentFormat.HEADER_BYTES) {
      channel.close();
      Files.delete(file);
      return new Result(0, torn);
    }
    ByteBuffer footer = SegmentFormat.footer(entries);
    long at = pos;
    while (footer.hasRemaining()) {
      at += channel.write(footer, at);
    }
    channel.force(false);
    io.fffs.common.fault.SyncJournal.synced(file, at, at);
    return new Result(entries, torn);
  }

  private FffsException corrupt(long pos, String problem) {
    return new FffsException(ErrorCode.CORRUPT, "segment file " + file + " is corrupt at offset " + pos + ": "
        + problem + "; the DataNode cannot recover its blocks from it — restore it or remove the DataNode's data"
        + " and let the blocks re-replicate");
  }

  private ByteBuffer read(long pos, int bytes) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    SegmentPageReader.readFully(channel, buffer, pos);
    return buffer;
  }

  @Override
  public String toString() {
    return "scanner of " + file;
  }

  @Override
  public void close() throws IOException {
    if (channel.isOpen()) {
      channel.close();
    }
  }
}
