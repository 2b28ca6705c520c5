package io.fffs.bench.e2e;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.datanode.store.MemoryUsage;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.knowm.xchart.XYChart;

/**
 * Paper Fig. 12 end to end: DataNode memory per byte written, through the {@code FileSystem} API, for page sizes
 * 512 B … 8 KiB and for sequential writes (64 KiB packets, the paper's setting) and random overwrites of 1 KiB …
 * 64 KiB (each write one packet, one log entry, at an unaligned random offset of a file first filled
 * sequentially). Memory = arena pages in use + block-log and page-index heap arrays
 * ({@code BlockStore.memoryUsage()}); the overhead is what a phase adds over the bytes it wrote, so the baseline is
 * the data itself, measured in the same run. One cluster per page size, persistence off (nothing evicted) and no
 * pre-touch (it only affects speed). Data per phase: 64 MiB full (the paper: 128 MB), 16 MiB quick.
 */
final class MemoryBenchmark implements EndToEndBenchmark.Run {
  private static final int[] PAGES = {512, 1024, 2048, 4096, 8192};
  private static final int[] WRITES = {1024, 4096, 16384, 65536};
  private static final int SEQ_WRITE = 64 << 10;

  @Override
  public String run(BenchArgs args, Path tmp) throws Exception {
    long data = args.quick() ? 16L << 20 : 64L << 20;
    // Per page size: the sequential file, the random phases' base files, and their copies (≤ 2 pages per write).
    List<String> patterns = new ArrayList<>(List.of("seq"));
    for (int w : WRITES) {
      patterns.add(ThroughputBenchmark.size(w) + " random");
    }
    double[][] overhead = new double[patterns.size()][PAGES.length];
    for (int p = 0; p < PAGES.length; p++) {
      int page = PAGES[p];
      long arena = data * (1 + WRITES.length) + (64L << 20);
      for (int w : WRITES) {
        arena += data / w * 2L * Math.max(page, w);
      }
      Configuration conf = new Configuration();
      conf.setInt(DataNodeConfigKeys.PAGE_SIZE_KEY, page);
      conf.setBoolean(DataNodeConfigKeys.PERSISTENCE_ENABLED_KEY, false);
      conf.setBoolean(DataNodeConfigKeys.MEMORY_PRETOUCH_KEY, false);
      MiniFffsCluster cluster = Clusters.fffs(tmp.resolve("page-" + page), conf, arena);
      try (FileSystem fs = Clusters.client(cluster, io.fffs.protocol.DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY,
          String.valueOf(SEQ_WRITE))) {
        FreezeFrameFileSystem fffs = (FreezeFrameFileSystem) fs;
        byte[] seq = FileIo.randomBytes(SEQ_WRITE, 1);
        long before = held(cluster);
        FileIo.write(fs, new org.apache.hadoop.fs.Path("/memory/seq"), data, seq);
        overhead[0][p] = 100.0 * (held(cluster) - before - data) / data;
        Progress.say("page %d B: sequential %.3f%%", page, overhead[0][p]);
        for (int k = 0; k < WRITES.length; k++) {
          int w = WRITES[k];
          org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("/memory/random-" + w);
          FileIo.write(fs, path, data, seq);
          byte[] bytes = FileIo.randomBytes(w, w);
          Random random = new Random(11);
          before = held(cluster);
          try (FffsDataOutputStream out = fffs.openForWrite(path)) {
            for (long written = 0; written < data; written += w) {
              out.seek((long) (random.nextDouble() * (data - w)));
              out.write(bytes);
            }
          }
          overhead[k + 1][p] = 100.0 * (held(cluster) - before - data) / data;
          Progress.say("page %d B: random %s writes %.1f%%", page, ThroughputBenchmark.size(w), overhead[k + 1][p]);
        }
      } finally {
        cluster.close();
      }
    }
    System.out.printf(Locale.ROOT, "%nmemory overhead per byte written, %%, %d MiB per phase%n%n", data >> 20);
    StringBuilder head = new StringBuilder("| write \\ page |");
    StringBuilder rule = new StringBuilder("|---|");
    for (int page : PAGES) {
      head.append(' ').append(page).append(" B |");
      rule.append("---|");
    }
    System.out.println(head);
    System.out.println(rule);
    Report csv = new Report("pattern", "page_bytes", "overhead_percent");
    for (int r = 0; r < patterns.size(); r++) {
      StringBuilder line = new StringBuilder("| " + patterns.get(r) + " |");
      for (int p = 0; p < PAGES.length; p++) {
        line.append(String.format(Locale.ROOT, " %.3f |", overhead[r][p]));
        csv.row(patterns.get(r), PAGES[p], overhead[r][p]);
      }
      System.out.println(line);
    }
    csv.writeCsv(args.csv());
    XYChart chart = Charts.xy(String.format(Locale.ROOT, "DataNode memory overhead, %d MiB written per phase,"
        + " through the FileSystem API", data >> 20), "page size (bytes, log scale)",
        "memory overhead (% of bytes written, log scale)");
    chart.getStyler().setXAxisLogarithmic(true);
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideS);
    double[] x = new double[PAGES.length];
    for (int p = 0; p < PAGES.length; p++) {
      x[p] = PAGES[p];
    }
    for (int r = 0; r < patterns.size(); r++) {
      double[] y = new double[PAGES.length];
      for (int p = 0; p < PAGES.length; p++) {
        y[p] = Math.max(0.001, overhead[r][p]); // a log axis cannot show 0 or less
      }
      Charts.line(chart, r == 0 ? "sequential, 64 KiB packets" : patterns.get(r) + " overwrites", x, y);
    }
    Charts.plain(chart, "goal: 0.2% (sequential, 4 KiB pages)", new double[] {PAGES[0], PAGES[PAGES.length - 1]},
        new double[] {0.2, 0.2});
    Charts.save(args.png(), List.of(chart));
    double seq4k = overhead[0][3];
    return String.format(Locale.ROOT, "%d MiB per phase: sequential overhead 512 B … 8 KiB pages %.3f / %.3f / %.3f /"
        + " %.3f / %.3f %% (goal 4 KiB ≤ 0.2%%: %s); random 1 KiB writes %.0f–%.0f %%", data >> 20, overhead[0][0],
        overhead[0][1], overhead[0][2], overhead[0][3], overhead[0][4], seq4k <= 0.2 ? "met" : "missed",
        min(overhead[1]), max(overhead[1]));
  }

  private static long held(MiniFffsCluster cluster) {
    MemoryUsage usage = cluster.getDataNode(0).store().memoryUsage();
    return usage.residentPageBytes() + usage.logBytes() + usage.indexBytes();
  }

  private static double min(double[] v) {
    double m = Double.MAX_VALUE;
    for (double x : v) {
      m = Math.min(m, x);
    }
    return m;
  }

  private static double max(double[] v) {
    double m = -Double.MAX_VALUE;
    for (double x : v) {
      m = Math.max(m, x);
    }
    return m;
  }
}
