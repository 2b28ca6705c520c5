package io.fffs.bench.e2e;

import io.fffs.bench.child.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What one write of a fresh client costs each side, FFFS beside HDFS: per round and system, a cluster in a JVM of
 * its own ({@link FreshServerMain}, persistence on) and a fresh client JVM ({@link FreshClientMain}) that writes
 * one file in 128 KiB calls; the CPU time each JVM used for the write (all its threads, the JITs' included) is
 * what a loaded machine inflates much less than the wall-clock rate, printed beside it. Systems alternate, FFFS
 * first in even rounds; medians at the end.
 * {@code java -cp ... io.fffs.bench.e2e.FreshWriteCpu [MIB] [ROUNDS] [DATANODES] [REPLICATION] [ARENA_MIB]}
 * (1024, 3, 1, 1, 256).
 */
public final class FreshWriteCpu {
  private static final int IO = 128 << 10;

  private FreshWriteCpu() {}

  public static void main(String[] args) throws Exception {
    long mib = args.length > 0 ? Long.parseLong(args[0]) : 1024;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int dataNodes = args.length > 2 ? Integer.parseInt(args[2]) : 1;
    int replication = args.length > 3 ? Integer.parseInt(args[3]) : 1;
    long arenaMib = args.length > 4 ? Long.parseLong(args[4]) : 256;
    Map<String, List<double[]>> results = new TreeMap<>();
    for (int round = 0; round < rounds; round++) {
      List<String> order = round % 2 == 0 ? List.of("FFFS", "HDFS") : List.of("HDFS", "FFFS");
      for (String system : order) {
        double[] r = run(system, mib << 20, dataNodes, replication, arenaMib << 20);
        results.computeIfAbsent(system, s -> new ArrayList<>()).add(r);
        System.out.printf(Locale.ROOT, "round %d %s: %.3f GB/s, client CPU %.0f ms, cluster CPU %.0f ms%n", round,
            system, r[0], r[1], r[2]);
      }
    }
    for (Map.Entry<String, List<double[]>> e : results.entrySet()) {
      System.out.printf(Locale.ROOT, "median of %d: %s writing %d MiB at replication %d on %d DataNode(s): %.3f"
          + " GB/s, client CPU %.0f ms, cluster CPU %.0f ms%n", rounds, e.getKey(), mib, replication, dataNodes,
          median(e.getValue(), 0), median(e.getValue(), 1), median(e.getValue(), 2));
    }
  }

  /** GB/s, the client JVM's CPU ms and the cluster JVM's CPU ms for one write. */
  private static double[] run(String system, long bytes, int dataNodes, int replication, long arena)
      throws IOException {
    Path dir = Files.createTempDirectory("fffs-fresh-write");
    try (ChildJvm cluster = ChildJvm.start(system + " cluster", "3g", FreshServerMain.class, system, dir.toString(),
        String.valueOf(arena), String.valueOf(dataNodes), String.valueOf(replication))) {
      String uri = cluster.ask("uri")[0];
      try (ChildJvm client = ChildJvm.start(system + " client", "1g", FreshClientMain.class, uri,
          "fffs.replication=" + replication, "dfs.replication=" + replication)) {
        long before = Long.parseLong(cluster.ask("cpu")[0]);
        String[] answer = client.ask("write /fresh-write " + bytes + " " + IO);
        long clusterCpu = Long.parseLong(cluster.ask("cpu")[0]) - before;
        return new double[] {Double.parseDouble(answer[0]), Double.parseDouble(answer[1]), clusterCpu};
      }
    } finally {
      if (Files.exists(dir)) {  // HDFS's cluster removes its own
        try (Stream<Path> paths = Files.walk(dir)) {
          paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
  }

  private static double median(List<double[]> rows, int column) {
    double[] values = rows.stream().mapToDouble(r -> r[column]).sorted().toArray();
    return values[values.length / 2];
  }
}
