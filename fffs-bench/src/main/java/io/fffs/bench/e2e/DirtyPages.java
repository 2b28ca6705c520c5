package io.fffs.bench.e2e;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Writes the page cache's dirty pages out between measured phases ({@code sync}), so that one system's write does
 * not run during the other's deferred writeback. HDFS's DataNode writes block files through the page cache, so
 * its {@code close} returns before the bytes reach the disk and the kernel writes them out later, on the same disk
 * and cores as whatever is measured next; FFFS's persistence is let go quiet between phases for the same reason.
 */
final class DirtyPages {
  private DirtyPages() {}

  /** Seconds {@code sync} took, or NaN if it could not run (the run goes on; the log says why). */
  static double writeOut() {
    long start = System.nanoTime();
    try {
      Process sync = new ProcessBuilder("sync").redirectErrorStream(true).start();
      if (!sync.waitFor(120, TimeUnit.SECONDS)) {
        sync.destroyForcibly();
        Progress.say("  sync did not finish within 120 s; going on");
        return Double.NaN;
      }
    } catch (IOException e) {
      Progress.say("  cannot run sync (%s); dirty pages are left to the kernel", e.getMessage());
      return Double.NaN;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Double.NaN;
    }
    return (System.nanoTime() - start) / 1e9;
  }
}
