package io.fffs.datanode.store;

import io.fffs.common.time.HlcTimestamp;
import io.fffs.datanode.store.log.Block;

/**
 * One line of a block report: a live block, its current length, the HLC of its last entry, and where the replica
 * stands in the block's write pipeline: the highest pipeline epoch it was opened with (0: none), its frontier while
 * it follows another DataNode's stamps ({@link Block#NOT_FOLLOWING}: it stamps the block itself), and whether it was
 * left out of a pipeline.
 */
public record BlockSummary(long blockId, long length, HlcTimestamp lastHlc, long pipelineEpoch, long followerFrontier,
    boolean stale) {

  /** A block this node stamps itself, opened by no pipeline. */
  public BlockSummary(long blockId, long length, HlcTimestamp lastHlc) {
    this(blockId, length, lastHlc, 0, Block.NOT_FOLLOWING, false);
  }
}
