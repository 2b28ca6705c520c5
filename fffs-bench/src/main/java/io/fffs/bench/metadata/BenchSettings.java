package io.fffs.bench.metadata;

import io.fffs.bench.e2e.BenchArgs;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * How long each measurement runs. Every contender of a row is warmed up once, then measured in {@code rounds}
 * rounds whose order alternates (A B, B A, ...), so neither side always runs first on the shared cores.
 *
 * @param jitWarmupMillis before the first row, each operation on each side (8 threads), so that every JVM has
 *     compiled its hot code before anything is measured
 * @param warmupMillis warm-up per contender and row
 * @param measureMillis one measured stretch per contender and round
 * @param rounds measured stretches per contender and row
 * @param out where the CSV and the plot go
 * @param command the command as a user types it (for the summary line)
 */
record BenchSettings(boolean quick, long jitWarmupMillis, long warmupMillis, long measureMillis, int rounds, Path out,
    String command) {
  static final String USAGE = "usage: bin/fffs bench metadata [--quick] [--out DIR]";

  static BenchSettings parse(String[] args) {
    boolean quick = false;
    Path out = Paths.get("target", "bench");
    StringBuilder command = new StringBuilder("bin/fffs bench metadata");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--out" -> {
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException("--out needs a directory; " + USAGE);
          }
          out = Paths.get(args[++i]);
          command.append(" --out ").append(out);
          continue;
        }
        default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'; " + USAGE);
      }
      command.append(" --quick");
    }
    String typed = command.toString();
    return quick ? new BenchSettings(true, 300, 150, 150, 3, out, typed)
        : new BenchSettings(false, 3_000, 1_000, 750, 6, out, typed);
  }

  long jitWarmupNanos() {
    return jitWarmupMillis * 1_000_000L;
  }

  long warmupNanos() {
    return warmupMillis * 1_000_000L;
  }

  long measureNanos() {
    return measureMillis * 1_000_000L;
  }

  /** Where {@code metadata.csv} and {@code metadata.png} go, and the command for the run log. */
  BenchArgs report() {
    return new BenchArgs("metadata", quick, out, command);
  }
}
