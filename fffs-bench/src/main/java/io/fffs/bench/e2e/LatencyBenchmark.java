package io.fffs.bench.e2e;

import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.knowm.xchart.XYChart;

/**
 * Per-write latency of 1 KiB appends, each followed by {@code hflush} (the data is acknowledged and visible to new
 * readers), FFFS in latency mode ({@code fffs.client.latency-mode=true}: TCP_NODELAY, every write sent at once)
 * against HDFS (default client), and a raw loopback round trip of 1 KiB with an 8-byte acknowledgement (the floor).
 * One open file per system; measured in rounds of alternating order after a warm-up. Full: 10 rounds × 2,000
 * writes per system; quick: 4 × 500.
 */
final class LatencyBenchmark implements EndToEndBenchmark.Run {
  private static final int WRITE = 1024;
  private static final double[] PERCENTILES = {50, 90, 99, 99.9, 100};

  /** "p50 / p99" of round {@code round}'s samples, in µs. */
  private static String roundPercentiles(long[] samples, int round, int perRound) {
    long[] r = Arrays.copyOfRange(samples, round * perRound, (round + 1) * perRound);
    Arrays.sort(r);
    return String.format(java.util.Locale.ROOT, "%.0f / %.0f", percentile(r, 50) / 1e3, percentile(r, 99) / 1e3);
  }

  private interface Op {
    void once() throws IOException;
  }

