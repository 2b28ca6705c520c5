package io.fffs.bench.rdma;

import io.fffs.bench.e2e.BenchArgs;
import io.fffs.bench.e2e.Charts;
import io.fffs.bench.e2e.Machine;
import io.fffs.bench.e2e.Progress;
import io.fffs.bench.e2e.Report;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.XYChart;

/**
 * {@code bin/fffs bench rdma [--quick] [--out DIR]} (issue 9): FFFS writes and reads over UCX beside a raw jucx
 * GET/PUT loop of the same sizes and bytes ({@link RawUcxLoop}; goal: FFFS over UCX at least 80% of raw) and beside
 * FFFS over TCP (Netty), for transfer sizes 64 KiB, 256 KiB, 1 MiB and 4 MiB, once per UCX transport setting:
 * <ul>
 *   <li>{@code tcp}: {@code UCX_TLS=tcp};</li>
 *   <li>{@code shm}: {@code UCX_TLS=sysv,cma,self} with {@code UCX_MM_ERROR_HANDLING=y} (FFFS's endpoints ask for
 *       peer error handling, which UCX's shared memory grants only with it);</li>
 * </ul>
 * both with {@code UCX_NET_DEVICES=lo}. UCX reads its environment when a context is created, so each setting runs
 * in a child JVM of its own ({@link RdmaCase}) started with that environment, and {@code LD_LIBRARY_PATH}
 * extended by {@code -Dfffs.ucx.lib} if given (bin/fffs sets {@code LD_LIBRARY_PATH} itself). Within a child every
 * system runs on the same bytes in alternating order. Full run: 128 MiB per file and raw loop, 2 repetitions; quick
 * ({@code --quick}, under two minutes): 16 MiB, 1 repetition. Writes {@code DIR/rdma.csv} and {@code DIR/rdma.png}
 * and appends a summary line to docs/benchmarks.md.
 *
 * <p>For tests, system properties narrow the run: {@code fffs.bench.rdma.tls} (settings, e.g. {@code tcp}),
 * {@code fffs.bench.rdma.sizes} (bytes, comma-separated), {@code fffs.bench.rdma.bytes} (per file); and
 * {@code fffs.bench.rdma.write-into-arena=false} measures the DataNode's staged write path instead (A/B);
 * {@code fffs.bench.rdma.worker-spin=50us} sets {@code fffs.rdma.worker.spin} (how long the UCX worker threads
 * poll before they block; A/B);
 * {@code fffs.bench.rdma.jfr=DIR} records each child with JFR into {@code DIR/rdma-<setting>.jfr};
 * {@code fffs.bench.rdma.threads=true} prints the CPU per GB of each FFFS phase by thread ({@link ThreadCpu}). Every
 * {@code fffs.bench.rdma.*} property is passed on to the child JVMs.
 */
public final class RdmaBenchmark {
  static final String USAGE = "usage: bin/fffs bench rdma [--quick] [--out DIR]";
  static final int[] SIZES = {64 << 10, 256 << 10, 1 << 20, 4 << 20};
  static final double GOAL = 0.8;

  /** A UCX transport setting: its name and the environment a child JVM gets. */
  record Setting(String label, Map<String, String> env) {}

  static final List<Setting> SETTINGS = List.of(
      new Setting("tcp", Map.of("UCX_TLS", "tcp", "UCX_NET_DEVICES", "lo", "UCX_WARN_UNUSED_ENV_VARS", "n")),
      new Setting("shm", Map.of("UCX_TLS", "sysv,cma,self", "UCX_MM_ERROR_HANDLING", "y", "UCX_NET_DEVICES", "lo",
          "UCX_WARN_UNUSED_ENV_VARS", "n")));

  /** One line of the result table: one setting and size, every system. */
  record Line(String setting, int size, RdmaCase.Row ucx, RdmaCase.Row raw1, RdmaCase.Row raw4, RdmaCase.Row tcp) {
    double rawGet() {
      return Math.max(raw1.write(), raw4.write());
    }

    double rawPut() {
      return Math.max(raw1.read(), raw4.read());
    }

    double writeOfRaw() {
      return ucx.write() / rawGet();
    }

    double readOfRaw() {
      return ucx.read() / rawPut();
    }

