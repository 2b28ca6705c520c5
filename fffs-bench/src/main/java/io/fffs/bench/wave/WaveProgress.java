package io.fffs.bench.wave;

import java.io.PrintStream;
import java.util.Locale;

/** Progress lines of a run on stderr (long work shows progress); silent in tests. */
final class WaveProgress {
  private final PrintStream out;
  private final long startNanos = System.nanoTime();

  WaveProgress(PrintStream out) {
    this.out = out;
  }

  static WaveProgress silent() {
    return new WaveProgress(null);
  }

  void phase(String what) {
    if (out != null) {
      out.printf(Locale.ROOT, "[%6.1f s] %s%n", (System.nanoTime() - startNanos) / 1e9, what);
    }
  }

  void writers(String side, SensorFleet.Stats s) {
    phase(String.format(Locale.ROOT, "%s: %,d of %,d records stored; storage lag mean %.1f ms, max %.1f ms", side,
        s.records(), s.expectedRecords(), s.meanLagMs(), s.maxLagMs()));
  }
}
