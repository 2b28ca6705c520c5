package io.fffs.bench.wave;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Everything a run leaves in its output directory. */
final class WaveOutputs {
  private final WaveSettings settings;
  private final List<Movie> movies;

  WaveOutputs(WaveSettings settings, List<Movie> movies) {
    this.settings = settings;
    this.movies = movies;
  }

  void writeAll(Path dir) throws IOException {
    new WaveReport(settings, movies).writeCsv(dir.resolve("wave-frames.csv"));
  }
}
