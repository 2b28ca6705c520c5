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
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Reads evicted pages back from the segment files, checking each against the CRC32C stored in its entry record
 * (see {@link SegmentFormat}). Keeps one read channel per file, shared by all readers (positional reads only).
 *
 * <p>A reader {@link #acquire}s the files it will read while it holds the block's read lock (so that what it found
 * there is still where it looks) and releases them when done. The segment cleaner {@link #retire}s a file once it
 * has moved every live record out of it: the file is gone for new readers at once, and its channel is closed when
 * the last reader that acquired it releases it. Files no reader holds are kept open for the next reader, at most
 * {@code maxIdleOpen} of all open files counted: beyond that the least recently used idle ones are closed (and
 * reopened when read again), so a DataNode with many segment files never runs out of file descriptors. An open file
 * keeps read-only mappings of it for data-port answers ({@link Handle#mapped}, {@link SegmentWindows}), unmapped when
 * it is closed or, when all files together would map more than {@link #MAX_MAPPED_BYTES}, while no reader holds it.
 * Thread-safe.
 */
public final class SegmentPageReader implements AutoCloseable {
  /** Bytes of a segment file per read-only mapping a data-port answer is written from ({@link Handle#mapped}). */
  public static final int WINDOW_BYTES = 64 << 20;
  /** Bytes all open segment files keep mapped at most (4 GiB: at most 8 MiB of page tables). */
  static final long MAX_MAPPED_BYTES = 4L << 30;

  /**
   * The window for segment files of at most {@code fileSize} bytes: {@link #WINDOW_BYTES}, or for small files a
   * quarter of their size in whole pages (a file is closed before the batch that would pass its size, so its last
   * window may never be whole).
   */
  public static int windowBytes(long fileSize, int pageSize) {
    long quarter = fileSize / 4 / pageSize * pageSize;
    return (int) Math.max(pageSize, Math.min(WINDOW_BYTES, quarter));
  }

  /** One open segment file and the readers that hold it. */
  public static final class Handle {
    private final long file;
    private final Path path;
    private final FileChannel channel;
    private final SegmentWindows windows;
    private int refs;
    private boolean retired;

    private Handle(long file, Path path, FileChannel channel, SegmentWindows windows) {
      this.file = file;
      this.path = path;
      this.channel = channel;
      this.windows = windows;
    }

    /**
     * {@code length} bytes at {@code position}, read-only, from a mapping of the file the handle keeps
     * ({@link SegmentWindows}), for a caller that holds the file and hands the bytes to the kernel (a socket write);
     * null where there is none.
     */
    public ByteBuffer mapped(long position, int length) {
      return windows.slice(position, length);
    }

    /** Unmaps the windows and closes the file; no reader holds it, so no answer is being written from them. */
    private void close() {
      windows.close();
      closeQuietly(channel);
    }

    /** Windows mapped now (tests). */
    int windowsMapped() {
      return windows.mapped();
    }

    /** The segment file's path (for messages). */
    public Path path() {
      return path;
    }

    /** The file's read channel; owned by the reader, never close it. */
    public FileChannel channel() {
      return channel;
    }

    /** The segment file's number. */
    public long file() {
      return file;
    }
  }

  private final Path dir;
  private final int pageSize;
  private final StoreStats stats;
  /** Open files, least recently acquired first; guarded by this. */
  private final Map<Long, Handle> handles = new LinkedHashMap<>(16, 0.75f, true);
  private final int maxOpen;
  private final int windowBytes;
  private final SegmentWindows.Budget windowBudget;

  /**
   * @param maxOpen open files beyond which idle ones are closed, least recently used first
   * @param windowBytes bytes per mapping of {@link Handle#mapped} ({@link #windowBytes(long, int)})
   */
  public SegmentPageReader(Path dir, int pageSize, StoreStats stats, int maxOpen, int windowBytes) {
    this(dir, pageSize, stats, maxOpen, windowBytes, MAX_MAPPED_BYTES);
  }

  /** @param maxMappedBytes bytes all open files keep mapped at most (tests use small bounds) */
  SegmentPageReader(Path dir, int pageSize, StoreStats stats, int maxOpen, int windowBytes, long maxMappedBytes) {
    this.dir = dir;
    this.pageSize = pageSize;
    this.stats = stats;
    this.maxOpen = maxOpen;
    this.windowBytes = windowBytes;
    this.windowBudget = new SegmentWindows.Budget((int) Math.max(1, maxMappedBytes / windowBytes),
        this::dropIdleWindows);
  }

  /**
   * Holds the file that {@code location} is in open for the caller until {@link #release}; call it under the lock
   * that made {@code location} current.
   */
  public Handle acquire(long location) throws FffsException {
    long file = SegmentFormat.fileOf(location);
    synchronized (this) {
      Handle handle = handles.get(file);
      if (handle == null) {
        try {
          Path path = SegmentFormat.path(dir, file);
          FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
          handle = new Handle(file, path, channel, new SegmentWindows(channel, windowBytes, windowBudget));
        } catch (IOException e) {
          throw new FffsException(ErrorCode.IO_ERROR, "cannot open segment file " + SegmentFormat.path(dir, file)
              + ": " + e.getMessage() + "; check fffs.datanode.data.dir", e);
        }
        handles.put(file, handle);
      }
      handle.refs++;
      closeIdleBeyondMax();
      return handle;
    }
  }

  /** Gives back a file {@link #acquire}d; the last reader of a retired file closes it. */
  public synchronized void release(Handle handle) {
    if (--handle.refs == 0 && handle.retired) {
      handle.close();
    } else if (handle.refs == 0) {
      closeIdleBeyondMax();
    }
  }

  /** Closes idle files, least recently used first, while more than {@link #maxOpen} are open. */
  private void closeIdleBeyondMax() {
    Iterator<Handle> open = handles.values().iterator();
    while (handles.size() > maxOpen && open.hasNext()) {
      Handle handle = open.next();
      if (handle.refs == 0) {
        open.remove();
        handle.close();
      }
    }
  }

  /** Unmaps the windows of files no reader holds (for files that need windows now, or to let the kernel drop them). */
  public synchronized void dropIdleWindows() {
    for (Handle handle : handles.values()) {
      if (handle.refs == 0) {
        handle.windows.drop();
      }
    }
  }

  /** Windows all files keep mapped now (tests). */
  int windowsMapped() {
    return windowBudget.mapped();
  }

  /** Files open now (tests). */
  synchronized int openFiles() {
    return handles.size();
  }

  /**
   * Takes file {@code fileNumber} away from new readers (nothing live is in it any more) and closes it once its
   * current readers are done.
   */
  public synchronized void retire(long fileNumber) {
    Handle handle = handles.remove(fileNumber);
    if (handle != null) {
      handle.retired = true;
      if (handle.refs == 0) {
        handle.close();
      }
    }
  }

  /** Readers holding file {@code fileNumber} now (tests). */
  synchronized int readersOf(long fileNumber) {
    Handle handle = handles.get(fileNumber);
    return handle == null ? 0 : handle.refs;
  }

  /** Position in its file of page {@code j} of the {@code pageCount}-page entry record at {@code location}. */
  public long pagePosition(long location, int j) {
    return SegmentFormat.offsetOf(location) + SegmentFormat.PREFIX_BYTES + (long) j * pageSize;
  }

  /**
   * Reads page {@code j} of the entry record at {@code location} (in {@code file}, acquired) into {@code dst}
   * (exactly one page) and checks its CRC32C.
   *
   * @param what names the block and entry for the message
   * @throws FffsException {@code CORRUPT} naming the file and offset when the bytes do not match their CRC;
   *     {@code IO_ERROR} when the file cannot be read
   */
  public void readPage(Handle file, long location, int j, int pageCount, ByteBuffer dst, String what)
      throws FffsException {
    FileChannel channel = file.channel;
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

  /** The segment file that holds the record at {@code location}. */
  public Path pathOf(long location) {
    return fileName(location);
  }

  /** Position in its file of the stored CRC32C of page {@code j} of the {@code pageCount}-page record there. */
  public long pageCrcPosition(long location, int j, int pageCount) {
    return SegmentFormat.offsetOf(location) + SegmentFormat.pageCrcOffset(j, pageCount, pageSize);
  }

  public static void readFully(FileChannel channel, ByteBuffer dst, long position) throws IOException {
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
  public synchronized void close() {
    for (Handle handle : handles.values()) {
      if (handle.refs == 0) {
        handle.close();
      } else {
        handle.retired = true;  // an answer may still be written from its windows: its last release closes it
      }
    }
    handles.clear();
  }
}
