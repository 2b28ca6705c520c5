package io.fffs.client.data;

import io.fffs.common.time.HlcTimestamp;

/** The outcome of a block read: bytes copied, and the block as of the time read. */
public final class ReadResult {
  private final int bytesRead;
  private final long blockLength;
  private final HlcTimestamp resolvedHlc;

  public ReadResult(int bytesRead, long blockLength, HlcTimestamp resolvedHlc) {
    this.bytesRead = bytesRead;
    this.blockLength = blockLength;
    this.resolvedHlc = resolvedHlc;
  }

  public int bytesRead() {
    return bytesRead;
  }

  /** The block's length as of the time read. */
  public long blockLength() {
    return blockLength;
  }

  /** HLC of the block-log entry the read resolved to. */
  public HlcTimestamp resolvedHlc() {
    return resolvedHlc;
  }
}
