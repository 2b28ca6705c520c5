package io.fffs.bench.e2e;

import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.TlsKeys;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;

/**
 * What {@code fffs.data.transfer.protection=privacy} (TLS on the TCP data port) costs: two single-DataNode
 * clusters in this JVM, one with TLS and one without, both on the TCP transport; per repetition each writes a file
 * in 1 MiB writes and reads it twice (the order of the two clusters alternates), and the table gives GB/s of each
 * phase, totals over the repetitions, and TLS as a fraction of plain TCP. The DataNode's key is a fresh EC P-256
 * pair made with the JDK's keytool; the JDK picks the cipher suite. File: 256 MiB full, 64 MiB quick, both fitting
 * the arena, so persistence and the page cache are alike on both sides. Reads go through the data port (short-circuit
 * reads off). Writes its CSV; no plot.
 */
final class TlsBenchmark implements EndToEndBenchmark.Run {
  private static final String PASSWORD = "bench-tls";
  private static final int WRITE = 1 << 20;
  private static final String[] PHASES = {"write", "1st read", "2nd read"};

  @Override
  public String run(BenchArgs args, Path tmp) throws Exception {
    long fileSize = args.quick() ? 64L << 20 : 256L << 20;
    int reps = args.quick() ? 2 : 5;
    long arena = (reps + 2) * fileSize + (64L << 20);
    Configuration plain = new Configuration();
    plain.set("fffs.transport", "tcp");
    // a client on the DataNode's host would copy from its files and send no byte through the data port's TLS
    plain.setBoolean(DataTransferConfigKeys.SHORT_CIRCUIT_KEY, false);
    Configuration tls = new Configuration(plain);
    tls.set("fffs.data.transfer.protection", "privacy");
    TlsKeys.create(tmp, PASSWORD, tls);
    Progress.say("file %d MiB, %d repetition(s), arena %d MiB per cluster; starting both clusters", fileSize >> 20,
        reps, arena >> 20);
    double[][] seconds = new double[2][PHASES.length];
    try (MiniFffsCluster plainCluster = Clusters.fffs(tmp.resolve("plain"), plain, arena);
        MiniFffsCluster tlsCluster = Clusters.fffs(tmp.resolve("tls"), tls, arena);
        FileSystem plainFs = Clusters.client(plainCluster);
        FileSystem tlsFs = Clusters.client(tlsCluster)) {
      FileSystem[] sides = {plainFs, tlsFs};
      byte[] data = new byte[WRITE];
      new Random(34).nextBytes(data);
      for (int side = 0; side < 2; side++) {  // warm-up, not measured
        pass(sides[side], new org.apache.hadoop.fs.Path("/warm"), Math.min(fileSize, 32L << 20), data);
      }
      for (int rep = 0; rep < reps; rep++) {
        for (int k = 0; k < 2; k++) {
          int side = (rep + k) % 2;
          double[] took = pass(sides[side], new org.apache.hadoop.fs.Path("/f" + rep), fileSize, data);
          for (int p = 0; p < PHASES.length; p++) {
            seconds[side][p] += took[p];
          }
        }
        Progress.say("repetition %d of %d done", rep + 1, reps);
      }
    }
    double bytes = (double) fileSize * reps;
    Report csv = new Report("phase", "tcp_gb_s", "tls_gb_s", "tls_over_tcp");
    List<String> summary = new ArrayList<>();
    System.out.printf(Locale.ROOT, "%n%-9s %10s %10s %12s%n", "phase", "TCP GB/s", "TLS GB/s", "TLS/TCP");
    for (int p = 0; p < PHASES.length; p++) {
      double tcp = bytes / seconds[0][p] / 1e9;
      double tlsRate = bytes / seconds[1][p] / 1e9;
      System.out.printf(Locale.ROOT, "%-9s %10.3f %10.3f %12.2f%n", PHASES[p], tcp, tlsRate, tlsRate / tcp);
      csv.row(PHASES[p], tcp, tlsRate, tlsRate / tcp);
      summary.add(String.format(Locale.ROOT, "%s %.2f/%.2f GB/s (%.2f)", PHASES[p], tlsRate, tcp, tlsRate / tcp));
    }
    csv.writeCsv(args.csv());
    return "TLS/TCP " + String.join(", ", summary) + " over " + reps + " x " + (fileSize >> 20) + " MiB";
  }

  /** Writes {@code size} bytes to {@code path} in 1 MiB writes, then reads them twice; seconds of each phase. */
  private static double[] pass(FileSystem fs, org.apache.hadoop.fs.Path path, long size, byte[] data)
      throws IOException {
    double[] took = new double[PHASES.length];
    long start = System.nanoTime();
    try (FSDataOutputStream out = fs.create(path, true)) {
      for (long written = 0; written < size; written += WRITE) {
        out.write(data);
      }
    }
    took[0] = (System.nanoTime() - start) / 1e9;
    byte[] buffer = new byte[WRITE];
    for (int read = 1; read <= 2; read++) {
      start = System.nanoTime();
      long total = 0;
      try (FSDataInputStream in = fs.open(path)) {
        for (int n; (n = in.read(buffer)) > 0; ) {
          total += n;
        }
      }
      took[read] = (System.nanoTime() - start) / 1e9;
      if (total != size) {
        throw new IOException("read " + total + " bytes of " + path + ", not " + size);
      }
    }
    return took;
  }
}
