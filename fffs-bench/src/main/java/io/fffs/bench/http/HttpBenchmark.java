package io.fffs.bench.http;

import io.fffs.bench.BenchFiles;
import io.fffs.bench.BenchLogging;
import io.fffs.bench.e2e.Clusters;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * {@code bin/fffs bench http [--quick] [--out DIR]}: FFFS's WebHDFS gateways against HDFS's own WebHDFS
 * ({@code MiniDFSCluster}'s NameNode and DataNode) in one run, one DataNode each, both in this JVM, driven by the same
 * client code ({@link WebHdfsLoad}): CREATE and OPEN throughput of one large file (both steps, the best of the
 * rounds), and GETFILESTATUS and LISTSTATUS (100 entries) rates with 1 and 4 client threads. The contenders take
 * turns for every figure. Prints a Markdown table and writes {@code http.csv}.
 */
public final class HttpBenchmark {
  private static final int[] THREADS = {1, 4};

  private record Row(String figure, String unit, double fffs, double hdfs) {}

  private HttpBenchmark() {}

  public static void main(String[] args) throws Exception {
    boolean quick = false;
    Path out = Paths.get("target", "bench");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--out" -> out = Paths.get(args[++i]);
        default -> {
          System.err.println("usage: bin/fffs bench http [--quick] [--out DIR]");
          System.exit(2);
        }
      }
    }
    BenchLogging.quiet();
    // HDFS's HTTP servers log every request; that would be HDFS paying for a log FFFS does not write.
    org.apache.log4j.LogManager.getLogger("http.requests").setLevel(org.apache.log4j.Level.OFF);
    org.apache.log4j.LogManager.getLogger("datanode.webhdfs").setLevel(org.apache.log4j.Level.OFF);
    int fileMiB = quick ? 64 : 256;
    int rounds = quick ? 2 : 4;
    long rateMillis = quick ? 1_500 : 5_000;
    long started = System.nanoTime();
    Path base = Files.createTempDirectory("fffs-httpbench-");
    List<Row> rows = new ArrayList<>();
    MiniFffsCluster fffs = null;
    MiniDFSCluster hdfs = null;
    try {
      Configuration conf = new Configuration();
      // Every round's overwrite keeps the old version: room for all of them, so no round waits for eviction.
      long arena = (long) fileMiB * (rounds + 3) << 20;
      conf.setLong("fffs.blocksize", 64L << 20);
      fffs = MiniFffsCluster.builder().baseDir(base.resolve("fffs")).numDataNodes(1).conf(conf)
          .memoryCapacity(arena).webHdfs().build();
      Clusters.awaitPretouch(fffs, arena, conf);
      hdfs = Clusters.hdfs(base.resolve("hdfs"), new Configuration());
      InetSocketAddress nnHttp = hdfs.getNameNode().getHttpAddress();
      String user = UserGroupInformation.getCurrentUser().getShortUserName();
      WebHdfsLoad[] sides = {new WebHdfsLoad(fffs.getWebHdfsURI(), user),
          new WebHdfsLoad(URI.create("http://127.0.0.1:" + nnHttp.getPort()), user)};
      rows.addAll(data(sides, fileMiB, rounds));
      for (WebHdfsLoad side : sides) {
        side.populate(WebHdfsLoad.newClient(), "/list", 100);
      }
      for (int threads : THREADS) {
        rows.add(rate(sides, "GETFILESTATUS", "/big", threads, rateMillis));
        rows.add(rate(sides, "LISTSTATUS", "/list", threads, rateMillis));
      }
    } finally {
      if (fffs != null) {
        fffs.close();
      }
      Clusters.shutdown(hdfs);
      BenchFiles.deleteRecursively(base);
    }
    System.out.printf(Locale.ROOT, "%nhttp benchmark, %s mode, %s, Java %s, %d cores; FFFS gateways vs HDFS WebHDFS,"
        + " one DataNode each, one JVM; %d MiB file, best of %d rounds; rates over %d ms after a warm-up%n%n",
        quick ? "quick" : "full", Instant.now(), System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors(), fileMiB, rounds, rateMillis);
    print(rows, System.out);
    Files.createDirectories(out);
    Path csv = out.resolve("http.csv");
    try (PrintStream file = new PrintStream(Files.newOutputStream(csv))) {
      file.println("figure,unit,fffs,hdfs,ratio");
      for (Row row : rows) {
        file.printf(Locale.ROOT, "%s,%s,%.3f,%.3f,%.3f%n", row.figure, row.unit, row.fffs, row.hdfs,
            row.fffs / row.hdfs);
      }
    }
    System.out.printf(Locale.ROOT, "%nCSV: %s%ntotal %.1f s%n", csv, (System.nanoTime() - started) / 1e9);
    System.exit(0);
  }

  /** CREATE then OPEN of one file, the contenders taking turns each round; the best round of each. */
  private static List<Row> data(WebHdfsLoad[] sides, int fileMiB, int rounds) throws IOException {
    byte[] data = new byte[fileMiB << 20];
    new Random(42).nextBytes(data);
    double[][] create = new double[2][rounds + 1];
    double[][] open = new double[2][rounds + 1];
    HttpClient[] clients = {WebHdfsLoad.newClient(), WebHdfsLoad.newClient()};
    for (int round = 0; round <= rounds; round++) {  // round 0 warms up
      for (int s = 0; s < 2; s++) {
        create[s][round] = data.length / (sides[s].create(clients[s], "/big", data) / 1e9) / 1e9;
        open[s][round] = data.length / (sides[s].open(clients[s], "/big", data.length) / 1e9) / 1e9;
      }
    }
    return List.of(new Row("CREATE " + fileMiB + " MiB", "GB/s", best(create[0]), best(create[1])),
        new Row("OPEN " + fileMiB + " MiB", "GB/s", best(open[0]), best(open[1])));
  }

  private static double best(double[] rounds) {
    return Arrays.stream(rounds, 1, rounds.length).max().orElse(0);
  }

  private static Row rate(WebHdfsLoad[] sides, String op, String path, int threads, long millis) throws Exception {
    for (WebHdfsLoad side : sides) {
      side.rate(op, path, threads, Math.min(1_000, millis));  // warm-up
    }
    double fffs = sides[0].rate(op, path, threads, millis);
    double hdfs = sides[1].rate(op, path, threads, millis);
    return new Row(op + ", " + threads + " thread" + (threads > 1 ? "s" : ""), "ops/s", fffs, hdfs);
  }

  private static void print(List<Row> rows, PrintStream out) {
    out.println("| figure | unit | FFFS gateway | HDFS WebHDFS | **FFFS/HDFS** |");
    out.println("|---|---|---:|---:|---:|");
    for (Row row : rows) {
      String format = row.unit.equals("GB/s") ? "%.2f" : "%,.0f";
      out.printf(Locale.ROOT, "| %s | %s | " + format + " | " + format + " | **%.2f** |%n", row.figure, row.unit,
          row.fffs, row.hdfs, row.fffs / row.hdfs);
    }
  }
}
