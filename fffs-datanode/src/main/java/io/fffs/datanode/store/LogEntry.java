package io.fffs.datanode.store;

import io.fffs.datanode.store.log.BlockOp;

/**
 * One entry of a block's log as another replica must apply it to hold the same history: its op, HLC (packed), user
 * time, the range it wrote ({@code offset}, {@code length}; a truncate's new length in {@code offset}) and the
 * block's length after it.
 */
public record LogEntry(BlockOp op, long hlc, long userTime, long offset, int length, long lengthAfter) {}
