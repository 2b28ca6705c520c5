package io.fffs.bench.e2e;

import java.util.Locale;

/** Progress on stderr: each line prefixed with the seconds since the run started and the 1-minute load average. */
public final class Progress {
  private static final long STARTED = System.nanoTime();

  private Progress() {}

  public static void say(String format, Object... args) {
    System.err.printf(Locale.ROOT, "[%6.1f s, load %4.1f] %s%n", (System.nanoTime() - STARTED) / 1e9,
        Machine.loadAverage(), String.format(Locale.ROOT, format, args));
  }

  public static double elapsedSeconds() {
    return (System.nanoTime() - STARTED) / 1e9;
  }
}
