package io.fffs.bench.e2e;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Warm-up passes until this JVM's JIT compilers have settled: a pass runs, and the next one follows unless the
 * compilers were busy for at most {@link #SETTLED} of the pass's wall time (HotSpot's accumulated compilation
 * time), between a least and a most number of passes.
 *
 * <p>Why not a fixed amount: on 2 cores a fresh JVM's one C2 thread competes with the measured threads, and the
 * tiered policy raises its thresholds while its queue is long, so C2 may still be compiling long after a fixed
 * warm-up and slow what is measured.
 */
final class JitWarmUp {
  /** The largest share of a pass's wall time spent compiling at which the JIT counts as settled. */
  static final double SETTLED = 0.05;

  /** One warm-up pass, numbered from 0; returns the bytes it wrote. */
  @FunctionalInterface
  interface Pass {
    long run(int index) throws IOException;
  }

  /** How a warm-up went: passes run, bytes written, and the compilers' share of the last pass's wall time. */
  record Result(int passes, long bytesWritten, double lastCompileShare) {
    /** The words a child JVM answers with ({@link #parse}). */
    String encode() {
      return passes + " " + bytesWritten + " " + lastCompileShare;
    }

    static Result parse(String[] words) {
      return new Result(Integer.parseInt(words[0]), Long.parseLong(words[1]), Double.parseDouble(words[2]));
    }

    String describe() {
      return String.format(Locale.ROOT, "%d passes, %d MiB written, JIT compiling %.0f%% of the last pass", passes,
          bytesWritten >> 20, 100 * lastCompileShare);
    }
  }

  private JitWarmUp() {}

  /** Bytes one pass writes in {@code packet}-sized calls: {@code passBytes}, but at most 8,192 calls. */
  static long bytesPerPacket(int packet, long passBytes) {
    return Math.min(passBytes, 8192L * packet);
  }

  /**
   * Runs {@code pass} at least {@code minPasses} and at most {@code maxPasses} times, stopping after the first pass
   * (from the {@code minPasses}-th on) whose compilation share was at most {@link #SETTLED}. Where the JVM cannot
   * report compilation time, every one of the {@code maxPasses} runs.
   */
  static Result run(Pass pass, int minPasses, int maxPasses) throws IOException {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
    return run(pass, minPasses, maxPasses, timed ? jit::getTotalCompilationTime : null);
  }

  /** {@link #run(Pass, int, int)} with the compilers' accumulated milliseconds from {@code compilingMillis}. */
  static Result run(Pass pass, int minPasses, int maxPasses, LongSupplier compilingMillis) throws IOException {
    if (minPasses < 1 || maxPasses < minPasses) {
      throw new IllegalArgumentException("passes " + minPasses + ".." + maxPasses + ": need 1 <= min <= max");
    }
    boolean timed = compilingMillis != null;
    long written = 0;
    double share = Double.NaN;
    int passes = 0;
    while (passes < maxPasses) {
      long compiling = timed ? compilingMillis.getAsLong() : 0;
      long start = System.nanoTime();
      written += pass.run(passes++);
      long nanos = Math.max(1, System.nanoTime() - start);
      if (timed) {
        share = (compilingMillis.getAsLong() - compiling) * 1e6 / nanos;
        if (passes >= minPasses && share <= SETTLED) {
          break;
        }
      }
    }
    return new Result(passes, written, share);
  }
}
