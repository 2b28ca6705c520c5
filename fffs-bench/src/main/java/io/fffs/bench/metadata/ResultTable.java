package io.fffs.bench.metadata;

import io.fffs.bench.e2e.Charts;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.CategoryChart;

/** The results: one row per operation and thread count, printed as a Markdown table and written as CSV. */
final class ResultTable {
  /** Throughputs in ops/s; {@code hdfs} or {@code latest} is NaN where there is nothing to compare with. */
  record Row(String op, int threads, double fffs, double hdfs, double latest) {
    double fffsOverHdfs() {
      return fffs / hdfs;
    }

    double pastOverLatest() {
      return fffs / latest;
    }
  }

  private final List<Row> rows = new ArrayList<>();

  void add(Row row) {
    rows.add(row);
  }

  void print(PrintStream out) {
    out.println("| op | threads | FFFS ops/s | HDFS ops/s | FFFS/HDFS | past/latest |");
    out.println("|---|---|---|---|---|---|");
    for (Row row : rows) {
      out.printf(Locale.ROOT, "| %s | %d | %s | %s | %s | %s |%n", row.op(), row.threads(), count(row.fffs()),
          count(row.hdfs()), ratio(row.fffsOverHdfs()), ratio(row.pastOverLatest()));
    }
  }

  void writeCsv(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    List<String> lines = new ArrayList<>();
    lines.add("op,threads,fffs_ops_per_s,hdfs_ops_per_s,fffs_over_hdfs,past_over_latest");
    for (Row row : rows) {
      lines.add(String.format(Locale.ROOT, "\"%s\",%d,%s,%s,%s,%s", row.op(), row.threads(), csv(row.fffs()),
          csv(row.hdfs()), csv(row.fffsOverHdfs()), csv(row.pastOverLatest())));
    }
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  /**
   * The run-log line: FFFS/HDFS per op (1 / 8 threads), past/latest, and whether FFFS ≥ HDFS on every op; e.g.
   * {@code FFFS/HDFS: create+close 1.92 / 2.45, ...; past/latest 0.94 / 0.98 (goal FFFS ≥ HDFS on every op: met)}.
   */
  String summary() {
    Map<String, List<Row>> byOp = new LinkedHashMap<>();
    List<String> past = new ArrayList<>();
    List<String> missed = new ArrayList<>();
    for (Row row : rows) {
      if (!Double.isNaN(row.hdfs())) {
        byOp.computeIfAbsent(shortName(row.op()), k -> new ArrayList<>()).add(row);
        if (row.fffsOverHdfs() < 1) {
          missed.add(String.format(Locale.ROOT, "%s with %d thread%s", shortName(row.op()), row.threads(),
              row.threads() == 1 ? "" : "s"));
        }
      } else if (!Double.isNaN(row.latest())) {
        past.add(ratio(row.pastOverLatest()));
      }
    }
    StringBuilder b = new StringBuilder("FFFS/HDFS: ");
    String sep = "";
    for (Map.Entry<String, List<Row>> e : byOp.entrySet()) {
      b.append(sep).append(e.getKey()).append(' ');
      b.append(String.join(" / ", e.getValue().stream().map(r -> ratio(r.fffsOverHdfs())).toList()));
      sep = ", ";
    }
    b.append(" (").append(String.join(" / ", threadCounts())).append(" threads); past/latest ")
        .append(String.join(" / ", past))
        .append(missed.isEmpty() ? " (goal FFFS ≥ HDFS on every op: met)"
            : " (goal FFFS ≥ HDFS on every op: missed at " + String.join(", ", missed) + ")");
    return b.toString();
  }

  /** Two bar charts: FFFS/HDFS per op and thread count against parity, and both systems' ops/s per op. */
  void plot(Path png, String setUp) throws IOException {
    Map<Integer, List<Row>> byThreads = new TreeMap<>();
    for (Row row : rows) {
      if (!Double.isNaN(row.hdfs())) {
        byThreads.computeIfAbsent(row.threads(), k -> new ArrayList<>()).add(row);
      }
    }
    CategoryChart ratios = Charts.bars("NameNode metadata ops/s, FFFS / HDFS (" + setUp + ")", "operation",
        "FFFS ops/s ÷ HDFS ops/s (1 = parity)");
    CategoryChart rates = Charts.bars("NameNode metadata ops/s", "operation", "ops/s");
    for (Map.Entry<Integer, List<Row>> e : byThreads.entrySet()) {
      List<String> ops = e.getValue().stream().map(r -> shortName(r.op())).toList();
      String threads = e.getKey() + (e.getKey() == 1 ? " thread" : " threads");
      ratios.addSeries(threads, ops, e.getValue().stream().map(r -> (Number) r.fffsOverHdfs()).toList());
      rates.addSeries("FFFS, " + threads, ops, e.getValue().stream().map(r -> (Number) r.fffs()).toList());
      rates.addSeries("HDFS, " + threads, ops, e.getValue().stream().map(r -> (Number) r.hdfs()).toList());
    }
    Charts.save(png, List.of(ratios, rates));
  }

  private List<String> threadCounts() {
    return rows.stream().map(r -> String.valueOf(r.threads())).distinct().toList();
  }

  private static String shortName(String op) {
    int cut = op.indexOf(" (");
    return cut < 0 ? op : op.substring(0, cut);
  }

  private static String count(double value) {
    return Double.isNaN(value) ? "—" : String.format(Locale.ROOT, "%,.0f", value);
  }

  private static String ratio(double value) {
    return Double.isNaN(value) ? "—" : String.format(Locale.ROOT, "%.2f", value);
  }

  private static String csv(double value) {
    return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.3f", value);
  }
}
