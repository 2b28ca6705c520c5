package io.fffs.bench.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The outputs of one benchmark run: a CSV (header plus rows, numbers formatted with {@link Locale#ROOT}) and a
 * one-line summary appended to {@code docs/benchmarks.md} under its run-log section, found by walking up from the
 * distribution ({@code fffs.home}) or the working directory.
 */
public final class Report {
  static final String LOG_HEADING = "## End-to-end benchmarks: run log";

  private final List<String> lines = new ArrayList<>();

  public Report(String... header) {
    lines.add(String.join(",", header));
  }

  /** One CSV row; strings are quoted, numbers printed with up to 6 significant decimals. */
  public void row(Object... cells) {
    StringBuilder b = new StringBuilder();
    for (Object cell : cells) {
      if (b.length() > 0) {
        b.append(',');
      }
      if (cell instanceof String s) {
        b.append('"').append(s.replace("\"", "\"\"")).append('"');
      } else if (cell instanceof Double d) {
        b.append(Double.isNaN(d) ? "" : String.format(Locale.ROOT, "%.6g", d));
      } else {
        b.append(cell);
      }
    }
    lines.add(b.toString());
  }

  public void writeCsv(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  /** The end of a benchmark run: where its CSV and plot are, its summary appended to the run log, "done". */
  public static void finish(BenchArgs args, String summary) {
    System.out.printf(Locale.ROOT, "%nCSV: %s%nPlot: %s%n", args.csv(), args.png());
    appendSummary(args, summary);
    Progress.say("done");
  }

  /** Appends {@code - date · command · machine · summary} to docs/benchmarks.md; says where, or why not. */
  public static void appendSummary(BenchArgs args, String summary) {
    String line = String.format(Locale.ROOT, "- %s · `%s` · %s, load %.1f · %s", Machine.now(), args.command(),
        Machine.describe(), Machine.loadAverage(), summary);
    Optional<Path> doc = findDoc();
    if (doc.isEmpty()) {
      System.err.println("docs/benchmarks.md not found; summary: " + line);
      return;
    }
    try {
      String text = Files.readString(doc.get(), StandardCharsets.UTF_8);
      StringBuilder add = new StringBuilder();
      if (!text.endsWith("\n")) {
        add.append('\n');
      }
      if (!text.contains(LOG_HEADING)) {
        add.append('\n').append(LOG_HEADING).append("\n\nOne line per run of `bin/fffs bench <name>`, appended by"
            + " the benchmark itself (the sections above hold the reviewed full runs).\n\n");
      }
      add.append(line).append('\n');
      Files.writeString(doc.get(), add, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
      System.err.println("summary appended to " + doc.get());
    } catch (IOException e) {
      System.err.println("could not append to " + doc.get() + " (" + e + "); summary: " + line);
    }
  }

  /** {@code -Dfffs.bench.log=FILE} names the file to append to ({@code none}: append nowhere); else it is found. */
  private static Optional<Path> findDoc() {
    String log = System.getProperty("fffs.bench.log");
    if (log != null) {
      return log.equals("none") ? Optional.empty() : Optional.of(Paths.get(log));
    }
    List<Path> starts = new ArrayList<>();
    String home = System.getProperty("fffs.home");
    if (home != null) {
      starts.add(Paths.get(home).toAbsolutePath());
    }
    starts.add(Paths.get("").toAbsolutePath());
    for (Path start : starts) {
      for (Path dir = start; dir != null; dir = dir.getParent()) {
        Path doc = dir.resolve("docs").resolve("benchmarks.md");
        if (Files.isRegularFile(doc)) {
          return Optional.of(doc);
        }
      }
    }
    return Optional.empty();
  }
}
