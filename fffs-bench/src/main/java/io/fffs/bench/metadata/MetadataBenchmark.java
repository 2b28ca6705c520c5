package io.fffs.bench.metadata;

import io.fffs.bench.BenchFiles;
import io.fffs.bench.BenchLogging;
import io.fffs.bench.e2e.BenchArgs;
import io.fffs.bench.e2e.Report;
import io.fffs.bench.metadata.MetadataSide.Measured;
import io.fffs.bench.metadata.ThroughputRunner.Measurement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * NameNode metadata throughput, FFFS against HDFS in one run through the Hadoop {@code FileSystem} API (issue 3,
 * "Benchmarks"): create+close of an empty file, mkdirs, getFileStatus, getFileStatus at a past time (FFFS only,
 * compared with its own latest lookup), and listStatus of a 1,000-entry directory, each with 1 and 8 client
 * threads, every thread on its own client. Each system runs in a JVM of its own ({@link ChildSide}; with
 * {@code -Dfffs.bench.metadata.jvm=shared} both run in this one). Prints a Markdown
 * table, writes {@code metadata.csv} and {@code metadata.png} to the output directory and appends a summary line
 * to {@code docs/benchmarks.md}. Usage: {@code bin/fffs bench metadata [--quick] [--out DIR]}.
 */
public final class MetadataBenchmark {
  private static final int[] THREADS = {1, 8};
  static final String JVM_PROPERTY = "fffs.bench.metadata.jvm";
  /**
   * {@code -Dfffs.bench.metadata.ha=true}: also changes per second with three HA NameNodes against one, of HDFS with
   * HA against one HDFS NameNode, and the failover time of both ({@code <name>-ha.csv}, {@code <name>-ha.png}).
   */
  static final String HA_PROPERTY = "fffs.bench.metadata.ha";
  /**
   * How many times the single sides' JIT warm-up the HA sides get per op: a JVM with three NameNodes and Raft (or two
   * NameNodes and three JournalNodes) has several times the code to compile, and FFFS's create+close with three
   * NameNodes ran at 2.3 times its steady time after 3 s.
   */
  static final int HA_WARMUP_FACTOR = 5;

  private final BenchSettings settings;
  private final MetadataSide fffs;
  private final MetadataSide hdfs;
  private final ResultTable table = new ResultTable();

  private MetadataBenchmark(BenchSettings settings, MetadataSide fffs, MetadataSide hdfs) {
    this.settings = settings;
    this.fffs = fffs;
    this.hdfs = hdfs;
  }

