package io.fffs.bench.e2e;

import io.fffs.bench.child.ChildJvm;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.knowm.xchart.CategoryChart;

/**
 * Reads by a fresh client, in memory or not: no JIT warm-up anywhere, every case a client JVM of its own started for
 * it, as a Spark executor or a command-line tool reads a file once. For each file size, FFFS with its arena holding
 * all of the file, a quarter of it and none of it (a few MiB), and HDFS, each cluster in a JVM of its own
 * ({@link FreshServerMain}), clients in fresh JVMs ({@link FreshClientMain}):
 * <ol>
 *   <li>write: a fresh client writes the file in 128 KiB calls, then replaces it with other bytes (not timed);</li>
 *   <li>read: a fresh client reads it to the end twice (1st and 2nd read, same JVM), then FFFS reads the file it
 *       replaced, as of a time between the two writes (a past state, written earlier, evicted first);</li>
 *   <li>pread: a fresh client walks it with {@code readFully(position, IO)};</li>
 *   <li>8 readers: a fresh client reads it with 8 threads at once (aggregate).</li>
 * </ol>
 * FFFS's clients read with short-circuit reads (the default: the client copies from the DataNode's arena and segment
 * files itself), as "FFFS direct I/O" with {@code fffs.client.read.shortcircuit.direct-io} on (segment pages not in
 * the page cache read around it), and, as "FFFS data port", with short-circuit reads off (every byte through the
 * DataNode's socket).
 * Reads use IO-byte calls (quick: 1 MiB; full: 64 KiB, 1 MiB, 4 MiB, a fresh JVM per IO size). The ceilings in the
 * same run are a plain read of the same number of bytes from a tmpfs file and of FFFS's segment files (the
 * arena-none cluster's, as the page cache holds them after its reads), in 1 MiB calls. Sizes: quick 64 MiB; full
 * 256 MiB, 1 GiB, 4 GiB ({@link FreshPlan}: other sizes, and several runs whose medians the summary and plot show).
 * Rates are GB/s (10^9 bytes per second); beside each, the CPU time the client JVM used for the case (all its
 * threads, the JIT's included), which other load on the machine does not inflate as it does time.
 */
final class FreshBenchmark implements EndToEndBenchmark.Run {
  private static final int WRITE_IO = 128 << 10;
  private static final int READERS = 8;
  private static final long NONE_ARENA = 16L << 20;
  static final String PORT = "FFFS data port";
  static final String DIRECT = "FFFS direct I/O";
  private static final String SHORT_CIRCUIT_OFF = "fffs.client.read.shortcircuit=false";
  private static final String DIRECT_IO_ON = "fffs.client.read.shortcircuit.direct-io=true";
  /**
   * FFFS's reader kinds, in the order they read. The default's first reader finds the cluster as a writer left it;
   * direct I/O reads last, after the segment files were dropped from the page cache again ({@link #dropCached}), as
   * it reads from the page cache what that holds.
   */
  private static final String[] FFFS_READERS = {"FFFS", PORT, DIRECT};

  /** One measured figure. */
  record Row(int run, String system, String arena, long sizeMiB, String kind, int ioKiB, int readers, double gbps,
      long clientCpuMs) {}

  private final List<Row> rows = new ArrayList<>();
  private int runs = 1;
  private int run;
  private long clusterWarmUp;

  @Override
  public String run(BenchArgs args, Path tmp) throws Exception {
    FreshPlan plan = FreshPlan.of(args.quick(), System.getProperties());
    runs = plan.runs();
    clusterWarmUp = plan.clusterWarmUp();
    Report report = new Report("system", "arena", "size_mib", "case", "io_kib", "readers", "gbps", "client_cpu_ms",
        "run");
    for (run = 1; run <= runs; run++) {
      for (long size : plan.sizes()) {
        measure(size, plan.ios(), tmp);
      }
    }
    List<CategoryChart> charts = new ArrayList<>();
    StringBuilder summary = new StringBuilder();
    for (long size : plan.sizes()) {
      charts.add(chart(size));
      summary.append(summarize(size));
    }
    for (Row row : rows) {
      report.row(row.system(), row.arena(), row.sizeMiB(), row.kind(), row.ioKiB(), row.readers(), row.gbps(),
          row.clientCpuMs() < 0 ? "" : row.clientCpuMs(), row.run());
      System.out.printf(Locale.ROOT, "run %d  %-18s %-8s %6d MiB  %-10s %5d KiB x%d  %.3f GB/s  client CPU %d ms%n",
          row.run(), row.system(), row.arena(), row.sizeMiB(), row.kind(), row.ioKiB(), row.readers(), row.gbps(),
          row.clientCpuMs());
    }
    report.writeCsv(args.csv());
    Charts.save(args.png(), charts);
    return summary.toString().trim();
  }

