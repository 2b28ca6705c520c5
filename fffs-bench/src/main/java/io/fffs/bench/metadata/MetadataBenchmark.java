package io.fffs.bench.metadata;

import io.fffs.bench.metadata.ThroughputRunner.Measurement;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.log4j.Level;
import org.apache.log4j.LogManager;

/**
 * NameNode metadata throughput, FFFS against HDFS in one run through the Hadoop {@code FileSystem} API (issue 3,
 * "Benchmarks"): create+close of an empty file, mkdirs, getFileStatus, getFileStatus at a past time (FFFS only,
 * compared with its own latest lookup), and listStatus of a 1,000-entry directory, each with 1 and 8 client
 * threads, every thread on its own client. Prints a Markdown table and writes {@code metadata.csv} to the output
 * directory. Usage: {@code bin/fffs bench metadata [--quick] [--out DIR]}.
 */
public final class MetadataBenchmark {
  private static final int[] THREADS = {1, 8};
  /** A modification time no live file has: set after the past time, so a past lookup must reach into history. */
  private static final long TOUCHED_MTIME = 1_000_000_000_000L;

  private final BenchSettings settings;
  private final SideBySideClusters clusters;
  private final MetadataOps ops = new MetadataOps(new org.apache.hadoop.fs.Path("/bench"));
  private final ThroughputRunner runner = new ThroughputRunner();
  private final ResultTable table = new ResultTable();

  private MetadataBenchmark(BenchSettings settings, SideBySideClusters clusters) {
    this.settings = settings;
    this.clusters = clusters;
  }

  public static void main(String[] args) throws Exception {
    BenchSettings settings;
    try {
      settings = BenchSettings.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    quietLogging();
    long started = System.nanoTime();
    ResultTable table;
    try (SideBySideClusters clusters = SideBySideClusters.start(max(THREADS))) {
      table = new MetadataBenchmark(settings, clusters).run();
    } catch (Exception | LinkageError e) {
      e.printStackTrace();
      // A cluster that failed half-way through start-up can leave non-daemon threads behind.
      System.exit(1);
      return;
    }
    System.out.printf(Locale.ROOT, "%nmetadata benchmark, %s mode, %s, Java %s, %d cores; warm-up %d ms, %d x %d ms"
        + " per contender and row%n%n", settings.quick() ? "quick" : "full", Instant.now(),
        System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), settings.warmupMillis(),
        settings.rounds(), settings.measureMillis());
    table.print(System.out);
    Path csv = settings.out().resolve("metadata.csv");
    table.writeCsv(csv);
    System.out.printf(Locale.ROOT, "%nCSV: %s; total %.1f s%n", csv, (System.nanoTime() - started) / 1e9);
    System.exit(0);
  }

  private ResultTable run() throws IOException {
    List<FileSystem> fffs = clusters.fffsClients();
    List<FileSystem> hdfs = clusters.hdfsClients();
    runner.forEach(fffs, ops.populate(), MetadataOps.LISTING_SIZE);
    runner.forEach(hdfs, ops.populate(), MetadataOps.LISTING_SIZE);
    TimeSpec past = markPastAndTouch(fffs, hdfs);

    for (int threads : THREADS) {
      Measurement[] m = measure(threads, new Contender(fffs, ops.create()), new Contender(hdfs, ops.create()));
      add("create+close", threads, m[0], m[1], null);
    }
    for (int threads : THREADS) {
      Measurement[] m = measure(threads, new Contender(fffs, ops.mkdirs()), new Contender(hdfs, ops.mkdirs()));
      add("mkdirs", threads, m[0], m[1], null);
    }
    for (int threads : THREADS) {
      Measurement[] m = measure(threads, new Contender(fffs, ops.statLatest()),
          new Contender(hdfs, ops.statLatest()), new Contender(fffs, ops.statPast(past)));
      add("getFileStatus", threads, m[0], m[1], null);
      add("getFileStatus, past time", threads, m[2], null, m[0]);
    }
    for (int threads : THREADS) {
      Measurement[] m = measure(threads, new Contender(fffs, ops.list()), new Contender(hdfs, ops.list()));
      add("listStatus (1,000 entries)", threads, m[0], m[1], null);
    }
    return table;
  }

  /**
   * Takes the past time right after the listing files were created, then changes every file's times on both
   * sides, so that at the past time each file has a newer state to look past. Checks that FFFS answers the past.
   */
  private TimeSpec markPastAndTouch(List<FileSystem> fffsClients, List<FileSystem> hdfsClients) throws IOException {
    FileSystem fffs = fffsClients.get(0);
    TimeSpec past = TimeSpec.system(((FreezeFrameFileSystem) fffs).currentTime().physicalMicros());
    try {
      Thread.sleep(2);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    runner.forEach(fffsClients, ops.touch(TOUCHED_MTIME), MetadataOps.LISTING_SIZE);
    runner.forEach(hdfsClients, ops.touch(TOUCHED_MTIME), MetadataOps.LISTING_SIZE);
    FileStatus then = ((FreezeFrameFileSystem) fffs).getFileStatus(ops.file(0), past);
    FileStatus now = fffs.getFileStatus(ops.file(0));
    if (then.getModificationTime() == TOUCHED_MTIME || now.getModificationTime() != TOUCHED_MTIME) {
      throw new IOException("past lookup did not see the past: mtime then " + then.getModificationTime()
          + ", now " + now.getModificationTime());
    }
    return past;
  }

  private record Contender(List<FileSystem> clients, MetadataOp op) {}

  /** Warms every contender up, then measures them in rounds of alternating order. */
  private Measurement[] measure(int threads, Contender... contenders) throws IOException {
    for (Contender c : contenders) {
      runner.run(c.clients(), threads, c.op(), settings.warmupNanos());
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
        total[i] = total[i].plus(runner.run(c.clients(), threads, c.op(), settings.measureNanos()));
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

  /** The NameNodes' per-operation INFO lines (HDFS's state-change and audit logs) would cost more than the ops. */
  private static void quietLogging() {
    for (String name : new String[] {"org.apache.hadoop", "BlockStateChange", "org.eclipse.jetty", "io.netty"}) {
      LogManager.getLogger(name).setLevel(Level.WARN);
    }
  }

  private static int max(int[] values) {
    int max = 0;
    for (int v : values) {
      max = Math.max(max, v);
    }
    return max;
  }
}
