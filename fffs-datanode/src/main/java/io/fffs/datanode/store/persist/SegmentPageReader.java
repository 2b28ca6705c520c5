package io.fffs.datanode.store.persist;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.datanode.store.StoreStats;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.zip.CRC32C;

/**
 * Reads evicted pages back from the segment files, checking each against the CRC32C stored in its entry record
 * (see {@link SegmentFormat}). Keeps one read channel per file, shared by all readers (positional reads only).
 * Thread-safe.
 */
public final class SegmentPageReader implements AutoCloseable {
  private final Path dir;
  private final int pageSize;
  private final StoreStats stats;
  private final ConcurrentMap<Long, FileChannel> channels = new ConcurrentHashMap<>();

  public SegmentPageReader(Path dir, int pageSize, StoreStats stats) {
    this.dir = dir;
    this.pageSize = pageSize;
    this.stats = stats;
  }

  /** The read channel of the file holding {@code location}; owned by this reader, never close it. */
  public FileChannel channel(long location) throws FffsException {
    long file = SegmentFormat.fileOf(location);
    FileChannel channel = channels.get(file);
    if (channel != null) {
      return channel;
    }
    try {
      channel = FileChannel.open(SegmentFormat.path(dir, file), StandardOpenOption.READ);
    } catch (IOException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "cannot open segment file " + SegmentFormat.path(dir, file)
          + ": " + e.getMessage() + "; check fffs.datanode.data.dir", e);
    }
    FileChannel raced = channels.putIfAbsent(file, channel);
    if (raced != null) {
      closeQuietly(channel);
      return raced;
    }
    return channel;
  }

  /** Position in its file of page {@code j} of the {@code pageCount}-page entry record at {@code location}. */
  public long pagePosition(long location, int j) {
    return SegmentFormat.offsetOf(location) + SegmentFormat.PREFIX_BYTES + (long) j * pageSize;
  }

  /**
   * Reads page {@code j} of the entry record at {@code location} into {@code dst} (exactly one page) and checks
   * its CRC32C.
   *
   * @param what names the block and entry for the message
   * @throws FffsException {@code CORRUPT} naming the file and offset when the bytes do not match their CRC;
   *     {@code IO_ERROR} when the file cannot be read
   */
  public void readPage(long location, int j, int pageCount, ByteBuffer dst, String what) throws FffsException {
    FileChannel channel = channel(location);
    long pagePos = pagePosition(location, j);
    long crcPos = SegmentFormat.offsetOf(location) + SegmentFormat.pageCrcOffset(j, pageCount, pageSize);
    ByteBuffer page = dst.slice(dst.position(), pageSize);
    ByteBuffer stored = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
    try {
      readFully(channel, page, pagePos);
      readFully(channel, stored, crcPos);
    } catch (IOException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "cannot read " + what + " from " + fileName(location)
          + " at offset " + pagePos + ": " + e.getMessage(), e);
    }
    CRC32C crc = new CRC32C();
    crc.update(page.flip());
    if ((int) crc.getValue() != stored.getInt(0)) {
      stats.crcFailures.increment();
      throw new FffsException(ErrorCode.CORRUPT, "segment file " + fileName(location) + " is corrupt at offset "
          + pagePos + ": " + what + " fails its CRC32C; the page cannot be served — restore the block from"
          + " another replica");
    }
    stats.pagesReloaded.increment();
    dst.position(dst.position() + pageSize);
  }

  private Path fileName(long location) {
    return SegmentFormat.path(dir, SegmentFormat.fileOf(location));
  }

  static void readFully(FileChannel channel, ByteBuffer dst, long position) throws IOException {
    long at = position;
    while (dst.hasRemaining()) {
      int n = channel.read(dst, at);
      if (n < 0) {
        throw new IOException("unexpected end of file at offset " + at);
      }
      at += n;
    }
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // A read-only channel has nothing to lose.
    }
  }

  @Override
  public void close() {
    channels.values().forEach(SegmentPageReader::closeQuietly);
    channels.clear();
  }
}