    boolean verified() {
      return ucx.verified() && raw1.verified() && raw4.verified() && tcp.verified();
    }
  }

  private RdmaBenchmark() {}

  public static void main(String[] argv) {
    BenchArgs args;
    try {
      String[] withName = new String[argv.length + 1];
      withName[0] = "rdma";
      System.arraycopy(argv, 0, withName, 1, argv.length);
      args = BenchArgs.parse(withName);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage().replaceFirst("usage: .*", USAGE));
      System.exit(2);
      return;
    }
    System.setProperty("java.awt.headless", "true");
    int status = 0;
    try {
      Progress.say("rdma benchmark, %s mode, %s; output to %s", args.quick() ? "quick" : "full",
          Machine.describe(), args.out().toAbsolutePath());
      String summary = run(args);
      Report.finish(args, summary);
    } catch (Exception | LinkageError e) {
      e.printStackTrace();
      status = 1;
    }
    System.exit(status);
  }

  /** Runs every setting in its child JVM, prints the table, writes the CSV and PNG; returns the summary line. */
  static String run(BenchArgs args) throws Exception {
    int[] sizes = sizes();
    long bytes = Long.getLong("fffs.bench.rdma.bytes", args.quick() ? 16L << 20 : 128L << 20);
    int reps = args.quick() ? 1 : 2;
    List<Line> lines = new ArrayList<>();
    for (Setting setting : settings()) {
      Map<String, RdmaCase.Row> rows = runChild(setting, sizes, bytes, reps);
      for (int size : sizes) {
        lines.add(new Line(setting.label(), size, row(rows, RdmaCase.FFFS_UCX, size, setting),
            row(rows, RdmaCase.RAW_DEPTH_1, size, setting), row(rows, RdmaCase.RAW_DEPTH_4, size, setting),
            row(rows, RdmaCase.FFFS_TCP, size, setting)));
      }
    }
    print(lines, bytes, reps);
    printCpu(lines);
    writeCsv(args, lines);
    plot(args, lines);
    return summary(lines, bytes, reps);
  }

  private static int[] sizes() {
    String given = System.getProperty("fffs.bench.rdma.sizes");
    return given == null ? SIZES : Arrays.stream(given.split(",")).mapToInt(s -> Integer.parseInt(s.trim()))
        .toArray();
  }

  private static List<Setting> settings() {
    String given = System.getProperty("fffs.bench.rdma.tls");
    if (given == null) {
      return SETTINGS;
    }
    List<String> wanted = Arrays.asList(given.split(","));
    return SETTINGS.stream().filter(s -> wanted.contains(s.label())).toList();
  }

  private static RdmaCase.Row row(Map<String, RdmaCase.Row> rows, String system, int size, Setting setting)
      throws IOException {
    RdmaCase.Row row = rows.get(system + "/" + size);
    if (row == null) {
      throw new IOException("the " + setting.label() + " child reported no " + system + " row for " + size(size));
    }
    return row;
  }

  /** Starts the child JVM of {@code setting}, passes its stderr through and collects its result rows. */
  private static Map<String, RdmaCase.Row> runChild(Setting setting, int[] sizes, long bytes, int reps)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(
        Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx2g",
        "-Djava.awt.headless=true"));
    String jfr = System.getProperty("fffs.bench.rdma.jfr");
    if (jfr != null) { // diagnosis: a flight recording of each child, DIR/rdma-<setting>.jfr
      command.add("-XX:StartFlightRecording=settings=profile,filename=" + Paths.get(jfr, "rdma-" + setting.label()
          + ".jfr"));
    }
    for (String property : System.getProperties().stringPropertyNames()) {
      if (property.equals("fffs.home") || property.equals("log4j.configuration")
          || property.startsWith("fffs.bench.rdma.")) {
        command.add("-D" + property + "=" + System.getProperty(property));
      }
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), RdmaCase.class.getName(), setting.label(),
        String.join(",", Arrays.stream(sizes).mapToObj(String::valueOf).toList()), String.valueOf(bytes),
        String.valueOf(reps)));
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    builder.environment().putAll(setting.env());
    String lib = System.getProperty("fffs.ucx.lib");
    if (lib != null) {
      String old = builder.environment().get("LD_LIBRARY_PATH");
      builder.environment().put("LD_LIBRARY_PATH", old == null || old.isEmpty() ? lib : lib + ":" + old);
    }
    Progress.say("starting the %s child JVM (%s)", setting.label(), setting.env());
    Process child = builder.start();
    Map<String, RdmaCase.Row> rows = new LinkedHashMap<>();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
        StandardCharsets.UTF_8))) {
      for (String line; (line = out.readLine()) != null; ) {
        if (line.startsWith(RdmaCase.PREFIX)) {
          RdmaCase.Row row = RdmaCase.Row.parse(line);
          rows.put(row.system() + "/" + row.size(), row);
        } else {
          System.err.println(line);
        }
      }
    }
    int exit = child.waitFor();
    if (exit != 0) {
      throw new IOException("the " + setting.label() + " child JVM failed (exit " + exit + "); its errors are above");
    }
    return rows;
  }

  private static void print(List<Line> lines, long bytes, int reps) {
    System.out.printf(Locale.ROOT, "%nrdma, %d MiB per file and raw loop, %d repetition(s), GB/s (ratios: same"
        + " child JVM)%n%n", bytes >> 20, reps);
    System.out.println("| UCX_TLS | size | FFFS-UCX write | raw GET d1 / d4 | write % raw | FFFS-TCP write"
        + " | UCX/TCP write | FFFS-UCX read | raw PUT d1 / d4 | read % raw | FFFS-TCP read | UCX/TCP read"
        + " | verified |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (Line l : lines) {
      System.out.printf(Locale.ROOT, "| %s | %s | %.2f | %.2f / %.2f | %.0f%% | %.2f | %.2f | %.2f | %.2f / %.2f"
          + " | %.0f%% | %.2f | %.2f | %s |%n", l.setting(), size(l.size()), l.ucx().write(), l.raw1().write(),
          l.raw4().write(), 100 * l.writeOfRaw(), l.tcp().write(), l.ucx().write() / l.tcp().write(),
          l.ucx().read(), l.raw1().read(), l.raw4().read(), 100 * l.readOfRaw(), l.tcp().read(),
          l.ucx().read() / l.tcp().read(), l.verified() ? "yes" : "NO");
    }
  }

  private static void printCpu(List<Line> lines) {
    System.out.printf(Locale.ROOT, "%nCPU seconds per GB (this child JVM, all threads: client, NameNode,"
        + " DataNode)%n%n");
    System.out.println("| UCX_TLS | size | FFFS-UCX write | raw GET d1 | FFFS-TCP write | FFFS-UCX read"
        + " | raw PUT d1 | FFFS-TCP read |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    for (Line l : lines) {
      System.out.printf(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |%n", l.setting(),
          size(l.size()), l.ucx().writeCpu(), l.raw1().writeCpu(), l.tcp().writeCpu(), l.ucx().readCpu(),
          l.raw1().readCpu(), l.tcp().readCpu());
    }
  }

  private static void writeCsv(BenchArgs args, List<Line> lines) throws IOException {
    Report csv = new Report("ucx_tls", "size_bytes", "fffs_ucx_write_gbps", "fffs_ucx_read_gbps",
        "raw_get_d1_gbps", "raw_get_d4_gbps", "raw_put_d1_gbps", "raw_put_d4_gbps", "fffs_tcp_write_gbps",
        "fffs_tcp_read_gbps", "ucx_write_of_raw", "ucx_read_of_raw", "ucx_over_tcp_write", "ucx_over_tcp_read",
        "verified", "fffs_ucx_write_cpu_s_per_gb", "fffs_ucx_read_cpu_s_per_gb", "raw_get_d1_cpu_s_per_gb",
        "raw_put_d1_cpu_s_per_gb", "fffs_tcp_write_cpu_s_per_gb", "fffs_tcp_read_cpu_s_per_gb");
    for (Line l : lines) {
      csv.row(l.setting(), l.size(), l.ucx().write(), l.ucx().read(), l.raw1().write(), l.raw4().write(),
          l.raw1().read(), l.raw4().read(), l.tcp().write(), l.tcp().read(), l.writeOfRaw(), l.readOfRaw(),
          l.ucx().write() / l.tcp().write(), l.ucx().read() / l.tcp().read(), l.verified(), l.ucx().writeCpu(),
          l.ucx().readCpu(), l.raw1().writeCpu(), l.raw1().readCpu(), l.tcp().writeCpu(), l.tcp().readCpu());
    }
    csv.writeCsv(args.csv());
  }

  private static void plot(BenchArgs args, List<Line> lines) throws IOException {
    XYChart write = Charts.xy("Write: FFFS over UCX vs raw GET vs FFFS over TCP", "transfer size (KiB, log scale)",
        "GB/s");
    XYChart read = Charts.xy("Read: FFFS over UCX vs raw PUT vs FFFS over TCP", "transfer size (KiB, log scale)",
        "GB/s");
    XYChart ratio = Charts.xy("FFFS over UCX / raw jucx (best depth), same JVM", "transfer size (KiB, log scale)",
        "ratio");
    double[] ends = null;
    for (String setting : lines.stream().map(Line::setting).distinct().toList()) {
      List<Line> mine = lines.stream().filter(l -> l.setting().equals(setting)).toList();
      double[] x = mine.stream().mapToDouble(l -> l.size() / 1024.0).toArray();
      ends = new double[] {x[0], x[x.length - 1]};
      String ucx = "UCX_TLS " + setting;
      Charts.line(write, "FFFS-UCX (" + ucx + ")", x, mine.stream().mapToDouble(l -> l.ucx().write()).toArray());
      Charts.line(write, "raw GET (" + ucx + ")", x, mine.stream().mapToDouble(Line::rawGet).toArray());
      Charts.line(write, "FFFS-TCP (" + setting + " run)", x, mine.stream().mapToDouble(l -> l.tcp().write())
          .toArray());
      Charts.line(read, "FFFS-UCX (" + ucx + ")", x, mine.stream().mapToDouble(l -> l.ucx().read()).toArray());
      Charts.line(read, "raw PUT (" + ucx + ")", x, mine.stream().mapToDouble(Line::rawPut).toArray());
      Charts.line(read, "FFFS-TCP (" + setting + " run)", x, mine.stream().mapToDouble(l -> l.tcp().read())
          .toArray());
      Charts.line(ratio, "write (" + ucx + ")", x, mine.stream().mapToDouble(Line::writeOfRaw).toArray());
      Charts.line(ratio, "read (" + ucx + ")", x, mine.stream().mapToDouble(Line::readOfRaw).toArray());
    }
    for (XYChart chart : List.of(write, read, ratio)) {
      chart.getStyler().setXAxisLogarithmic(x(lines));
    }
    if (ends != null) {
      Charts.plain(ratio, "goal 0.8", ends, new double[] {GOAL, GOAL});
    }
    Charts.save(args.png(), List.of(write, read, ratio));
  }

  /** A logarithmic axis needs at least two sizes. */
  private static boolean x(List<Line> lines) {
    return lines.stream().map(Line::size).distinct().count() > 1;
  }

  private static String summary(List<Line> lines, long bytes, int reps) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%d MiB per file, %d rep(s); FFFS-UCX / raw"
        + " (write, read) and FFFS-UCX / FFFS-TCP (write, read) per UCX_TLS and size:", bytes >> 20, reps));
    double worst = Double.MAX_VALUE;
    boolean verified = true;
    for (Line l : lines) {
      worst = Math.min(worst, Math.min(l.writeOfRaw(), l.readOfRaw()));
      verified &= l.verified();
      b.append(String.format(Locale.ROOT, " %s %s %.0f%%/%.0f%% of raw, %.2f/%.2f x TCP;", l.setting(),
          size(l.size()), 100 * l.writeOfRaw(), 100 * l.readOfRaw(), l.ucx().write() / l.tcp().write(),
          l.ucx().read() / l.tcp().read()));
    }
    b.append(String.format(Locale.ROOT, " worst %.0f%% of raw (goal ≥ 80%%: %s); bytes verified: %s",
        100 * worst, worst >= GOAL ? "met" : "missed", verified ? "yes" : "NO"));
    return b.toString();
  }

  static String size(int bytes) {
    return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
  }
}
