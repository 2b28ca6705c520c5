package io.fffs.datanode.store.persist;

import io.fffs.datanode.store.log.BlockOp;

/**
 * One block-log entry's fields as they go to or come from a segment file; {@code firstSeq} is the arena sequence
 * number of its first page (live entries) and {@code pageCount} how many pages follow from its range.
 */
public record EntryMeta(long blockId, int logIndex, BlockOp op, long hlc, long userTime, long offset, int length,
    long lengthAfter, long firstSeq, int pageCount) {}
