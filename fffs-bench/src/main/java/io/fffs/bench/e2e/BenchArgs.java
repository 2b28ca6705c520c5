package io.fffs.bench.e2e;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The command line of an end-to-end benchmark: {@code <name> [--quick] [--out DIR]}.
 *
 * @param name which benchmark
 * @param quick shrink the run to under two minutes
 * @param out where {@code <name>.csv} and {@code <name>.png} go
 * @param command the command as a user types it (for the summary line)
 */
public record BenchArgs(String name, boolean quick, Path out, String command) {
  static final String USAGE = "usage: bin/fffs bench " + String.join("|", EndToEndBenchmark.NAMES)
      + " [--quick] [--out DIR]";

  public static BenchArgs parse(String[] args) {
    if (args.length == 0) {
      throw new IllegalArgumentException(USAGE);
    }
    boolean quick = false;
    Path out = Paths.get("target", "bench");
    StringBuilder command = new StringBuilder("bin/fffs bench " + args[0]);
    for (int i = 1; i < args.length; i++) {
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
    return new BenchArgs(args[0], quick, out, command.toString());
  }

  public Path csv() {
    return out.resolve(name + ".csv");
  }

  public Path png() {
    return out.resolve(name + ".png");
  }
}
