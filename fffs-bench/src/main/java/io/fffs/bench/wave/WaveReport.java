package io.fffs.bench.wave;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** The results as a Markdown table (stdout and docs) and as a CSV of per-frame metrics. */
final class WaveReport {
  static final String CSV_HEADER = "reconstruction,frame,frame_time_us,exact_fraction,mean_error_ms,max_error_ms,"
      + "mixed,missing_cells,causality_violations,snapshot_late_ms";

  private final WaveSettings settings;
  private final List<Movie> movies;

  WaveReport(WaveSettings settings, List<Movie> movies) {
    this.settings = settings;
    this.movies = movies;
  }

  void print(PrintStream out) {
    out.printf(Locale.ROOT, "%nwave experiment: %d×%d streams, %d s at %d samples/s, a frame every %d ms (phase %d"
        + " ms after a sample), network delay %d–%d ms, seed %d, Java %s, %d cores%n%n", settings.side(),
        settings.side(), settings.seconds(), settings.sampleHz(), settings.frameMillis(), settings.phaseMillis(),
        settings.latencyMillis(), settings.latencyMillis() + settings.jitterMillis(), settings.seed(),
        System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
    out.print(table());
  }

  /** One row per reconstruction. */
  String table() {
    StringBuilder b = new StringBuilder();
    b.append("| reconstruction | frames | exact frames | exact cells | mean error (ms) | max error (ms) "
        + "| mixed frames | frames violating causality | records stored | storage lag mean / max (ms) |\n");
    b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Movie m : movies) {
      MovieSummary s = m.summary();
      SensorFleet.Stats w = m.writers();
      b.append(String.format(Locale.ROOT, "| %s | %d | %d | %.1f %% | %.1f | %.0f | %d | %d | %,d of %,d "
          + "| %.1f / %.0f |%n", m.reconstruction().title, s.frames(), s.exactFrames(), 100 * s.exactFraction(),
          s.meanErrorMs(), s.maxErrorMs(), s.mixedFrames(), s.violatingFrames(), w.records(), w.expectedRecords(),
          w.meanLagMs(), w.maxLagMs()));
    }
    return b.toString();
  }

  void writeCsv(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      w.write(CSV_HEADER + "\n");
      for (Movie m : movies) {
        for (FrameMetrics f : m.metrics()) {
          w.write(String.format(Locale.ROOT, "%s,%d,%d,%.4f,%.2f,%.1f,%b,%d,%d,%s%n", m.reconstruction().id,
              f.frame(), f.frameTimeMicros(), f.exactFraction(), f.meanErrorMs(), f.maxErrorMs(), f.mixed(),
              f.missingCells(), f.causalityViolations(),
              Double.isNaN(f.takenLateMs()) ? "" : String.format(Locale.ROOT, "%.1f", f.takenLateMs())));
        }
      }
    }
  }
}
