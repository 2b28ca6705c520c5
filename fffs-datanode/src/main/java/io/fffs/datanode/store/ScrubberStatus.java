package io.fffs.datanode.store;

/**
 * What the background scrubber has found so far.
 *
 * @param enabled whether it runs ({@code fffs.datanode.scrubber.bytes-per-second} > 0 and persistence on)
 * @param passes full passes over the data directory completed
 * @param bytesVerified bytes of segment records whose CRC32Cs (record and pages) were checked
 * @param corruptions damaged records found (each reported once per pass)
 * @param lastCorruption the last one: segment file and offset and what failed; null if none
 */
public record ScrubberStatus(boolean enabled, long passes, long bytesVerified, long corruptions,
    String lastCorruption) {
  public static final ScrubberStatus DISABLED = new ScrubberStatus(false, 0, 0, 0, null);
}
