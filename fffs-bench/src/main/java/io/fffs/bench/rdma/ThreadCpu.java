package io.fffs.bench.rdma;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Diagnosis ({@code -Dfffs.bench.rdma.threads=true}): which threads of the child JVM spent the CPU of one
 * measured phase, as CPU seconds per GB moved, thread numbers folded so that pools add up. Java threads only
 * (not the JVM's GC and compiler threads).
 */
final class ThreadCpu {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private final Map<Long, Long> start = snapshot();

  static boolean enabled() {
    return Boolean.getBoolean("fffs.bench.rdma.threads");
  }

  private static Map<Long, Long> snapshot() {
    Map<Long, Long> cpu = new HashMap<>();
    for (long id : THREADS.getAllThreadIds()) {
      cpu.put(id, THREADS.getThreadCpuTime(id));
    }
    return cpu;
  }

  /** "name 0.52, name 0.31, ..." for the threads that used the most CPU since construction, per GB of {@code bytes}. */
  String top(long bytes, int count) {
    Map<String, Long> byName = new HashMap<>();
    for (long id : THREADS.getAllThreadIds()) {
      ThreadInfo info = THREADS.getThreadInfo(id);
      long now = THREADS.getThreadCpuTime(id);
      if (info == null || now < 0) {
        continue;
      }
      long used = now - start.getOrDefault(id, 0L);
      byName.merge(info.getThreadName().replaceAll("[0-9]+", "N"), used, Long::sum);
    }
    List<Map.Entry<String, Long>> sorted = new ArrayList<>(byName.entrySet());
    sorted.sort(Map.Entry.<String, Long>comparingByValue().reversed());
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < Math.min(count, sorted.size()); i++) {
      out.append(String.format(Locale.ROOT, "%s%s %.2f", i == 0 ? "" : ", ", sorted.get(i).getKey(),
          sorted.get(i).getValue() / (double) bytes));
    }
    return out.toString();
  }
}
