package io.fffs.client;

import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.time.TimeText;

/**
 * One change of a file's bytes as its DataNode logged it ({@code bin/fffs versions --writes}): a packet written
 * (each hflush, hsync or close sends what was buffered as packets) or a block cut by a truncate.
 *
 * @param hlc the entry's stamp; a read at any system time from its physical part on sees it
 * @param userTime the user time the file's plug-in gave the entry (0 without a plug-in)
 * @param kind a write or a cut
 * @param offset a write: its first byte in the file; a cut: the file offset it cut at
 * @param length a write: bytes written; a cut: 0
 */
public record FileWrite(HlcTimestamp hlc, long userTime, Kind kind, long offset, long length) {
  /** What the entry did. */
  public enum Kind { WRITE, TRUNCATE }

  /** The marker that reads the file as this write left it, e.g. {@code @s1763719200000.123}. */
  public String marker() {
    return TimeSpec.system(hlc.physicalMicros()).toMarker();
  }

  /** {@code marker  ISO-time  write [from, to)  N bytes  [user time]}, as {@code bin/fffs versions --writes} prints. */
  @Override
  public String toString() {
    String what = kind == Kind.WRITE
        ? "write [" + offset + ", " + (offset + length) + ")\t" + length + " bytes"
        : "truncate at " + offset;
    return marker() + "\t" + TimeText.isoMicros(hlc.physicalMicros()) + "\t" + what
        + (userTime > 0 ? "\tuser " + TimeText.isoMicros(userTime) : "");
  }
}
