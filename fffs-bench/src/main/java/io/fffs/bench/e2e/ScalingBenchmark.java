package io.fffs.bench.e2e;

import io.fffs.minicluster.MiniFffsCluster;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.fs.FileSystem;
import org.knowm.xchart.XYChart;

/**
 * Paper Fig. 8 on one machine: a cluster of 1, 2 and 4 DataNodes, each a separate JVM process
 * ({@link DataNodeProcesses}, the NameNode and the clients in this JVM), with 6 client threads per DataNode (each its
 * own {@code FileSystem} and its own file; blocks go round robin, so each DataNode serves 6 files), all writing at
 * once, then all reading their files at once; aggregate GB/s and per-node efficiency = aggregate(N) / (N ×
 * aggregate(1)), the 1-DataNode cluster being the baseline of the same run. All processes share the machine's
 * cores, so on a small machine the curve shows that machine's limit more than the system's scaling. Per client:
 * 32 MiB full, 8 MiB quick; 1 MiB writes and reads.
 */
final class ScalingBenchmark implements EndToEndBenchmark.Run {
  private static final int[] NODES = {1, 2, 4};
  private static final int CLIENTS_PER_NODE = 6;
  private static final int IO = 1 << 20;

  @Override
  public String run(BenchArgs args, Path tmp) throws Exception {
    long perClient = args.quick() ? 8L << 20 : 32L << 20;
    double[] write = new double[NODES.length];
    double[] read = new double[NODES.length];
    double[] single = new double[2];
    for (int i = 0; i < NODES.length; i++) {
      int nodes = NODES[i];
      int clients = nodes * CLIENTS_PER_NODE;
      long arena = CLIENTS_PER_NODE * perClient * 2 + (128L << 20); // room if placement is uneven
      MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(tmp.resolve("n" + nodes)).numDataNodes(0)
          .conf(DataNodeProcesses.unreplicated()).build();
      List<FileSystem> fss = new ArrayList<>();
      ExecutorService pool = Executors.newFixedThreadPool(clients);
      DataNodeProcesses dataNodes = null;
      try {
        dataNodes = DataNodeProcesses.start(cluster, nodes, arena, tmp.resolve("dn" + nodes));
        for (int c = 0; c < clients; c++) {
          fss.add(Clusters.client(cluster));
        }
        byte[] data = FileIo.randomBytes(IO, 5);
        if (nodes == 1) {
          FileIo.warmUp(fss.get(0), 2 * perClient); // the first cluster of the run pays for the JIT otherwise
          // Reference: one client alone on the same cluster, to see what concurrency does to one DataNode.
          single[0] = all(pool, 1, c -> () -> {
            FileIo.write(fss.get(0), new org.apache.hadoop.fs.Path("/scaling/alone"), perClient * 2, data);
            return null;
          }, perClient * 2);
          single[1] = all(pool, 1, c -> () -> {
            FileIo.read(fss.get(0), new org.apache.hadoop.fs.Path("/scaling/alone"), perClient * 2, new byte[IO]);
            return null;
          }, perClient * 2);
          Progress.say("1 DataNode, 1 client alone: write %.3f GB/s, read %.3f GB/s", single[0], single[1]);
        }
        write[i] = all(pool, clients, c -> () -> {
          FileIo.write(fss.get(c), file(c), perClient, data);
          return null;
        }, perClient);
        read[i] = all(pool, clients, c -> () -> {
          FileIo.read(fss.get(c), file(c), perClient, new byte[IO]);
          return null;
        }, perClient);
        Progress.say("%d DataNode(s), %d clients: aggregate write %.3f GB/s, read %.3f GB/s", nodes, clients,
            write[i], read[i]);
      } finally {
        pool.shutdownNow();
        for (FileSystem fs : fss) {
          fs.close();
        }
        if (dataNodes != null) {
          dataNodes.close();
        }
        cluster.close();
      }
    }
    System.out.printf(Locale.ROOT, "%nscaling: %d clients per DataNode, %d MiB per client, DataNodes as separate processes, %d cores"
        + "%n%n| DataNodes | clients | write GB/s | read GB/s | write efficiency | read efficiency |%n"
        + "|---|---|---|---|---|---|%n", CLIENTS_PER_NODE, perClient >> 20, Machine.cores());
    Report csv = new Report("datanodes", "clients", "write_gbps", "read_gbps", "write_efficiency", "read_efficiency");
    double[] x = new double[NODES.length];
    StringBuilder summary = new StringBuilder();
    for (int i = 0; i < NODES.length; i++) {
      double we = write[i] / (NODES[i] * write[0]);
      double re = read[i] / (NODES[i] * read[0]);
      x[i] = NODES[i];
      System.out.printf(Locale.ROOT, "| %d | %d | %.3f | %.3f | %.2f | %.2f |%n", NODES[i],
          NODES[i] * CLIENTS_PER_NODE, write[i], read[i], we, re);
      csv.row(NODES[i], NODES[i] * CLIENTS_PER_NODE, write[i], read[i], we, re);
      summary.append(String.format(Locale.ROOT, "%s%d DN: write %.2f GB/s (eff. %.2f), read %.2f GB/s (eff. %.2f)",
          i == 0 ? "" : "; ", NODES[i], write[i], we, read[i], re));
    }
    System.out.printf(Locale.ROOT, "%nreference, same run: 1 DataNode, 1 client alone (%d MiB): write %.3f GB/s,"
        + " read %.3f GB/s%n", 2 * perClient >> 20, single[0], single[1]);
    csv.row(1, 1, single[0], single[1], Double.NaN, Double.NaN);
    csv.writeCsv(args.csv());
    XYChart chart = Charts.xy(String.format(Locale.ROOT, "Aggregate throughput, %d clients per DataNode, DataNodes"
        + " as processes, %d cores", CLIENTS_PER_NODE, Machine.cores()), "DataNodes", "aggregate throughput (GB/s)");
    chart.getStyler().setYAxisMin(0.0);
    Charts.line(chart, "FFFS write", x, write);
    Charts.line(chart, "FFFS read", x, read);
    double[] ideal = new double[NODES.length];
    for (int i = 0; i < NODES.length; i++) {
      ideal[i] = NODES[i] * write[0];
    }
    Charts.plain(chart, "ideal write (N x 1 DataNode)", x, ideal);
    Charts.save(args.png(), List.of(chart));
    return String.format(Locale.ROOT, "%d MiB per client, %d clients per DataNode, DataNodes as processes: %s; 1 client alone on"
        + " 1 DN: write %.2f GB/s, read %.2f GB/s", perClient >> 20, CLIENTS_PER_NODE, summary, single[0], single[1]);
  }

  private static org.apache.hadoop.fs.Path file(int client) {
    return new org.apache.hadoop.fs.Path("/scaling/client-" + client);
  }

  /** Runs one task per client at once; aggregate GB/s = all bytes over the wall time until the last finishes. */
  private static double all(ExecutorService pool, int clients,
      java.util.function.IntFunction<Callable<Void>> task, long perClient) throws Exception {
    List<Future<Void>> futures = new ArrayList<>();
    long start = System.nanoTime();
    for (int c = 0; c < clients; c++) {
      futures.add(pool.submit(task.apply(c)));
    }
    for (Future<Void> f : futures) {
      f.get();
    }
    return (double) clients * perClient / (System.nanoTime() - start);
  }
}
