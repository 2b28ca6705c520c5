package io.fffs.datanode.store;

import io.fffs.common.time.HlcTimestamp;

/** One line of a block report: a live block, its current length and the HLC of its last entry. */
public record BlockSummary(long blockId, long length, HlcTimestamp lastHlc) {}
