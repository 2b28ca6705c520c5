package io.fffs.datanode.store.log;

/** Page arithmetic shared by the write path, the read path and recovery. */
public final class Pages {
  private Pages() {}

  /** Number of pages a write of {@code length} bytes at {@code offset} touches (0 for an empty write). */
  public static int covering(long offset, long length, int pageSize) {
    return length <= 0 ? 0 : (int) ((offset + length - 1) / pageSize - offset / pageSize + 1);
  }

  /** Pages an entry of this op and range carries. */
  public static int ofEntry(BlockOp op, long offset, long length, int pageSize) {
    return op == BlockOp.WRITE ? covering(offset, length, pageSize) : 0;
  }
}
