package io.fffs.bench.e2e;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The CPU time this JVM's threads used, from {@code /proc/self/task} (every native thread, the JIT's and GC's too,
 * which the JDK's thread bean does not list), grouped by name with digits dropped ({@code fffs-data-handler-3-1} and
 * {@code -3-2} count together). A snapshot is one word, {@code name=ms,name=ms,...}, so a child can answer it on its
 * command line; {@link #delta} ranks what grew between two snapshots. Linux only: elsewhere a snapshot is empty.
 */
final class ThreadCpu {
  private static final long TICK_MS = 10;  // USER_HZ is 100 on every Linux this runs on

  private ThreadCpu() {}

  /** User + system ms per thread group, as one word. */
  static String snapshot() {
    Map<String, Long> ms = new HashMap<>();
    Path tasks = Paths.get("/proc/self/task");
    if (!Files.isDirectory(tasks)) {
      return "-";
    }
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(tasks)) {
      for (Path task : dirs) {
        try {
          String stat = Files.readString(task.resolve("stat"));
          // The name is in parentheses and may hold spaces; the fields after it are space-separated.
          int open = stat.indexOf('(');
          int close = stat.lastIndexOf(')');
          String name = stat.substring(open + 1, close).replaceAll("[0-9]+", "").replaceAll("[\\s=,]", "_")
              .replaceAll("[-_]+$", "");
          String[] fields = stat.substring(close + 2).split(" ");
          long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);  // utime, stime
          ms.merge(name.isEmpty() ? "?" : name, ticks * TICK_MS, Long::sum);
        } catch (IOException | RuntimeException e) {
          // the thread ended while it was read
        }
      }
    } catch (IOException e) {
      return "-";
    }
    StringBuilder b = new StringBuilder();
    ms.forEach((name, v) -> b.append(b.length() == 0 ? "" : ",").append(name).append('=').append(v));
    return b.length() == 0 ? "-" : b.toString();
  }

  /** The {@code top} thread groups by CPU used between two snapshots, as {@code name ms, ...}. */
  static String delta(String before, String after, int top) {
    Map<String, Long> a = parse(before);
    List<Map.Entry<String, Long>> grown = new ArrayList<>();
    parse(after).forEach((name, v) -> grown.add(Map.entry(name, v - a.getOrDefault(name, 0L))));
    grown.sort((x, y) -> Long.compare(y.getValue(), x.getValue()));
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, Long> e : grown.subList(0, Math.min(top, grown.size()))) {
      b.append(String.format(Locale.ROOT, "%s%s %d", b.length() == 0 ? "" : ", ", e.getKey(), e.getValue()));
    }
    return b.toString();
  }

  private static Map<String, Long> parse(String snapshot) {
    Map<String, Long> ms = new HashMap<>();
    if (snapshot.equals("-")) {
      return ms;
    }
    for (String pair : snapshot.split(",")) {
      int eq = pair.lastIndexOf('=');
      ms.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
    }
    return ms;
  }
}
