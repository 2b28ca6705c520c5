package io.fffs.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/** What the summary line says about the machine: cores, memory (from /proc), load, Java, date. */
public final class Machine {
  private Machine() {}

  public static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  /** MemTotal from /proc/meminfo in GiB, or NaN where there is no /proc. */
  public static double memoryGiB() {
    long kib = meminfoKiB("MemTotal:");
    return kib < 0 ? Double.NaN : kib / (1024.0 * 1024.0);
  }

  /** MemAvailable from /proc/meminfo in bytes, or -1 where there is no /proc. */
  public static long availableMemoryBytes() {
    long kib = meminfoKiB("MemAvailable:");
    return kib < 0 ? -1 : kib * 1024;
  }

  private static long meminfoKiB(String field) {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/meminfo"))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux: say nothing
    }
    return -1;
  }

  /** The 1-minute load average from /proc/loadavg, or NaN. */
  public static double loadAverage() {
    try {
      List<String> lines = Files.readAllLines(Paths.get("/proc/loadavg"));
      return Double.parseDouble(lines.get(0).split(" ")[0]);
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  public static String now() {
    return ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
  }

  /** "2 cores, 23.5 GiB, OpenJDK 17.0.15". */
  public static String describe() {
    return String.format(Locale.ROOT, "%d cores, %.1f GiB, Java %s", cores(), memoryGiB(),
        System.getProperty("java.version"));
  }
}
