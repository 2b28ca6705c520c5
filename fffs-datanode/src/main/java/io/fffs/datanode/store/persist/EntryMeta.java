package io.fffs.datanode.store.persist;

import io.fffs.datanode.store.log.BlockOp;

/**
 * One block-log entry's fields as they go to or come from a segment file; {@code firstSeq} is the arena sequence
 * number of its first page (live entries) and {@code pageCount} how many pages follow from its range.
 * {@code trackHlc} is the key the {@link DurabilityTracker} knows the entry by until it is durable: its own HLC,
 * except for an entry applied at another replica's stamp, which gets a local tick (foreign HLCs do not ascend with
 * this node's ticks).
 */
public record EntryMeta(long blockId, int logIndex, BlockOp op, long hlc, long userTime, long offset, int length,
    long lengthAfter, long firstSeq, int pageCount, long trackHlc) {
  public EntryMeta(long blockId, int logIndex, BlockOp op, long hlc, long userTime, long offset, int length,
      long lengthAfter, long firstSeq, int pageCount) {
    this(blockId, logIndex, op, hlc, userTime, offset, length, lengthAfter, firstSeq, pageCount, hlc);
  }
}
