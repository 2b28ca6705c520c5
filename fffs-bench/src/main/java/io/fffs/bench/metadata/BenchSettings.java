package io.fffs.bench.metadata;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * How long each measurement runs. Every contender of a row is warmed up once, then measured in {@code rounds}
 * rounds whose order alternates (A B, B A, ...), so neither side always runs first on the shared cores.
 *
 * @param warmupMillis warm-up per contender and row
 * @param measureMillis one measured stretch per contender and round
 * @param rounds measured stretches per contender and row
 * @param out where the CSV goes
 */
record BenchSettings(boolean quick, long warmupMillis, long measureMillis, int rounds, Path out) {
  static final String USAGE = "usage: bin/fffs bench metadata [--quick] [--out DIR]";

  static BenchSettings parse(String[] args) {
    boolean quick = false;
    Path out = Paths.get("target", "bench");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--out" -> {
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException("--out needs a directory; " + USAGE);
          }
          out = Paths.get(args[++i]);
        }
        default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'; " + USAGE);
      }
    }
    return quick ? new BenchSettings(true, 150, 150, 3, out) : new BenchSettings(false, 1_000, 750, 6, out);
  }

  long warmupNanos() {
    return warmupMillis * 1_000_000L;
  }

  long measureNanos() {
    return measureMillis * 1_000_000L;
  }
}
