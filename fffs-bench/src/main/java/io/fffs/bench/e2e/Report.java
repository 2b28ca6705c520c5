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
 * one-line summary appended to {@code runs.log} beside the CSV (or to {@code -Dfffs.bench.log=FILE};
 * {@code none}: nowhere), so every run leaves a dated line next to its raw results.
 */
public final class Report {
  /** The run log's name, in the directory of the run's CSV. */
  static final String RUN_LOG = "runs.log";

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
    System.out.printf(Locale.ROOT, "%nCSV: %s%n", args.csv());
    if (Files.exists(args.png())) {
      System.out.printf(Locale.ROOT, "Plot: %s%n", args.png());
    }
    appendSummary(args, summary);
    Progress.say("done");
  }

  /** Appends {@code date · command · machine · summary} to the run log; says where, or why not. */
  public static void appendSummary(BenchArgs args, String summary) {
    String line = String.format(Locale.ROOT, "%s · %s · %s, load %.1f · %s", Machine.now(), args.command(),
        Machine.describe(), Machine.loadAverage(), summary);
    Optional<Path> log = runLog(args);
    if (log.isEmpty()) {
      return;
    }
    try {
      Files.createDirectories(log.get().toAbsolutePath().getParent());
      Files.writeString(log.get(), line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      System.err.println("summary appended to " + log.get());
    } catch (IOException e) {
      System.err.println("could not append to " + log.get() + " (" + e + "); summary: " + line);
    }
  }

  /** {@code -Dfffs.bench.log=FILE} names the file to append to ({@code none}: nowhere); else runs.log by the CSV. */
  private static Optional<Path> runLog(BenchArgs args) {
    String log = System.getProperty("fffs.bench.log");
    if (log != null) {
      return log.equals("none") ? Optional.empty() : Optional.of(Paths.get(log));
    }
    return Optional.of(args.csv().toAbsolutePath().getParent().resolve(RUN_LOG));
  }
}
