package io.fffs.common.io;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Asks the kernel about, and for, a file range's pages in the page cache, through a mapping of just that range,
 * unmapped at once.
 *
 * <p>{@link #warm} brings a range in the way the kernel's read-ahead does ({@code madvise(MADV_WILLNEED)} on the
 * mapping, then one touch per page to wait for them), not through {@code read(2)}: on this project's virtual
 * machine, whose free memory goes back to its host, bringing 1 GiB of a file nobody had read into the page cache in
 * 4 MiB ranges took 0.4 s of CPU this way against 2.7-3.0 s with 1 MiB preads (in smaller ranges, more: see
 * {@link #MIN_BYTES}). A read of the range afterwards is a copy out of the page cache
 * (docs/benchmarks.md, "How evicted data is read").
 */
public final class PageCache {
  /**
   * The shortest range {@link #warm} brings in: read-ahead of a cold file in 256 KiB ranges cost as much CPU as
   * reading it, in 512 KiB ranges two thirds of that, in 1 MiB ranges a fifth.
   */
  public static final long MIN_BYTES = 1 << 20;

  private PageCache() {}

  /**
   * Whether the page cache holds every page of bytes [position, position + length) of {@code channel}'s file
   * (mincore). Since Linux 5.0 the kernel answers truly only to whom may write the file (or owns it); to others every
   * page is resident.
   */
  public static boolean resident(FileChannel channel, long position, long length) throws IOException {
    MappedByteBuffer range = channel.map(FileChannel.MapMode.READ_ONLY, position, length);
    try {
      return range.isLoaded();
    } finally {
      Unmapper.unmap(range);
    }
  }

  /**
   * Brings bytes [position, position + length) of {@code channel}'s file (as far as it goes) into the page cache,
   * waiting for the disk, and returns how many it was asked to bring in: 0 for a range shorter than
   * {@link #MIN_BYTES} (read-ahead of it costs what reading it does) and, where {@code residencyKnown} (see
   * {@link #resident}), for a range the page cache holds whole already.
   *
   * @throws IOException when the range cannot be mapped, or the file shrank under the touch
   */
  public static long warm(FileChannel channel, long position, long length, boolean residencyKnown)
      throws IOException {
    if (length < MIN_BYTES) {
      return 0;  // before asking the file's size: most such ranges are a few CRCs
    }
    long end = Math.min(position + length, channel.size());
    if (end - position < MIN_BYTES) {
      return 0;
    }
    MappedByteBuffer range = channel.map(FileChannel.MapMode.READ_ONLY, position, end - position);
    try {
      if (residencyKnown && range.isLoaded()) {
        return 0;
      }
      range.load();
      return end - position;
    } catch (InternalError e) {
      // The JVM's answer to SIGBUS: a page of the mapping is past the file's end now, or could not be read.
      throw new IOException("a page between bytes " + position + " and " + end + " could not be read ahead: the file"
          + " shrank, or the disk failed", e);
    } finally {
      Unmapper.unmap(range);
    }
  }
}