  /** One size in this run: FFFS with each arena, then HDFS, then the raw ceilings. */
  private void measure(long size, int[] ios, Path tmp) throws IOException {
    Map<String, Long> arenas = new LinkedHashMap<>();
    arenas.put("all", size + size / 4 + (64L << 20));
    arenas.put("quarter", size / 4);
    arenas.put("none", NONE_ARENA);
    for (Map.Entry<String, Long> arena : arenas.entrySet()) {
      Path dir = tmp.resolve("fffs-" + (size >> 20) + "-" + arena.getKey());
      runSystem("FFFS", arena.getKey(), arena.getValue(), dir, size, ios);
      Clusters.deleteRecursively(dir);
    }
    Path hdfsDir = tmp.resolve("hdfs-" + (size >> 20));
    runSystem("HDFS", "-", 0, hdfsDir, size, ios);
    Clusters.deleteRecursively(hdfsDir);
    rows.add(new Row(run, "raw tmpfs", "-", size >> 20, "read 1st", 1024, 1, rawTmpfs(size), -1));
  }

  /** One cluster, its cases each in a fresh client JVM. */
  private void runSystem(String system, String arena, long arenaBytes, Path dir, long size, int[] ios)
      throws IOException {
    Progress.say("run %d of %d, %s%s, %d MiB file: starting the cluster", run, runs, system,
        system.equals("FFFS") ? " arena " + arena : "", size >> 20);
    String path = "/fresh/file";
    try (ChildJvm server = ChildJvm.start(system + " cluster", "3g", FreshServerMain.class, system, dir.toString(),
        String.valueOf(arenaBytes))) {
      String uri = server.ask("uri")[0];
      if (clusterWarmUp > 0) {
        warmUp(system, uri, server);
      }
      long afterWrite;
      try (ChildJvm client = client(system, uri)) {
        add(system, arena, size, "write", WRITE_IO, 1, client.ask("write " + path + " " + size + " " + WRITE_IO));
        server.ask("quiet");
        afterWrite = System.currentTimeMillis();
        // Replaced by other bytes: the reads below read the new file, the past read the one written above.
        client.ask("write " + path + " " + size + " " + WRITE_IO + " 8");
      }
      server.ask("quiet");
      for (String reader : system.equals("FFFS") ? FFFS_READERS : new String[] {system}) {
        if (reader.equals(DIRECT)) {
          if (arena.equals("none")) {
            // The ceiling: the segment files as the page cache holds them after the page-cache readers.
            rows.add(new Row(run, "raw segment files", "-", size >> 20, "read 1st", 1024, 1, rawSegments(dir), -1));
          }
          server.ask("unmap");  // mapped pages would stay in the page cache
          dropCached(dir);
        }
        readCases(reader, arena, size, ios, server, uri, path, afterWrite);
      }
      if (system.equals("FFFS")) {
        String[] stats = server.ask("stats");
        Progress.say("FFFS arena %s: %s pages reloaded from segment files in %s reads, %s sent from"
            + " them", arena, stats[0], stats[1], stats[4]);
      }
    }
  }

  /**
   * Compiles the cluster's write and read paths before the measured cases: fresh clients write a file of
   * {@link #clusterWarmUp} bytes, read it twice and walk it with positioned reads (FFFS also through its data port),
   * and delete it.
   */
  private void warmUp(String system, String uri, ChildJvm server) throws IOException {
    Progress.say("%s: warming the cluster up with %d MiB", system, clusterWarmUp >> 20);
    String path = "/warm-up/file";
    String size = String.valueOf(clusterWarmUp);
    String io = String.valueOf(FreshPlan.SUMMARY_IO);
    try (ChildJvm client = client(system, uri)) {
      client.ask("write " + path + " " + size + " " + WRITE_IO);
    }
    for (String reader : system.equals("FFFS") ? FFFS_READERS : new String[] {system}) {
      try (ChildJvm client = client(reader, uri)) {
        client.ask("read " + path + " " + size + " " + io);
        client.ask("read " + path + " " + size + " " + io);
        client.ask("pread " + path + " " + size + " " + io);
      }
    }
    try (ChildJvm client = client(system, uri)) {
      client.ask("delete " + path);
    }
    server.ask("quiet");
  }

