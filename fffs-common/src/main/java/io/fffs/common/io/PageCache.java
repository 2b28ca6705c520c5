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
 * 4 MiB ranges took 0.4 s of CPU this way against 2.7-3.0 s with 1 MiB preads (in 128 KiB ranges, as much as the
 * preads: ask for megabytes at a time). A read of the range afterwards is a copy out of the page cache
 * (docs/benchmarks.md, "How evicted data is read").
 */
public final class PageCache {
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
   * Brings bytes [position, position + length) of {@code channel}'s file (as far as it goes) into the page cache
   * and returns how many that was, or 0 when the page cache held them all already. Waits for the disk.
   *
   * @throws IOException when the range cannot be mapped, or the file shrank under the touch
   */
  public static long warm(FileChannel channel, long position, long length) throws IOException {
    long end = Math.min(position + length, channel.size());
    if (end <= position) {
      return 0;
    }
    MappedByteBuffer range = channel.map(FileChannel.MapMode.READ_ONLY, position, end - position);
    try {
      if (range.isLoaded()) {
        return 0;
      }
      range.load();
      return end - position;
    } catch (InternalError e) {
      // The JVM's answer to SIGBUS: a page of the mapping is past the file's end now.
      throw new IOException("the file shrank below byte " + end + " while its pages were read ahead", e);
    } finally {
      Unmapper.unmap(range);
    }
  }
}
