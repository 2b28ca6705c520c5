package io.fffs.datanode.store.persist;

import io.fffs.datanode.store.DiskUsage;
import io.fffs.datanode.store.log.Block;
import io.fffs.datanode.store.log.BlockLog;
import io.fffs.datanode.store.log.BlockMap;
import io.fffs.datanode.store.log.Pages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Measures what the segment files hold: their sizes, the records block-log entries still point to (counted as the
 * segment cleaner counts them) and the bytes of the blocks' latest states. One walk of every block's log, each
 * under its read lock: callers ask now and then, not per request.
 */
public final class SegmentUsage {
  private SegmentUsage() {}

  public static DiskUsage of(BlockMap blocks, Path dataDir, int pageSize) {
    long live = 0;
    long current = 0;
    for (Block block : blocks.all()) {
      block.readLock().lock();
      try {
        BlockLog log = block.log();
        int count = log.count();
        for (int i = 0; i < count; i++) {
          if (log.diskLoc(i) != BlockLog.NONE) {
            live += SegmentFormat.recordBytes(Pages.ofEntry(log.op(i), log.offset(i), log.length(i), pageSize),
                pageSize);
          }
        }
        if (count > 0 && log.existsAfter(count - 1)) {
          current += log.lengthAfter(count - 1);
        }
      } finally {
        block.readLock().unlock();
      }
    }
    long segments = 0;
    try {
      for (Path file : SegmentFormat.list(dataDir)) {
        try {
          segments += Files.size(file);
        } catch (NoSuchFileException e) {
          // deleted by the cleaner since the listing
        }
      }
    } catch (IOException e) {
      segments = Math.max(segments, live);  // an unlistable directory: claim nothing reclaimable
    }
    return new DiskUsage(segments, live, current);
  }
}
