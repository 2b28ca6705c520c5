package io.fffs.bench;

import org.apache.log4j.Level;
import org.apache.log4j.LogManager;

/** Logging the benchmarks share. */
public final class BenchLogging {
  private BenchLogging() {}

  /**
   * Sets both systems' loggers to WARN: their per-operation INFO lines (HDFS's state-change and audit logs, FFFS's
   * and the DataNodes' progress lines) would cost more than the operations measured and drown the progress lines,
   * and Ratis formats its per-entry DEBUG lines when no log4j configuration is found.
   */
  public static void quiet() {
    for (String name : new String[] {"org.apache.hadoop", "BlockStateChange", "org.eclipse.jetty", "io.netty",
        "io.fffs", "org.apache.ratis"}) {
      LogManager.getLogger(name).setLevel(Level.WARN);
    }
  }
}
