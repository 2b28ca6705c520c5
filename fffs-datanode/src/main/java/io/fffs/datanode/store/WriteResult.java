package io.fffs.datanode.store;

import io.fffs.common.time.HlcTimestamp;

/** What a mutation did: the HLC of the (last) entry it logged, the block's length after it, and that entry's index. */
public record WriteResult(HlcTimestamp hlc, long blockLength, int logIndex) {}
