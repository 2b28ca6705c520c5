package io.fffs.minicluster.contract.temporal;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import java.io.IOException;

/** What the FFFS runs of the temporal contracts share. */
public final class FffsTemporalContracts {
  private FffsTemporalContracts() {}

  /**
   * The cluster's HLC now, once the local clock (the cluster's, in a mini-cluster) has passed it: everything done
   * so far is stamped at or before it and anything done next after it.
   */
  public static long momentBetweenChanges(FreezeFrameFileSystem fs) throws IOException {
    HlcTimestamp now = fs.currentTime();
    while (PhysicalClock.system().currentTimeMicros() <= now.physicalMicros() + 1) {
      Thread.onSpinWait();
    }
    return now.physicalMicros();
  }
}