  public static void main(String[] args) throws Exception {
    BenchSettings settings;
    boolean separate;
    try {
      settings = BenchSettings.parse(args);
      separate = separateJvms(System.getProperty(JVM_PROPERTY, "separate"));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    BenchLogging.quiet();
    long started = System.nanoTime();
    Path base = Files.createTempDirectory("fffs-metabench-");
    ResultTable table = null;
    HaTable haTable = null;
    try (MetadataSide fffs = start("FFFS", separate, base.resolve("fffs"));
        MetadataSide hdfs = start("HDFS", separate, base.resolve("hdfs"))) {
      MetadataBenchmark benchmark = new MetadataBenchmark(settings, fffs, hdfs);
      table = benchmark.run();
      if (Boolean.getBoolean(HA_PROPERTY)) {
        try (MetadataSide ha = start("FFFS-HA", separate, base.resolve("fffs-ha"));
            MetadataSide hdfsHa = start("HDFS-HA", separate, base.resolve("hdfs-ha"))) {
          haTable = benchmark.runHa(ha, hdfsHa);
        }
      }
    } catch (Exception | LinkageError e) {
      e.printStackTrace();
    } finally {
      BenchFiles.deleteRecursively(base);
    }
    if (table == null) {
      // A cluster that failed half-way through start-up can leave non-daemon threads behind.
      System.exit(1);
      return;
    }
    String jvms = separate ? "each system in its own JVM" : "both systems in one JVM";
    System.out.printf(Locale.ROOT, "%nmetadata benchmark, %s mode, %s, Java %s, %d cores, %s; warm-up %d ms per op"
        + " and side (HA sides %d ms), then per contender and row %d ms and %d x %d ms measured%n%n",
        settings.quick() ? "quick" : "full", Instant.now(), System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors(), jvms, settings.jitWarmupMillis(),
        HA_WARMUP_FACTOR * settings.jitWarmupMillis(), settings.warmupMillis(), settings.rounds(),
        settings.measureMillis());
    table.print(System.out);
    if (haTable != null) {
      System.out.print(haTable.markdown());
    }
    BenchArgs report = settings.report();
    table.writeCsv(report.csv());
    table.plot(report.png(), jvms);
    System.out.printf(Locale.ROOT, "%nCSV: %s%nPlot: %s%n", report.csv(), report.png());
    if (haTable != null) {
      Path csv = report.out().resolve(report.name() + "-ha.csv");
      Path png = report.out().resolve(report.name() + "-ha.png");
      haTable.writeCsv(csv);
      haTable.plot(png);
      System.out.printf(Locale.ROOT, "HA CSV: %s%nHA plot: %s%n", csv, png);
    }
    System.out.printf(Locale.ROOT, "total %.1f s%n", (System.nanoTime() - started) / 1e9);
    Report.appendSummary(report, table.summary() + "; " + jvms);
    System.exit(0);
  }

  static boolean separateJvms(String value) {
    return switch (value) {
      case "separate" -> true;
      case "shared" -> false;
      default -> throw new IllegalArgumentException(JVM_PROPERTY + " must be separate or shared, got " + value);
    };
  }

  private static MetadataSide start(String name, boolean separate, Path dir) throws IOException {
    int clients = max(THREADS);
    return separate ? ChildSide.start(name, clients, dir) : LocalSide.start(name, clients, dir);
  }

  private ResultTable run() throws IOException {
    fffs.prepare();
    hdfs.prepare();
    for (Measured op : Measured.values()) {
      fffs.run(op, max(THREADS), settings.jitWarmupNanos());
      if (op != Measured.STAT_PAST) {
        hdfs.run(op, max(THREADS), settings.jitWarmupNanos());
      }
    }
    for (int threads : THREADS) {
      Measurement[] m = measure(threads, new Contender(fffs, Measured.CREATE), new Contender(hdfs, Measured.CREATE));
      add("create+close", threads, m[0], m[1], null);
    }
    for (int threads : THREADS) {
      Measurement[] m = measure(threads, new Contender(fffs, Measured.MKDIRS), new Contender(hdfs, Measured.MKDIRS));
      add("mkdirs", threads, m[0], m[1], null);
    }
    for (int threads : THREADS) {
      Measurement[] m = measure(threads, new Contender(fffs, Measured.STAT), new Contender(hdfs, Measured.STAT),
          new Contender(fffs, Measured.STAT_PAST));
      add("getFileStatus", threads, m[0], m[1], null);
      add("getFileStatus, past time", threads, m[2], null, m[0]);
    }
    for (int threads : THREADS) {
      Measurement[] m = measure(threads, new Contender(fffs, Measured.LIST), new Contender(hdfs, Measured.LIST));
      add("listStatus (1,000 entries)", threads, m[0], m[1], null);
    }
    return table;
  }

  /**
   * Changes per second of FFFS with three NameNodes (every change committed by two of them through Raft) against one
   * NameNode (every change fsync'd to its own edit log), and of HDFS with HA (an active NameNode writing its edits to
   * three JournalNodes) against one HDFS NameNode, all measured in alternating rounds; then each HA side's failover
   * time, its leader stopped until the first file is created and closed.
   */
  private HaTable runHa(MetadataSide ha, MetadataSide hdfsHa) throws IOException {
    ha.prepare();
    hdfsHa.prepare();
    HaTable out = new HaTable();
    for (Measured op : new Measured[] {Measured.CREATE, Measured.MKDIRS}) {
      ha.run(op, max(THREADS), HA_WARMUP_FACTOR * settings.jitWarmupNanos());
      hdfsHa.run(op, max(THREADS), HA_WARMUP_FACTOR * settings.jitWarmupNanos());
      for (int threads : THREADS) {
        Measurement[] m = measure(threads, new Contender(fffs, op), new Contender(ha, op), new Contender(hdfs, op),
            new Contender(hdfsHa, op));
        out.add(new HaTable.Row(op == Measured.CREATE ? "create+close" : "mkdirs", threads, m[0].opsPerSecond(),
            m[1].opsPerSecond(), m[2].opsPerSecond(), m[3].opsPerSecond()));
      }
    }
    long fffsFailover = ha.failoverMillis();
    long hdfsFailover = hdfsHa.failoverMillis();
    out.failover(String.format(Locale.ROOT, "%nfailover, leader stopped to first file created: FFFS %d ms (Raft"
        + " election, then the DataNode's report); HDFS %d ms (standby made active at once, as ZKFC would after its"
        + " ZooKeeper session expired; the expiry itself not counted)%n", fffsFailover, hdfsFailover));
    return out;
  }

  private record Contender(MetadataSide side, Measured op) {}

  /** Warms every contender up, then measures them in rounds of alternating order. */
  private Measurement[] measure(int threads, Contender... contenders) throws IOException {
    for (Contender c : contenders) {
      c.side().run(c.op(), threads, settings.warmupNanos());
    }
    Measurement[] total = new Measurement[contenders.length];
    java.util.Arrays.fill(total, Measurement.ZERO);
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < contenders.length; i++) {
      order.add(i);
    }
    for (int round = 0; round < settings.rounds(); round++) {
      for (int i : order) {
        Contender c = contenders[i];
        total[i] = total[i].plus(c.side().run(c.op(), threads, settings.measureNanos()));
      }
      Collections.reverse(order);
    }
    return total;
  }

  private void add(String op, int threads, Measurement fffs, Measurement hdfs, Measurement latest) {
    ResultTable.Row row = new ResultTable.Row(op, threads, fffs.opsPerSecond(),
        hdfs == null ? Double.NaN : hdfs.opsPerSecond(), latest == null ? Double.NaN : latest.opsPerSecond());
    table.add(row);
    System.err.printf(Locale.ROOT, "%-28s %d thread(s): FFFS %,.0f ops/s, %s%n", op, threads, row.fffs(),
        hdfs != null ? String.format(Locale.ROOT, "HDFS %,.0f ops/s", row.hdfs())
            : String.format(Locale.ROOT, "latest %,.0f ops/s", row.latest()));
  }

  private static int max(int[] values) {
    int max = 0;
    for (int v : values) {
      max = Math.max(max, v);
    }
    return max;
  }
}
