package io.fffs.bench.metadata;

import io.fffs.bench.metadata.MetadataSide.Measured;
import io.fffs.bench.metadata.ThroughputRunner.Measurement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * What a change costs FFFS with three NameNodes (Raft) against one: each side a cluster and its clients in a JVM of
 * its own ({@link ChildSide}), measured in alternating rounds in the same run; per side the changes per second and
 * the CPU time its JVM spent per change, its JIT compilers' left out (on a loaded machine they stay busy long after
 * the warm-up). CPU per change is what a loaded machine inflates much less than the rate.
 * {@code java -cp "$(bin/fffs classpath)" io.fffs.bench.metadata.HaChangeCpu [SECONDS] [ROUNDS] [WARMUP_SECONDS]}
 * (2, 4, 8).
 */
public final class HaChangeCpu {
  private static final int[] THREADS = {1, 8};

  private HaChangeCpu() {}

  public static void main(String[] args) throws Exception {
    long nanos = (long) (Double.parseDouble(args.length > 0 ? args[0] : "2") * 1e9);
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    long warmup = (long) (Double.parseDouble(args.length > 2 ? args[2] : "8") * 1e9);
    Path base = Files.createTempDirectory("fffs-ha-cpu");
    try (ChildSide one = ChildSide.start("FFFS", 8, base.resolve("one"));
        ChildSide three = ChildSide.start("FFFS-HA", 8, base.resolve("three"))) {
      List<ChildSide> sides = new ArrayList<>(List.of(one, three));
      for (ChildSide side : sides) {
        side.prepare();
      }
      System.out.printf(Locale.ROOT, "| op | threads | 1 NameNode /s | CPU µs/op | 3 NameNodes /s | CPU µs/op | 3 / 1 |%n"
          + "|---|---:|---:|---:|---:|---:|---:|%n");
      for (Measured op : new Measured[] {Measured.CREATE, Measured.MKDIRS}) {
        for (ChildSide side : sides) {
          side.run(op, 8, warmup);
        }
        for (int threads : THREADS) {
          Measurement[] rate = {Measurement.ZERO, Measurement.ZERO};
          double[] cpu = new double[2];
          List<Integer> order = new ArrayList<>(List.of(0, 1));
          for (int round = 0; round < rounds; round++) {
            for (int i : order) {
              ChildSide side = sides.get(i);
              long before = side.cpuNanos();
              rate[i] = rate[i].plus(side.run(op, threads, nanos));
              cpu[i] += side.cpuNanos() - before;
            }
            Collections.reverse(order);
          }
          System.out.printf(Locale.ROOT, "| %s | %d | %.0f | %.0f | %.0f | %.0f | %.2f |%n",
              op == Measured.CREATE ? "create+close" : "mkdirs", threads, rate[0].opsPerSecond(),
              cpu[0] / 1e3 / rate[0].ops(), rate[1].opsPerSecond(), cpu[1] / 1e3 / rate[1].ops(),
              rate[1].opsPerSecond() / rate[0].opsPerSecond());
        }
      }
    } finally {
      io.fffs.bench.BenchFiles.deleteRecursively(base);
    }
  }
}
