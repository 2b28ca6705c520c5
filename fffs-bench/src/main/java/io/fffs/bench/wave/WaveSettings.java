package io.fffs.bench.wave;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The knobs of {@code bin/fffs bench wave}.
 *
 * @param side the grid is side×side cells, one sensor stream each
 * @param seconds how long the sensors sample
 * @param sampleHz samples per second per stream
 * @param frameMillis time between two frames of the movie
 * @param phaseMillis frame 0's time after sample 0's, in [0, 1000/sampleHz)
 * @param latencyMillis the network's least one-way delay
 * @param jitterMillis the network's delay varies uniformly up to this much above the least
 * @param seed seeds the network's jitter
 * @param hdfs whether to run the HDFS reconstruction (needs a MiniDFSCluster)
 * @param figureFrame the frame shown side by side in the PNG (the paper shows frame 37)
 * @param out where the CSV, PNGs and GIFs go; null for none
 */
record WaveSettings(int side, int seconds, int sampleHz, long frameMillis, long phaseMillis, long latencyMillis,
    long jitterMillis, long seed, boolean hdfs, int figureFrame, Path out) {
  static final String USAGE = "usage: bin/fffs bench wave [--grid N] [--seconds S] [--latency-ms L] [--jitter-ms J]"
      + " [--phase-ms P] [--seed N] [--figure-frame K] [--no-hdfs] [--out DIR]";

  static WaveSettings defaults() {
    return new WaveSettings(10, 10, 20, 100, 25, 1, 10, 1, true, 37, Paths.get("target", "bench"));
  }

  static WaveSettings parse(String[] args) {
    WaveSettings s = defaults();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--no-hdfs")) {
        s = s.withHdfs(false);
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("'" + arg + "' needs a value, or is unknown; " + USAGE);
      }
      String v = args[++i];
      s = switch (arg) {
        case "--grid" -> new WaveSettings(positive(arg, v), s.seconds, s.sampleHz, s.frameMillis, s.phaseMillis,
            s.latencyMillis, s.jitterMillis, s.seed, s.hdfs, s.figureFrame, s.out);
        case "--seconds" -> new WaveSettings(s.side, positive(arg, v), s.sampleHz, s.frameMillis, s.phaseMillis,
            s.latencyMillis, s.jitterMillis, s.seed, s.hdfs, s.figureFrame, s.out);
        case "--latency-ms" -> new WaveSettings(s.side, s.seconds, s.sampleHz, s.frameMillis, s.phaseMillis,
            nonNegative(arg, v), s.jitterMillis, s.seed, s.hdfs, s.figureFrame, s.out);
        case "--jitter-ms" -> new WaveSettings(s.side, s.seconds, s.sampleHz, s.frameMillis, s.phaseMillis,
            s.latencyMillis, nonNegative(arg, v), s.seed, s.hdfs, s.figureFrame, s.out);
        case "--phase-ms" -> new WaveSettings(s.side, s.seconds, s.sampleHz, s.frameMillis, nonNegative(arg, v),
            s.latencyMillis, s.jitterMillis, s.seed, s.hdfs, s.figureFrame, s.out);
        case "--seed" -> new WaveSettings(s.side, s.seconds, s.sampleHz, s.frameMillis, s.phaseMillis,
            s.latencyMillis, s.jitterMillis, Long.parseLong(v), s.hdfs, s.figureFrame, s.out);
        case "--figure-frame" -> new WaveSettings(s.side, s.seconds, s.sampleHz, s.frameMillis, s.phaseMillis,
            s.latencyMillis, s.jitterMillis, s.seed, s.hdfs, (int) nonNegative(arg, v), s.out);
        case "--out" -> s.withOut(Paths.get(v));
        default -> throw new IllegalArgumentException("unknown argument '" + arg + "'; " + USAGE);
      };
    }
    if (s.phaseMillis * s.sampleHz >= 1000) {
      throw new IllegalArgumentException("--phase-ms must be below the sample period (" + 1000 / s.sampleHz
          + " ms)");
    }
    return s;
  }

  WaveSettings withHdfs(boolean on) {
    return new WaveSettings(side, seconds, sampleHz, frameMillis, phaseMillis, latencyMillis, jitterMillis, seed,
        on, figureFrame, out);
  }

  WaveSettings withOut(Path dir) {
    return new WaveSettings(side, seconds, sampleHz, frameMillis, phaseMillis, latencyMillis, jitterMillis, seed,
        hdfs, figureFrame, dir);
  }

  WaveSettings withSize(int gridSide, int runSeconds) {
    return new WaveSettings(gridSide, runSeconds, sampleHz, frameMillis, phaseMillis, latencyMillis, jitterMillis,
        seed, hdfs, figureFrame, out);
  }

  int cells() {
    return side * side;
  }

  NetworkDelay networkDelay() {
    return new NetworkDelay(latencyMillis * 1000, jitterMillis * 1000, seed);
  }

  private static int positive(String arg, String v) {
    int n = Integer.parseInt(v);
    if (n <= 0) {
      throw new IllegalArgumentException(arg + " must be positive");
    }
    return n;
  }

  private static long nonNegative(String arg, String v) {
    long n = Long.parseLong(v);
    if (n < 0) {
      throw new IllegalArgumentException(arg + " must not be negative");
    }
    return n;
  }
}
