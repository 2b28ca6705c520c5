package io.fffs.datanode.store;

import io.fffs.common.time.HlcTimestamp;
import java.nio.file.Path;
import java.util.List;

/**
 * Where the bytes of a block range as of one log entry are, for a short-circuit reader on this host that copies them
 * itself: extents of the arena's page files (valid while the arena's eviction frontier, {@code epochFile}, stays at
 * or below their {@code firstSeq}) and of segment files (whole pages, each with its stored CRC32C). Nothing is
 * pinned: the reader checks what it copied.
 *
 * @param blockLength the block's length as of the entry
 * @param hlc the entry's HLC
 * @param epochFile the arena's epoch file ({@link io.fffs.datanode.store.arena.ArenaEpoch})
 * @param instance the arena instance the extents belong to
 */
public record LocalView(long blockLength, HlcTimestamp hlc, Path epochFile, long instance, List<Extent> extents) {
  /** Bytes of the range the extents give. */
  public long length() {
    long total = 0;
    for (Extent extent : extents) {
      total += extent.length();
    }
    return total;
  }

  /**
   * {@code length} bytes of the range. In the arena ({@code inArena}): at {@code position} of {@code path}, in pages
   * from sequence number {@code firstSeq} up. In a segment file: {@code pages} whole pages of {@code pageSize} from
   * {@code position}, their CRC32Cs at {@code crcsAt}, the range starting {@code skip} bytes into the first.
   */
  public record Extent(boolean inArena, Path path, long position, int length, long firstSeq, int skip, int pages,
      long crcsAt, int pageSize) {
    static Extent arena(Path path, long position, int length, long seq) {
      return new Extent(true, path, position, length, seq, 0, 0, 0, 0);
    }

    static Extent segment(Path path, long pagePosition, int skip, int length, long crcsAt, int pageSize) {
      return new Extent(false, path, pagePosition, length, 0, skip, 1, crcsAt, pageSize);
    }

    /** This extent followed by {@code next} when it continues it in the same file (and record), else null. */
    Extent merge(Extent next) {
      if (inArena != next.inArena || !path.equals(next.path)) {
        return null;
      }
      if (inArena) {
        return position + length == next.position
            ? new Extent(true, path, position, length + next.length, Math.min(firstSeq, next.firstSeq), 0, 0, 0, 0)
            : null;
      }
      boolean pagesFollow = skip + length == pages * pageSize && next.skip == 0
          && position + (long) pages * pageSize == next.position && crcsAt + 4L * pages == next.crcsAt;
      return pagesFollow ? new Extent(false, path, position, length + next.length, 0, skip, pages + next.pages,
          crcsAt, pageSize) : null;
    }
  }
}
