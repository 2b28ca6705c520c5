package io.fffs.client.data;

import io.fffs.common.io.PageCache;
import io.fffs.common.proto.DataTransferProtos.LocalExtentProto;
import io.fffs.common.proto.DataTransferProtos.LocalReadResponseProto;
import java.io.IOException;

/**
 * Brings the segment pages (and their stored CRCs) of a located piece into the page cache by the kernel's read-ahead
 * ({@link PageCache#warm}) before they are copied: one call per stretch of a file whose extents lie within
 * {@link #GAP} of each other, so each call asks for megabytes, not an entry record's few pages (on this project's
 * virtual machine, read-ahead in 256 KiB calls cost as much CPU as reading the pages did; in 1 MiB calls, a fifth of
 * it). A failure is left to the copy, which reads the same bytes and decides what it means.
 */
final class SegmentReadAhead {
  /** Bytes between two stretches of a segment file below which one read-ahead takes both and what lies between. */
  static final int GAP = 64 << 10;

  private SegmentReadAhead() {}

  /**
   * Brings in what copying {@code take} bytes of {@code answer} from byte {@code skip} of it reads from segment
   * files; returns the bytes brought in (none for stretches the page cache held already or too short to be worth
   * it, {@link PageCache#MIN_BYTES}).
   */
  static long warm(LocalReadResponseProto answer, ShortCircuitFiles files, long skip, long take) {
    String path = null;
    long from = 0;
    long to = 0;
    long at = 0;
    long end = skip + Math.min(take, Long.MAX_VALUE - skip);
    long warmed = 0;
    try {
      for (LocalExtentProto extent : answer.getExtentsList()) {
        if (at >= end) {
          break;
        }
        long extentEnd = at + extent.getLength();
        if (extentEnd > skip && !extent.hasFirstSeq()) {
          int pageSize = extent.getPageSize();
          long firstPage = (extent.getSkip() + Math.max(0, skip - at)) / pageSize;
          long endPage = (extent.getSkip() + Math.min(extent.getLength(), end - at) + pageSize - 1) / pageSize;
          long pagesFrom = extent.getPosition() + firstPage * pageSize;
          long stretchEnd = extent.getPosition() + endPage * pageSize;
          long crcsFrom = extent.getCrcsAt() + 4 * firstPage;
          long crcsTo = extent.getCrcsAt() + 4 * endPage;
          if (crcsFrom >= stretchEnd && crcsFrom - stretchEnd <= GAP) {
            stretchEnd = crcsTo;  // the record's CRCs follow its pages: one stretch
          } else {
            warmed += warm(files, extent.getPath(), crcsFrom, crcsTo - crcsFrom);
          }
          if (extent.getPath().equals(path) && pagesFrom >= to && pagesFrom - to <= GAP) {
            to = Math.max(to, stretchEnd);
          } else {
            if (path != null) {
              warmed += warm(files, path, from, to - from);
            }
            path = extent.getPath();
            from = pagesFrom;
            to = stretchEnd;
          }
        }
        at = extentEnd;
      }
      if (path != null) {
        warmed += warm(files, path, from, to - from);
      }
    } catch (IOException | RuntimeException e) {
      // The copy reads these bytes itself and finds out what is wrong with the file.
    }
    return warmed;
  }

  private static long warm(ShortCircuitFiles files, String path, long from, long length) throws IOException {
    return PageCache.warm(files.segment(path), from, length, files.residencyKnown(path));
  }
}
