package io.fffs.minicluster.datapath;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import java.io.IOException;
import org.apache.hadoop.fs.Path;

/** Past moments for tests that read a file as it was. */
public final class Moments {
  private Moments() {}

  /** A system time (µs) after everything {@code fs}'s cluster did so far, and before anything it does next. */
  public static long now(FreezeFrameFileSystem fs) throws IOException {
    HlcTimestamp now = fs.currentTime();
    while (PhysicalClock.system().currentTimeMicros() <= now.physicalMicros() + 1) {
      Thread.onSpinWait();
    }
    return now.physicalMicros();
  }

  /** {@code path} as of system time {@code micros}: its time marker to the microsecond. */
  public static Path at(Path path, long micros) {
    return new Path(path + "@s" + micros / 1000 + "." + String.format("%03d", micros % 1000));
  }
}
