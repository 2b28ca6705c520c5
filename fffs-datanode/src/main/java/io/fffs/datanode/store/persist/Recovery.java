package io.fffs.datanode.store.persist;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.datanode.store.StoreStats;
import io.fffs.datanode.store.log.Block;
import io.fffs.datanode.store.log.BlockLog;
import io.fffs.datanode.store.log.BlockMap;
import io.fffs.datanode.store.log.LogApplier;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Rebuilds the block logs and page index from the segment files: scans them in file-number order (creation order,
 * so each block's entries arrive in log order), cuts torn tails, and replays every entry through
 * {@link LogApplier}. The pages stay on disk; they are read back when first needed.
 */
public final class Recovery {
  /** What recovery found. */
  public record Result(long nextFileNumber, long maxHlc, long entries, int tornTailsCut) {}

  private Recovery() {}

  public static Result run(Path dataDir, int pageSize, BlockMap blocks, StoreStats stats) throws FffsException {
    List<Path> files;
    try {
      files = SegmentFormat.list(dataDir);
    } catch (IOException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "cannot list the data directory " + dataDir + ": "
          + e.getMessage() + "; check fffs.datanode.data.dir", e);
    }
    long[] maxHlc = {0};
    long entries = 0;
    int torn = 0;
    long nextFile = 0;
    for (Path file : files) {
      long number = SegmentFormat.fileNumberOf(file);
      nextFile = number + 1;
      SegmentScanner.Result result = SegmentScanner.scan(file, number, pageSize, stats,
          (meta, location, where, offset) -> {
            Block block = blocks.getOrCreate(meta.blockId());
            if (meta.logIndex() != block.log().count()) {
              throw new FffsException(ErrorCode.CORRUPT, "segment file " + where + " is corrupt at offset "
                  + offset + ": block " + meta.blockId() + " entry " + meta.logIndex()
                  + " follows a log of " + block.log().count() + " entries; restore the file or remove the"
                  + " DataNode's data and let the blocks re-replicate");
            }
            LogApplier.apply(block, meta.op(), meta.userTime(), meta.hlc(), meta.offset(), meta.length(),
                meta.lengthAfter(), BlockLog.NONE, location, pageSize);
            maxHlc[0] = Math.max(maxHlc[0], meta.hlc());
          });
      entries += result.entries();
      torn += result.cutTornTail() ? 1 : 0;
    }
    for (Block block : blocks.all()) {
      block.setDurableCount(block.log().count());
      block.setEnqueuedCount(block.log().count());
    }
    return new Result(nextFile, maxHlc[0], entries, torn);
  }
}
