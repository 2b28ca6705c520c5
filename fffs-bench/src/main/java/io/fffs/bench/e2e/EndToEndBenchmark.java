package io.fffs.bench.e2e;

import io.fffs.bench.BenchLogging;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code bin/fffs bench <name> [--quick] [--out DIR]}: one end-to-end benchmark of issue 7, FFFS beside its
 * baselines in the same run. Shows progress on stderr, prints its result table on stdout, writes
 * {@code DIR/<name>.csv} and {@code DIR/<name>.png}, and appends a one-line summary to {@code docs/benchmarks.md}.
 */
public final class EndToEndBenchmark {
  static final List<String> NAMES = List.of("throughput", "latency", "snapshots", "persistence", "memory", "scaling",
      "history", "fresh", "replication", "tls");

  /** One benchmark: runs in {@code tmp}, writes its CSV and PNG, returns the one-line summary. */
  interface Run {
    String run(BenchArgs args, Path tmp) throws Exception;
  }

  private EndToEndBenchmark() {}

  public static void main(String[] argv) {
    BenchArgs args;
    try {
      args = BenchArgs.parse(argv);
      if (!NAMES.contains(args.name())) {
        throw new IllegalArgumentException("unknown benchmark '" + args.name() + "'; " + BenchArgs.USAGE);
      }
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    System.setProperty("java.awt.headless", "true");
    BenchLogging.quiet();
    Run run = switch (args.name()) {
      case "throughput" -> new ThroughputBenchmark();
      case "latency" -> new LatencyBenchmark();
      case "snapshots" -> new SnapshotsBenchmark();
      case "persistence" -> new PersistenceBenchmark();
      case "memory" -> new MemoryBenchmark();
      case "scaling" -> new ScalingBenchmark();
      case "history" -> new HistoryBenchmark();
      case "fresh" -> new FreshBenchmark();
      case "replication" -> new ReplicationBenchmark();
      case "tls" -> new TlsBenchmark();
      default -> throw new AssertionError(args.name());
    };
    Path tmp = null;
    int status = 0;
    try {
      tmp = Files.createTempDirectory("fffs-bench-" + args.name() + "-");
      Progress.say("%s benchmark, %s mode, %s; output to %s", args.name(), args.quick() ? "quick" : "full",
          Machine.describe(), args.out().toAbsolutePath());
      String summary = run.run(args, tmp);
      Report.finish(args, summary);
    } catch (Exception | LinkageError e) {
      e.printStackTrace();
      status = 1;
    } finally {
      try {
        Clusters.deleteRecursively(tmp);
      } catch (Exception e) {
        System.err.println("could not remove " + tmp + ": " + e);
      }
    }
    // Clusters that failed half-way can leave non-daemon threads behind.
    System.exit(status);
  }
}
