package io.fffs.bench.metadata;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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
