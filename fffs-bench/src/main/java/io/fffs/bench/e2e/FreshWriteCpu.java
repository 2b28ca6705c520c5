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
 * first in even rounds; medians at the end. With {@code SETTLE_S} > 0 the cluster's CPU is also read that many
 * seconds after the write returned: what finishing the write's persistence cost too (FFFS fsyncs at the latest
 * {@code fffs.datanode.persistence.sync-interval} after its last fsync; HDFS leaves writeback to the kernel).
 * Settings after it ({@code KEY=VALUE}) go to both clusters' configurations; {@code -Dfffs.bench.systems=FFFS}
 * runs one system only; {@code -Dfffs.bench.threads=true} also prints the thread groups that used each JVM's CPU.
 * {@code java -cp ... io.fffs.bench.e2e.FreshWriteCpu [MIB] [ROUNDS] [DATANODES] [REPLICATION] [ARENA_MIB]
 * [SETTLE_S] [KEY=VALUE...]} (1024, 3, 1, 1, 256, 0).
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
    int settleSeconds = args.length > 5 ? Integer.parseInt(args[5]) : 0;
    List<String> settings = args.length > 6 ? List.of(args).subList(6, args.length) : List.of();
    List<String> systems = List.of(System.getProperty("fffs.bench.systems", "FFFS,HDFS").split(","));
    Map<String, List<double[]>> results = new TreeMap<>();
    for (int round = 0; round < rounds; round++) {
      List<String> order = round % 2 == 0 ? List.of("FFFS", "HDFS") : List.of("HDFS", "FFFS");
      for (String system : order) {
        if (!systems.contains(system)) {
          continue;
        }
        double[] r = run(system, mib << 20, dataNodes, replication, arenaMib << 20, settleSeconds, settings);
        results.computeIfAbsent(system, s -> new ArrayList<>()).add(r);
        System.out.printf(Locale.ROOT, "round %d %s: %.3f GB/s, client CPU %.0f ms, cluster CPU %.0f ms%s%n",
            round, system, r[0], r[1], r[2], settled(r, settleSeconds));
      }
    }
    for (Map.Entry<String, List<double[]>> e : results.entrySet()) {
      System.out.printf(Locale.ROOT, "median of %d: %s writing %d MiB at replication %d on %d DataNode(s): %.3f"
          + " GB/s, client CPU %.0f ms, cluster CPU %.0f ms%s%n", rounds, e.getKey(), mib, replication, dataNodes,
          median(e.getValue(), 0), median(e.getValue(), 1), median(e.getValue(), 2),
          settled(new double[] {0, 0, 0, median(e.getValue(), 3)}, settleSeconds));
    }
  }

  private static String settled(double[] r, int settleSeconds) {
    return settleSeconds <= 0 ? "" : String.format(Locale.ROOT, " (%.0f ms %d s later)", r[3], settleSeconds);
  }

  /**
   * GB/s, the client JVM's CPU ms and the cluster JVM's CPU ms for one write, and the cluster's {@code settle}
   * seconds after it returned.
   */
  private static double[] run(String system, long bytes, int dataNodes, int replication, long arena, int settle,
      List<String> settings) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("fffs-fresh-write");
    List<String> serverArgs = new ArrayList<>(List.of(system, dir.toString(), String.valueOf(arena),
        String.valueOf(dataNodes), String.valueOf(replication)));
    serverArgs.addAll(settings);
    try (ChildJvm cluster = ChildJvm.start(system + " cluster", "3g", FreshServerMain.class,
        serverArgs.toArray(new String[0]))) {
      String uri = cluster.ask("uri")[0];
      try (ChildJvm client = ChildJvm.start(system + " client", "1g", FreshClientMain.class, uri,
          "fffs.replication=" + replication, "dfs.replication=" + replication)) {
        long before = Long.parseLong(cluster.ask("cpu")[0]);
        String clientThreads = client.ask("threads")[0];
        String clusterThreads = cluster.ask("threads")[0];
        String[] answer = client.ask("write /fresh-write " + bytes + " " + IO);
        long clusterCpu = Long.parseLong(cluster.ask("cpu")[0]) - before;
        if (Boolean.getBoolean("fffs.bench.threads")) {
          System.out.println("  " + system + " client threads: " + ThreadCpu.delta(clientThreads,
              client.ask("threads")[0], 8));
          System.out.println("  " + system + " cluster threads: " + ThreadCpu.delta(clusterThreads,
              cluster.ask("threads")[0], 8));
        }
        Thread.sleep(settle * 1000L);
        long settledCpu = Long.parseLong(cluster.ask("cpu")[0]) - before;
        return new double[] {Double.parseDouble(answer[0]), Double.parseDouble(answer[1]), clusterCpu, settledCpu};
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
