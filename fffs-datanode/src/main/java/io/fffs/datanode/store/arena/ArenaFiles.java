package io.fffs.datanode.store.arena;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.datanode.store.persist.DirectoryLock;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The arena's page files on tmpfs, each memory-mapped whole. Owns the files: creates them (removing what an earlier
 * run left), locks the directory, and deletes them on {@link #close()}.
 *
 * <p>Layout: {@code <memory dir>/arena-<n>.pages}, n = 0, 1, …; no header. Slot {@code s} (a page-sized frame)
 * lives in file {@code s / slotsPerFile} at byte {@code (s % slotsPerFile) * pageSize}:
 * <pre>
 *  arena-0.pages                                     arena-1.pages
 *  +----------+----------+-----+------------------+  +--------------------+----
 *  | slot 0   | slot 1   | ... | slot spf-1       |  | slot spf           | ...
 *  +----------+----------+-----+------------------+  +--------------------+----
 *   pageSize bytes each; spf = slotsPerFile = segment size / pageSize (file ≤ 1 GiB)
 * </pre>
 * The contents are not recovered after a restart: the segment files on disk are the durable copy.
 */
public final class ArenaFiles implements AutoCloseable {
  /** What {@link #touch} writes through the file. */
  private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(256 << 10).asReadOnlyBuffer();

  private final Path dir;
  private final int pageSize;
  private final int slotsPerFile;
  private final int slotCount;
  private final Path[] paths;
  private final RandomAccessFile[] files;
  private final FileChannel[] channels;
  private final MappedByteBuffer[] maps;
  private final DirectoryLock lock;
  private ArenaEpoch epoch;

  /**
   * Creates and maps {@code slotCount} slots of {@code pageSize} bytes in files of at most {@code segmentBytes}.
   *
   * @throws FffsException {@code IO_ERROR} if the directory cannot be used or another DataNode holds it
   */
  public ArenaFiles(Path dir, int pageSize, int slotCount, long segmentBytes) throws FffsException {
    this.dir = dir;
    this.pageSize = pageSize;
    this.slotCount = slotCount;
    this.slotsPerFile = (int) Math.max(1, Math.min(slotCount, segmentBytes / pageSize));
    int fileCount = (slotCount + slotsPerFile - 1) / slotsPerFile;
    this.paths = new Path[fileCount];
    this.files = new RandomAccessFile[fileCount];
    this.channels = new FileChannel[fileCount];
    this.maps = new MappedByteBuffer[fileCount];
    this.lock = DirectoryLock.acquire(dir, "fffs.datanode.memory.dir");
    try {
      deleteOldPageFiles();
      checkSpace(dir, (long) slotCount * pageSize);
      epoch = new ArenaEpoch(dir);
      for (int i = 0; i < fileCount; i++) {
        long slots = Math.min(slotsPerFile, slotCount - (long) i * slotsPerFile);
        paths[i] = dir.resolve("arena-" + i + ".pages");
        files[i] = new RandomAccessFile(paths[i].toFile(), "rw");
        files[i].setLength(slots * pageSize);
        channels[i] = files[i].getChannel();
        maps[i] = channels[i].map(FileChannel.MapMode.READ_WRITE, 0, slots * pageSize);
      }
    } catch (FffsException e) {
      closeQuietly();
      throw e;
    } catch (IOException e) {
      closeQuietly();
      throw new FffsException(ErrorCode.IO_ERROR, "cannot create the page arena in " + dir + " ("
          + slotCount + " pages of " + pageSize + " B): " + e.getMessage()
          + "; check fffs.datanode.memory.dir and the free space of its tmpfs", e);
    }
  }

  /**
   * Refuses an arena larger than its file system's free space. The page files are sparse, so creating and mapping
   * them succeeds either way; the shortfall would only show when a page is first touched, as a bus error (a JVM
   * {@code InternalError}) deep inside a write — for example with Docker's default 64 MiB {@code /dev/shm}.
   */
  private void checkSpace(Path dir, long bytes) throws IOException {
    long usable = Files.getFileStore(dir).getUsableSpace();
    if (usable < bytes) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "the page arena needs " + bytes + " bytes in " + dir
          + ", but its file system has only " + usable + " bytes free; lower fffs.datanode.memory.capacity or"
          + " give fffs.datanode.memory.dir a larger tmpfs (for a container, e.g. docker run --shm-size)");
    }
  }

  private void deleteOldPageFiles() throws IOException {
    try (DirectoryStream<Path> old = Files.newDirectoryStream(dir, "arena-*.pages")) {
      for (Path path : old) {
        Files.delete(path);
      }
    }
  }

  public int pageSize() {
    return pageSize;
  }

  public int slotCount() {
    return slotCount;
  }

  /** The mapping holding {@code slot}; use absolute access at {@link #offsetInFile(int)}. */
  public MappedByteBuffer map(int slot) {
    return maps[slot / slotsPerFile];
  }

  /** The channel of the file holding {@code slot} (for zero-copy sends); owned by the arena, never close it. */
  public FileChannel channel(int slot) {
    return channels[slot / slotsPerFile];
  }

  /** Byte offset of {@code slot} within its file (and within {@link #map(int)}). */
  public int offsetInFile(int slot) {
    return (slot % slotsPerFile) * pageSize;
  }

  /** Whether {@code a} and {@code b = a + 1} are adjacent in one file. */
  public boolean adjacent(int a, int b) {
    return b == a + 1 && a / slotsPerFile == b / slotsPerFile;
  }

  /** The memory directory the page files are in. */
  public Path dir() {
    return dir;
  }

  public Path path(int slot) {
    return paths[slot / slotsPerFile];
  }

  /** The eviction frontier short-circuit readers check ({@link ArenaEpoch}). */
  public ArenaEpoch epoch() {
    return epoch;
  }

  /**
   * Makes tmpfs allocate the memory of the given never-used slots now: writes zeros over them through the file, then
   * one byte per 4 KiB through the mapping (so the page tables are filled too).
   *
   * @throws IOException if the file system has no room for them ({@code ENOSPC}): through the file a full tmpfs is
   *     an error; through the mapping it would be a bus error, which the JVM does not always report
   */
  void touch(int fromSlot, int toSlot) throws IOException {
    allocate(fromSlot, toSlot);
    for (int slot = fromSlot; slot < toSlot; slot++) {
      MappedByteBuffer map = map(slot);
      int base = offsetInFile(slot);
      for (int i = 0; i < pageSize; i += 4096) {
        map.put(base + i, (byte) 0);
      }
    }
  }

  private void allocate(int fromSlot, int toSlot) throws IOException {
    for (int slot = fromSlot; slot < toSlot; ) {
      int file = slot / slotsPerFile;
      int end = Math.min(toSlot, (file + 1) * slotsPerFile);
      long position = offsetInFile(slot);
      long left = (long) (end - slot) * pageSize;
      while (left > 0) {
        int n = channels[file].write(ZEROS.duplicate().limit((int) Math.min(left, ZEROS.capacity())), position);
        position += n;
        left -= n;
      }
      slot = end;
    }
  }

  /** Deletes the page files; the mappings stay valid until they are garbage (Java cannot unmap them safely). */
  @Override
  public void close() {
    closeQuietly();
    if (epoch != null) {
      epoch.delete();
    }
    for (Path path : paths) {
      if (path != null) {
        try {
          Files.deleteIfExists(path);
        } catch (IOException e) {
          // Best effort: the next start removes leftovers.
        }
      }
    }
  }

  private void closeQuietly() {
    for (RandomAccessFile file : files) {
      if (file != null) {
        try {
          file.close();
        } catch (IOException e) {
          // Closing a tmpfs file does not fail in a way we could act on.
        }
      }
    }
    lock.close();
  }
}
