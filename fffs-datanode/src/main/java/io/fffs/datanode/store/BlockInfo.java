package io.fffs.datanode.store;

import io.fffs.common.time.HlcTimestamp;

/**
 * A block as of a time: whether it existed (created and not deleted), its length then, and the log entry the time
 * resolved to ({@code logIndex} -1 and {@link HlcTimestamp#ZERO} if the block had no entry yet).
 */
public record BlockInfo(long blockId, boolean exists, long length, HlcTimestamp hlc, int logIndex) {}
