package io.fffs.client.data;

import io.fffs.common.time.HlcTimestamp;

/** A block as of a time: whether it existed, its length, the HLC of the entry that made that state. */
public final class BlockInfo {
  private final boolean exists;
  private final long length;
  private final HlcTimestamp resolvedHlc;

  public BlockInfo(boolean exists, long length, HlcTimestamp resolvedHlc) {
    this.exists = exists;
    this.length = length;
    this.resolvedHlc = resolvedHlc;
  }

  public boolean exists() {
    return exists;
  }

  public long length() {
    return length;
  }

  public HlcTimestamp resolvedHlc() {
    return resolvedHlc;
  }
}
