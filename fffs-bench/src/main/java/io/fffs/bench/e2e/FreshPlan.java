package io.fffs.bench.e2e;

import java.util.Arrays;
import java.util.Properties;

/**
 * What one {@code bench fresh} run measures: file sizes, read call sizes and how many runs of it all. Defaults come
 * from the mode (quick: 64 MiB, 1 MiB calls; full: 256 MiB, 1 GiB and 4 GiB, 64 KiB, 1 MiB and 4 MiB calls; one run);
 * {@code -Dfffs.bench.fresh.sizes=MIB[,MIB...]}, {@code -Dfffs.bench.fresh.ios=KIB[,KIB...]} and
 * {@code -Dfffs.bench.fresh.runs=N} override them, so the median of several alternating runs at one size is one
 * command; {@code -Dfffs.bench.fresh.cluster-warm-up=MIB} has each cluster write and read a file of that size through
 * fresh clients before the measured cases (0, the default: none), so the clients measured meet a cluster whose code
 * is compiled, as a client of a running cluster does.
 *
 * @param sizes file sizes in bytes
 * @param ios read call sizes in bytes; 1 MiB is always among them (the summary, the plot and 8 readers use it)
 * @param runs how many times every size is measured, FFFS and HDFS alternating within each run
 * @param clusterWarmUp bytes of the file each cluster writes and reads before the measured cases (0: none)
 */
record FreshPlan(long[] sizes, int[] ios, int runs, long clusterWarmUp) {
  static final String SIZES = "fffs.bench.fresh.sizes";
  static final String IOS = "fffs.bench.fresh.ios";
  static final String RUNS = "fffs.bench.fresh.runs";
  static final String CLUSTER_WARM_UP = "fffs.bench.fresh.cluster-warm-up";
  static final int SUMMARY_IO = 1 << 20;

  static FreshPlan of(boolean quick, Properties properties) {
    long[] sizes = quick ? new long[] {64L << 20} : new long[] {256L << 20, 1L << 30, 4L << 30};
    int[] ios = quick ? new int[] {SUMMARY_IO} : new int[] {64 << 10, SUMMARY_IO, 4 << 20};
    String givenSizes = properties.getProperty(SIZES);
    if (givenSizes != null) {
      sizes = Arrays.stream(numbers(SIZES, givenSizes, 1 << 20)).map(mib -> mib << 20).toArray();
    }
    String givenIos = properties.getProperty(IOS);
    if (givenIos != null) {
      ios = Arrays.stream(numbers(IOS, givenIos, 1 << 20)).mapToInt(kib -> (int) (kib << 10)).toArray();
      if (Arrays.stream(ios).noneMatch(io -> io == SUMMARY_IO)) {
        throw new IllegalArgumentException(IOS + "=" + givenIos + " must include 1024 (KiB): the summary, the plot and"
            + " the 8 readers use 1 MiB calls");
      }
    }
    int runs = 1;
    String givenRuns = properties.getProperty(RUNS);
    if (givenRuns != null) {
      runs = (int) numbers(RUNS, givenRuns, 100)[0];
    }
    long warmUp = 0;
    String givenWarmUp = properties.getProperty(CLUSTER_WARM_UP);
    if (givenWarmUp != null && !givenWarmUp.trim().equals("0")) {
      warmUp = numbers(CLUSTER_WARM_UP, givenWarmUp, 1 << 20)[0] << 20;
    }
    return new FreshPlan(sizes, ios, runs, warmUp);
  }

  /** Positive whole numbers up to {@code max}, comma-separated. */
  private static long[] numbers(String key, String value, long max) {
    try {
      long[] parsed = Arrays.stream(value.split(",")).map(String::trim).mapToLong(Long::parseLong).toArray();
      if (parsed.length == 0 || Arrays.stream(parsed).anyMatch(n -> n < 1 || n > max)) {
        throw new NumberFormatException();
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("-D" + key + "=" + value + ": expected whole numbers from 1 to " + max
          + ", comma-separated", e);
    }
  }
}
