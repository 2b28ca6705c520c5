package io.fffs.client;

import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.time.TimeText;

/** One past state of a path: when it began (HLC), the marker that reads it, its length, what made it. */
public final class FileVersion {
  private final HlcTimestamp hlc;
  private final long length;
  private final String change;
  /** Where reads of it start when it began before the history horizon; -1 when at its start. */
  private final long readableFromMicros;

  public FileVersion(HlcTimestamp hlc, long length, String change, long readableFromMicros) {
    this.hlc = hlc;
    this.length = length;
    this.change = change;
    this.readableFromMicros = readableFromMicros;
  }

  public HlcTimestamp hlc() {
    return hlc;
  }

  /**
   * The system time that reads this version: the HLC's physical part, µs; for a version that began before the
   * history horizon and is still current there, the horizon.
   */
  public TimeSpec time() {
    return TimeSpec.system(readableFromMicros >= 0 ? readableFromMicros : hlc.physicalMicros());
  }

  /** The path marker that reads this version, e.g. {@code @s1763719200000.123}. */
  public String marker() {
    return time().toMarker();
  }

  /** The file length in this version (0 for a deletion). */
  public long length() {
    return length;
  }

  /** The change that made this version ({@code create}, {@code fsync}, {@code complete}, {@code delete}, ...). */
  public String change() {
    return change;
  }

  /** {@code marker  ISO-time  length  change}, as {@code bin/fffs versions} prints it. */
  @Override
  public String toString() {
    return marker() + "\t" + TimeText.isoMicros(hlc.physicalMicros()) + "\t" + length + "\t" + change
        + (readableFromMicros >= 0 ? "\t(readable from the horizon)" : "");
  }
}
