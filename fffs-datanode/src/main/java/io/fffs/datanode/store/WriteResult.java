package io.fffs.datanode.store;

import io.fffs.common.time.HlcTimestamp;

/**
 * What a mutation did: the HLC of the (last) entry it logged, the block length after it, that entry's index, the
 * HLC of the CREATE entry it logged first (0: none) and the entry's user time — what a follower needs to apply the
 * same entries ({@link ReplicaStamp}).
 */
public record WriteResult(HlcTimestamp hlc, long blockLength, int logIndex, long createHlc, long userTime) {
  public WriteResult(HlcTimestamp hlc, long blockLength, int logIndex) {
    this(hlc, blockLength, logIndex, 0, 0);
  }
}
