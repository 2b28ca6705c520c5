package io.fffs.common.time;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;

/**
 * {@code CLOCK_SKEW}: a peer's HLC is further ahead of the local physical clock than the max offset allows. The
 * local clock is left unchanged, so one bad peer cannot drag a node's clock into the future.
 */
public final class ClockSkewException extends FffsException {
  private static final long serialVersionUID = 1L;

  private final HlcTimestamp remote;
  private final long localMicros;
  private final long maxOffsetMicros;

  public ClockSkewException(HlcTimestamp remote, long localMicros, long maxOffsetMicros) {
    super(ErrorCode.CLOCK_SKEW, "peer clock " + remote + " is "
        + TimeText.duration(remote.physicalMicros() - localMicros) + " ahead of the local clock "
        + TimeText.isoMicros(localMicros) + ", more than the max offset " + TimeText.duration(maxOffsetMicros)
        + " (" + TimeConfigKeys.MAX_OFFSET_KEY + "); check NTP/PTP on both hosts");
    this.remote = remote;
    this.localMicros = localMicros;
    this.maxOffsetMicros = maxOffsetMicros;
  }

  public HlcTimestamp remote() {
    return remote;
  }

  public long localMicros() {
    return localMicros;
  }

  public long maxOffsetMicros() {
    return maxOffsetMicros;
  }

  /** How far the peer is ahead, in µs. */
  public long offsetMicros() {
    return remote.physicalMicros() - localMicros;
  }
}