  @Override
  public String run(BenchArgs args, Path tmp) throws Exception {
    int rounds = args.quick() ? 4 : 10;
    int perRound = args.quick() ? 500 : 2_000;
    // 30,000 writes per system: after 1,000 (the earlier warm-up) the JIT compiler was still busy in the measured
    // rounds (90–157 µs of compiler CPU per FFFS sample, and each FFFS thread used 3–4× its warm CPU per write).
    int warmup = args.quick() ? 3_000 : 30_000;
    byte[] data = FileIo.randomBytes(WRITE, 7);
    long[][] samples = new long[3][rounds * perRound];
    long[] writeCalls = new long[rounds * perRound];
    long[][] setTimes = new long[2][perRound];
    String[] names = {"FFFS (latency mode)", "HDFS", "loopback round trip"};
    MiniFffsCluster fffsCluster = null;
    MiniDFSCluster hdfsCluster = null;
    try {
      long entries = (long) rounds * perRound + warmup + 1;
      fffsCluster = Clusters.fffs(tmp.resolve("fffs"), new Configuration(), (entries * 4096 + (64L << 20)));
      hdfsCluster = Clusters.hdfs(tmp.resolve("hdfs"), new Configuration());
      Progress.say("clusters up; %d warm-up writes, then %d rounds of %d per system", warmup, rounds, perRound);
      org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("/latency/log");
      try (FileSystem fffs = Clusters.client(fffsCluster, DataTransferConfigKeys.LATENCY_MODE_KEY, "true");
          FileSystem hdfs = Clusters.client(hdfsCluster);
          FSDataOutputStream fOut = fffs.create(path, true);
          FSDataOutputStream hOut = hdfs.create(path, true);
          LoopbackSocket.PingPong ping = new LoopbackSocket.PingPong(WRITE)) {
        long[] fffsWriteCall = new long[1];
        Op[] ops = {() -> {
          long t0 = System.nanoTime();
          fOut.write(data);
          fffsWriteCall[0] = System.nanoTime() - t0;
          fOut.hflush();
        }, () -> {
          hOut.write(data);
          hOut.hflush();
        }, ping::roundTrip};
        for (Op op : ops) {
          for (int i = 0; i < warmup; i++) {
            op.once();
          }
        }
        for (int round = 0; round < rounds; round++) {
          for (int k = 0; k < ops.length; k++) {
            int which = round % 2 == 0 ? k : ops.length - 1 - k;
            for (int i = 0; i < perRound; i++) {
              long t0 = System.nanoTime();
              ops[which].once();
              samples[which][round * perRound + i] = System.nanoTime() - t0;
              if (which == 0) {
                writeCalls[round * perRound + i] = fffsWriteCall[0];
              }
            }
          }
          Progress.say("round %d/%d: p50 / p99 this round FFFS %s µs, HDFS %s µs, socket %s µs", round + 1, rounds,
              roundPercentiles(samples[0], round, perRound), roundPercentiles(samples[1], round, perRound),
              roundPercentiles(samples[2], round, perRound));
        }
        // Breakdown: one metadata mutation (setTimes: one logged, fsync'd NameNode edit) on each side.
        org.apache.hadoop.fs.Path other = new org.apache.hadoop.fs.Path("/latency/other");
        FileSystem[] both = {fffs, hdfs};
        for (int k = 0; k < 2; k++) {
          both[k].create(other, true).close();
          for (int i = 0; i < perRound; i++) {
            long t0 = System.nanoTime();
            both[k].setTimes(other, 1_000_000L + i, -1);
            setTimes[k][i] = System.nanoTime() - t0;
          }
        }
      }
    } finally {
      Clusters.shutdown(hdfsCluster);
      if (fffsCluster != null) {
        fffsCluster.close();
      }
    }
    for (long[] s : samples) {
      Arrays.sort(s);
    }
    double[][] pct = new double[3][PERCENTILES.length];
    double[] mean = new double[3];
    for (int k = 0; k < 3; k++) {
      for (int p = 0; p < PERCENTILES.length; p++) {
        pct[k][p] = percentile(samples[k], PERCENTILES[p]) / 1e3;
      }
      mean[k] = Arrays.stream(samples[k]).average().orElse(Double.NaN) / 1e3;
    }
    System.out.printf(Locale.ROOT, "%nlatency of one 1 KiB write + hflush, %d samples per system, µs%n%n",
        samples[0].length);
    System.out.println("| percentile | FFFS | HDFS | loopback | FFFS/HDFS | FFFS/loopback |");
    System.out.println("|---|---|---|---|---|---|");
    Report csv = new Report("percentile", "fffs_us", "hdfs_us", "loopback_us", "fffs_over_hdfs", "fffs_over_loopback");
    for (int p = 0; p < PERCENTILES.length; p++) {
      String label = PERCENTILES[p] == 100 ? "max" : "p" + trim(PERCENTILES[p]);
      System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.2f | %.1f |%n", label, pct[0][p], pct[1][p],
          pct[2][p], pct[0][p] / pct[1][p], pct[0][p] / pct[2][p]);
      csv.row(label, pct[0][p], pct[1][p], pct[2][p], pct[0][p] / pct[1][p], pct[0][p] / pct[2][p]);
    }
    System.out.printf(Locale.ROOT, "| mean | %.0f | %.0f | %.0f | %.2f | %.1f |%n", mean[0], mean[1], mean[2],
        mean[0] / mean[1], mean[0] / mean[2]);
    csv.row("mean", mean[0], mean[1], mean[2], mean[0] / mean[1], mean[0] / mean[2]);
    Arrays.sort(writeCalls);
    Arrays.sort(setTimes[0]);
    Arrays.sort(setTimes[1]);
    System.out.printf(Locale.ROOT, "%nbreakdown, µs: FFFS write() call p50 %.0f p99 %.0f (the rest of each sample is"
        + " hflush); one NameNode mutation (setTimes, fsync'd edit) p50 FFFS %.0f HDFS %.0f, p99 FFFS %.0f HDFS %.0f%n",
        percentile(writeCalls, 50) / 1e3, percentile(writeCalls, 99) / 1e3, percentile(setTimes[0], 50) / 1e3,
        percentile(setTimes[1], 50) / 1e3, percentile(setTimes[0], 99) / 1e3, percentile(setTimes[1], 99) / 1e3);
    csv.row("fffs_write_call_p50", percentile(writeCalls, 50) / 1e3, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    csv.row("fffs_write_call_p99", percentile(writeCalls, 99) / 1e3, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    csv.row("setTimes_p50", percentile(setTimes[0], 50) / 1e3, percentile(setTimes[1], 50) / 1e3, Double.NaN,
        percentile(setTimes[0], 50) / percentile(setTimes[1], 50), Double.NaN);
    csv.row("setTimes_p99", percentile(setTimes[0], 99) / 1e3, percentile(setTimes[1], 99) / 1e3, Double.NaN,
        percentile(setTimes[0], 99) / percentile(setTimes[1], 99), Double.NaN);
    csv.writeCsv(args.csv());
    plot(args, samples, names);
    double p99 = pct[0][2] / pct[1][2];
    return String.format(Locale.ROOT, "%d × (1 KiB write + hflush) per system: p50 FFFS %.0f µs / HDFS %.0f µs"
        + " (%.2f), p99 FFFS %.0f µs / HDFS %.0f µs (%.2f; goal ≤ 1: %s); loopback round trip p50 %.0f µs;"
        + " one fsync'd NameNode edit (setTimes) p50 FFFS %.0f µs",
        samples[0].length, pct[0][0], pct[1][0], pct[0][0] / pct[1][0], pct[0][2], pct[1][2], p99,
        p99 <= 1 ? "met" : "missed", pct[2][0], percentile(setTimes[0], 50) / 1e3);
  }

  private static void plot(BenchArgs args, long[][] sorted, String[] names) throws IOException {
    XYChart chart = Charts.xy("1 KiB write + hflush, one client, 1 DataNode, loopback",
        "latency per write (µs, log scale)", "writes at or below (%)");
    chart.getStyler().setXAxisLogarithmic(true);
    chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideSE);
    for (int k = 0; k < sorted.length; k++) {
      int points = Math.min(400, sorted[k].length);
      double[] x = new double[points];
      double[] y = new double[points];
      for (int i = 0; i < points; i++) {
        int idx = (int) Math.min(sorted[k].length - 1, Math.round((double) i * (sorted[k].length - 1) / (points - 1)));
        x[i] = Math.max(1, sorted[k][idx] / 1e3);
        y[i] = 100.0 * (idx + 1) / sorted[k].length;
      }
      Charts.plain(chart, names[k], x, y);
    }
    Charts.save(args.png(), List.of(chart));
  }

  /** Nearest-rank percentile of sorted samples. */
  static double percentile(long[] sorted, double p) {
    int rank = (int) Math.ceil(p / 100 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
  }
}
