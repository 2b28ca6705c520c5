package io.fffs.bench.metadata;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** This JVM's CPU time (Linux {@code /proc}), all its threads' but the JIT compilers'. */
final class JvmCpu {
  /** Linux's clock ticks per second in {@code /proc}'s times (USER_HZ). */
  private static final long TICK_NANOS = 10_000_000L;

  private JvmCpu() {}

  static long nanosWithoutJit() throws IOException {
    long ticks = ticks(Paths.get("/proc/self/stat"));
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc/self/task"))) {
      for (Path task : tasks) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (IOException ended) {
          continue;  // a thread that ended meanwhile
        }
        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        if (name.contains("CompilerThre")) {
          ticks -= ticks(stat);
        }
      }
    }
    return ticks * TICK_NANOS;
  }

  private static long ticks(Path stat) throws IOException {
    return ticks(Files.readString(stat));
  }

  /** utime + stime: the 12th and 13th fields after the command name. */
  private static long ticks(String stat) {
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }
}
