package io.fffs.bench.metadata;

import io.fffs.bench.e2e.Charts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.CategoryChart;

/**
 * The HA results: changes per second of FFFS with one and three NameNodes and of HDFS with one NameNode and with HA,
 * per op and thread count; printed as a Markdown table, written as CSV and plotted. HDFS's own HA / single ratio
 * puts FFFS's 3 / 1 in context on the machine it ran on.
 */
final class HaTable {
  /** Changes per second of each side. */
  record Row(String op, int threads, double fffsOne, double fffsThree, double hdfsOne, double hdfsHa) {
    double fffsThreeOverOne() {
      return fffsThree / fffsOne;
    }

    double hdfsHaOverOne() {
      return hdfsHa / hdfsOne;
    }

    double fffsHaOverHdfsHa() {
      return fffsThree / hdfsHa;
    }
  }

  private final List<Row> rows = new ArrayList<>();
  private String failover = "";

  void add(Row row) {
    rows.add(row);
  }

  /** The failover line printed after the table. */
  void failover(String line) {
    failover = line;
  }

  String markdown() {
    StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%nHA: changes per second, FFFS with 3 NameNodes"
        + " (Raft) vs 1, HDFS HA (2 NameNodes, 3 JournalNodes) vs 1 NameNode, and FFFS HA vs HDFS HA%n%n"
        + "| op | threads | FFFS, 1 NameNode | FFFS, 3 NameNodes | FFFS 3 / 1 | HDFS, 1 NameNode | HDFS HA"
        + " | HDFS HA / 1 | FFFS HA / HDFS HA |%n|---|---:|---:|---:|---:|---:|---:|---:|---:|%n"));
    for (Row r : rows) {
      out.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %,.0f | %.2f | %,.0f | %,.0f | %.2f | %.2f |%n",
          r.op(), r.threads(), r.fffsOne(), r.fffsThree(), r.fffsThreeOverOne(), r.hdfsOne(), r.hdfsHa(),
          r.hdfsHaOverOne(), r.fffsHaOverHdfsHa()));
    }
    return out.append(failover).toString();
  }

  void writeCsv(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    List<String> lines = new ArrayList<>();
    lines.add("op,threads,fffs_1nn_ops_per_s,fffs_3nn_ops_per_s,fffs_3_over_1,hdfs_1nn_ops_per_s,hdfs_ha_ops_per_s,"
        + "hdfs_ha_over_1,fffs_ha_over_hdfs_ha");
    for (Row r : rows) {
      lines.add(String.format(Locale.ROOT, "\"%s\",%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f", r.op(), r.threads(),
          r.fffsOne(), r.fffsThree(), r.fffsThreeOverOne(), r.hdfsOne(), r.hdfsHa(), r.hdfsHaOverOne(),
          r.fffsHaOverHdfsHa()));
    }
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  /** Two bar charts: the HA / single ratios of both systems and FFFS HA / HDFS HA, and every side's changes/s. */
  void plot(Path png) throws IOException {
    List<String> cases = rows.stream().map(r -> r.op() + ", " + r.threads() + (r.threads() == 1 ? " thread"
        : " threads")).toList();
    CategoryChart ratios = Charts.bars("HA changes/s ratios (1 = parity)", "operation", "ratio");
    ratios.addSeries("FFFS 3 / 1 NameNode", cases, rows.stream().map(r -> (Number) r.fffsThreeOverOne()).toList());
    ratios.addSeries("HDFS HA / 1 NameNode", cases, rows.stream().map(r -> (Number) r.hdfsHaOverOne()).toList());
    ratios.addSeries("FFFS HA / HDFS HA", cases, rows.stream().map(r -> (Number) r.fffsHaOverHdfsHa()).toList());
    CategoryChart rates = Charts.bars("HA changes per second", "operation", "ops/s");
    rates.addSeries("FFFS, 1 NameNode", cases, rows.stream().map(r -> (Number) r.fffsOne()).toList());
    rates.addSeries("FFFS, 3 NameNodes", cases, rows.stream().map(r -> (Number) r.fffsThree()).toList());
    rates.addSeries("HDFS, 1 NameNode", cases, rows.stream().map(r -> (Number) r.hdfsOne()).toList());
    rates.addSeries("HDFS HA", cases, rows.stream().map(r -> (Number) r.hdfsHa()).toList());
    Charts.save(png, List.of(ratios, rates));
  }
}
