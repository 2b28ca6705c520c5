package io.fffs.client;

/** Bytes {@code [offset, offset + length)} of a file. */
public record ByteRange(long offset, long length) {
  public long end() {
    return offset + length;
  }

  @Override
  public String toString() {
    return "[" + offset + ", " + end() + ")";
  }
}
