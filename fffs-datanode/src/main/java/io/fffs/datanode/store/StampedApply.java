package io.fffs.datanode.store;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.datanode.store.log.Block;
import io.fffs.datanode.store.log.BlockLog;

/**
 * The checks of an entry a follower applies at its primary's stamps ({@link ReplicaStamp}), run against the block's
 * latest state before anything is allocated or changed. An entry that does not continue this replica's log exactly
 * as it continued the primary's is {@code REPLICA_STALE}: the replica misses entries (or holds others) and must be
 * left out of the pipeline, never patched.
 */
final class StampedApply {
  private StampedApply() {}

  /** Refuses a change that is not stamped to a block this node follows: another DataNode stamps it. */
  static void checkUnstamped(Block block, String what) throws FffsException {
    if (block.replicaFrontier() != Block.NOT_FOLLOWING || block.stale()) {
      throw new FffsException(ErrorCode.REPLICA_STALE, "block " + block.id() + " is " + (block.stale()
          ? "stale" : "following another DataNode's stamps") + " here, so it cannot " + what + " with a stamp of"
          + " its own; open the pipeline with this DataNode as primary first");
    }
  }

  /**
   * Checks a stamped write of {@code count} bytes at {@code offset} (a TRUNCATE to {@code offset} when
   * {@code count} is -1) against the block's last entry {@code last} (-1: none), whether the block exists after
   * it, its length and its user time.
   */
  static void check(Block block, int last, boolean exists, long length, long previousUserTime, long offset,
      int count, ReplicaStamp stamp) throws FffsException {
    if (block.replicaFrontier() == Block.NOT_FOLLOWING || block.stale()) {
      throw stale(block, block.stale() ? "it is stale here (left out of the pipeline)"
          : "this DataNode is not following a primary for it; open the pipeline (REPLICA_OPEN) first");
    }
    boolean creates = stamp.createHlc() != 0;
    if (creates == exists) {
      throw stale(block, creates ? "the primary created it with this write, but it already exists here"
          : "the primary did not create it with this write, but it does not exist here");
    }
    long first = creates ? stamp.createHlc() : stamp.entryHlc();
    BlockLog log = block.log();
    if (last >= 0 && first <= log.hlc(last)) {
      throw stale(block, "the stamp " + HlcTimestamp.valueOf(first) + " is not above its last entry here, "
          + HlcTimestamp.valueOf(log.hlc(last)));
    }
    if (creates && stamp.entryHlc() < stamp.createHlc() + (count > 0 ? 1 : 0)) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "the stamps of a write to block " + block.id()
          + " put its WRITE entry at or below its CREATE entry; nothing was written");
    }
    long after = count < 0 ? offset : Math.max(length, offset + count);
    if (after != stamp.lengthAfter()) {
      throw stale(block, "it would be " + after + " bytes long after the entry here but is "
          + stamp.lengthAfter() + " on the primary");
    }
    if (stamp.userTime() < previousUserTime) {
      throw stale(block, "the entry's user time goes back from " + previousUserTime + " to " + stamp.userTime());
    }
  }

  private static FffsException stale(Block block, String why) {
    return new FffsException(ErrorCode.REPLICA_STALE, "this replica of block " + block.id() + " cannot apply the"
        + " primary's entry: " + why + "; nothing was changed");
  }
}
