package io.fffs.datanode.server;

import io.fffs.common.time.HlcTimestamp;

/** Told of every write the data server applied (for the DataNode's blockReceived reports). */
@FunctionalInterface
public interface WriteListener {
  /** Called on the store writer thread after the write; must not block. */
  void written(long blockId, long blockLength);

  /**
   * {@link #written(long, long)} with the HLC of the block's last entry after the change, which tells replicas of
   * the block apart (one with an older last entry misses entries).
   */
  default void written(long blockId, long blockLength, HlcTimestamp lastEntryHlc) {
    written(blockId, blockLength);
  }

  /**
   * The replica of {@code blockId} was opened in a write pipeline (as its primary, a follower, or left out) or its
   * pipeline ended here: where it stands changed, which the NameNode orders an open block's replicas by.
   */
  default void standingChanged(long blockId) {
  }
}