  /** The read cases of one reader kind ("FFFS data port": short-circuit reads off), each in a fresh client JVM. */
  private void readCases(String reader, String arena, long size, int[] ios, ChildJvm server, String uri, String path,
      long afterWrite) throws IOException {
    boolean fffs = !reader.equals("HDFS");
    for (int io : ios) {
      try (ChildJvm client = client(reader, uri)) {
        String read = "read " + path + " " + size + " " + io;
        add(reader, arena, size, "read 1st", io, 1, client.ask(read));
        add(reader, arena, size, "read 2nd", io, 1, client.ask(read));
        if (fffs) {
          add(reader, arena, size, "read past", io, 1,
              client.ask("read " + path + "@s" + afterWrite + " " + size + " " + io));
        }
      }
      try (ChildJvm client = client(reader, uri)) {
        add(reader, arena, size, "pread", io, 1, client.ask("pread " + path + " " + size + " " + io));
      }
    }
    try (ChildJvm client = client(reader, uri)) {
      add(reader, arena, size, READERS + " readers", 1 << 20, READERS,
          client.ask("readers " + path + " " + size + " " + (1 << 20) + " " + READERS));
    }
  }

  private static ChildJvm client(String system, String uri) throws IOException {
    return switch (system) {
      case PORT -> ChildJvm.start(system + " client", "1g", FreshClientMain.class, uri, SHORT_CIRCUIT_OFF);
      case DIRECT -> ChildJvm.start(system + " client", "1g", FreshClientMain.class, uri, DIRECT_IO_ON);
      default -> ChildJvm.start(system + " client", "1g", FreshClientMain.class, uri);
    };
  }

  private void add(String system, String arena, long size, String kind, int io, int readers, String[] answer) {
    rows.add(new Row(run, system, arena, size >> 20, kind, io >> 10, readers, Double.parseDouble(answer[0]),
        Long.parseLong(answer[1])));
  }

  /**
   * Drops the segment files under {@code dir} from the page cache: GNU dd's {@code iflag=nocache} advises the kernel
   * that none of a file's pages are needed (POSIX_FADV_DONTNEED, which Java cannot ask for).
   */
  private static void dropCached(Path dir) throws IOException {
    for (Path segment : segmentFiles(dir)) {
      Process dd = new ProcessBuilder("dd", "if=" + segment, "iflag=nocache", "count=0", "status=none")
          .redirectErrorStream(true).start();
      try {
        String said = new String(dd.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (dd.waitFor() != 0) {
          throw new IOException("dd could not drop " + segment + " from the page cache: " + said.trim());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted while dropping segment files from the page cache");
      }
    }
    long stretches = 0;
    long resident = 0;
    for (Path segment : segmentFiles(dir)) {
      try (java.nio.channels.FileChannel file = java.nio.channels.FileChannel.open(segment)) {
        for (long at = 0; at + (1 << 20) <= file.size(); at += 1 << 20) {
          stretches++;
          resident += io.fffs.common.io.PageCache.resident(file, at, 1 << 20) ? 1 : 0;
        }
      }
    }
    if (resident > stretches / 20) {
      Progress.say("%d of %d MiB of segment files still wholly in the page cache after dropping them: the direct"
          + " I/O reads below find them there", resident, stretches);
    }
  }

  private static List<Path> segmentFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(f -> f.getFileName().toString().startsWith("seg-")).sorted().toList();
    }
  }

