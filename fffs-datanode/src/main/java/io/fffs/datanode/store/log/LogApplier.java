package io.fffs.datanode.store.log;

/**
 * The one mutation path of a block: appends an entry to its log and records the pages it wrote in the page version
 * index. Live writes and recovery both come through here; the caller holds the block's write lock.
 */
public final class LogApplier {
  private LogApplier() {}

  /** Appends the entry and returns its log index. */
  public static int apply(Block block, BlockOp op, long userTime, long hlc, long offset, int length,
      long lengthAfter, long firstSeq, long diskLoc, int pageSize) {
    int index = block.log().append(op, userTime, hlc, offset, length, lengthAfter, firstSeq, diskLoc);
    int pages = Pages.ofEntry(op, offset, length, pageSize);
    int firstPage = (int) (offset / pageSize);
    for (int j = 0; j < pages; j++) {
      block.index().add(firstPage + j, index);
    }
    return index;
  }
}