  /** A plain read of the segment files under {@code dir}, in 1 MiB calls, as the page cache holds them now. */
  private static double rawSegments(Path dir) throws IOException {
    List<Path> segments = segmentFiles(dir);
    ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
    long bytes = 0;
    long start = System.nanoTime();
    for (Path segment : segments) {
      try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ)) {
        for (int n; (n = channel.read(buffer.clear())) > 0; ) {
          bytes += n;
        }
      }
    }
    return bytes / (double) (System.nanoTime() - start);
  }

  /** Writes {@code size} bytes to a tmpfs file, then times a plain read of it in 1 MiB calls. */
  private static double rawTmpfs(long size) throws IOException {
    Path shm = Paths.get("/dev/shm");
    Path file = Files.createTempFile(Files.isDirectory(shm) ? shm : Paths.get(System.getProperty("java.io.tmpdir")),
        "fffs-bench-fresh-", ".bin");
    try {
      ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
      buffer.put(FileIo.randomBytes(1 << 20, 3)).flip();
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        for (long at = 0; at < size; at += buffer.capacity()) {
          channel.write(buffer.clear(), at);
        }
      }
      long start = System.nanoTime();
      long bytes = 0;
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
        for (int n; (n = channel.read(buffer.clear())) > 0; ) {
          bytes += n;
        }
      }
      return bytes / (double) (System.nanoTime() - start);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /** The figure of one case in each run, in run order (NaN for a run that lacks it). */
  private double[] perRun(long size, String system, String arena, String kind, boolean cpu) {
    double[] values = new double[runs];
    Arrays.fill(values, Double.NaN);
    for (Row r : rows) {
      if (r.sizeMiB() == size >> 20 && r.system().equals(system) && r.arena().equals(arena) && r.kind().equals(kind)
          && r.ioKiB() == (kind.equals("write") ? WRITE_IO >> 10 : FreshPlan.SUMMARY_IO >> 10)) {
        values[r.run() - 1] = cpu ? r.clientCpuMs() : r.gbps();
      }
    }
    return values;
  }

  /** The median of the non-NaN values (the mean of the middle two for an even count), NaN if there are none. */
  static double median(double[] values) {
    double[] present = Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
    if (present.length == 0) {
      return Double.NaN;
    }
    int mid = present.length / 2;
    return present.length % 2 == 1 ? present[mid] : (present[mid - 1] + present[mid]) / 2;
  }

  /** Per run, {@code a[i] / b[i]}: ratios are taken within a run, against the baseline measured beside it. */
  private static double[] over(double[] a, double[] b) {
    double[] ratios = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      ratios[i] = a[i] / b[i];
    }
    return ratios;
  }

  /** Bars per case, a series per FFFS arena and HDFS, at 1 MiB calls (medians of the runs). */
  private CategoryChart chart(long size) {
    CategoryChart chart = Charts.bars(String.format(Locale.ROOT, "Fresh client, %d MiB file, 1 DataNode%s",
        size >> 20, runs > 1 ? ", medians of " + runs + " runs" : ""), "case (reads in 1 MiB calls)", "GB/s");
    List<String> kinds = List.of("write", "read 1st", "read 2nd", "read past", "pread", READERS + " readers");
    String[][] series = {{"FFFS", "all"}, {"FFFS", "quarter"}, {"FFFS", "none"}, {"HDFS", "-"}};
    for (String[] s : series) {
      List<Double> values = new ArrayList<>();
      for (String kind : kinds) {
        double v = median(perRun(size, s[0], s[1], kind, false));
        values.add(Double.isNaN(v) ? 0.0 : v);
      }
      chart.addSeries(s[0].equals("HDFS") ? "HDFS" : "FFFS arena " + s[1], kinds, values);
    }
    return chart;
  }

  private String summarize(long size) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%d MiB, 1 MiB reads%s, FFFS/HDFS%s:", size >> 20,
        clusterWarmUp > 0 ? ", clusters warmed up with " + (clusterWarmUp >> 20) + " MiB" : "",
        runs > 1 ? " (medians of " + runs + " runs)" : ""));
    for (String arena : List.of("all", "quarter", "none")) {
      b.append(String.format(Locale.ROOT, " arena %s write %.2f 1st %.2f (client CPU %.2f) 2nd %.2f pread %.2f"
          + " 8 readers %.2f, past/1st %.2f (direct I/O: 1st %.2f 2nd %.2f pread %.2f 8 readers %.2f,"
          + " past/1st %.2f; data port: 1st %.2f 2nd %.2f pread %.2f 8 readers %.2f, past/1st %.2f);",
          arena, ratio(size, "FFFS", arena, "write"), ratio(size, "FFFS", arena, "read 1st"),
          median(over(perRun(size, "FFFS", arena, "read 1st", true), perRun(size, "HDFS", "-", "read 1st", true))),
          ratio(size, "FFFS", arena, "read 2nd"), ratio(size, "FFFS", arena, "pread"),
          ratio(size, "FFFS", arena, READERS + " readers"), pastOverFirst(size, "FFFS", arena),
          ratio(size, DIRECT, arena, "read 1st"), ratio(size, DIRECT, arena, "read 2nd"),
          ratio(size, DIRECT, arena, "pread"), ratio(size, DIRECT, arena, READERS + " readers"),
          pastOverFirst(size, DIRECT, arena), ratio(size, PORT, arena, "read 1st"), ratio(size, PORT, arena, "read 2nd"),
          ratio(size, PORT, arena, "pread"), ratio(size, PORT, arena, READERS + " readers"),
          pastOverFirst(size, PORT, arena)));
    }
    return b.append(' ').toString();
  }

  /**
   * The median over runs of a past read's rate over the first read's of the latest state: both are a client's first
   * read of those bytes (with the arena holding none of the file, both of evicted data).
   */
  private double pastOverFirst(long size, String system, String arena) {
    return median(over(perRun(size, system, arena, "read past", false), perRun(size, system, arena, "read 1st",
        false)));
  }

  /** The median over runs of {@code system}'s rate over HDFS's in the same run. */
  private double ratio(long size, String system, String arena, String kind) {
    return median(over(perRun(size, system, arena, kind, false), perRun(size, "HDFS", "-", kind, false)));
  }
}
