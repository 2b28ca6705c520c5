package io.fffs.bench.rdma;

import io.fffs.bench.BenchFiles;
import io.fffs.bench.e2e.FileIo;
import io.fffs.bench.e2e.Progress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.fs.FileSystem;
import org.apache.log4j.Level;
import org.apache.log4j.LogManager;

/**
 * One child JVM of {@code bin/fffs bench rdma}: every measurement for one UCX transport setting, which UCX reads
 * from the environment when a context is created and so cannot change within a JVM ({@link RdmaBenchmark} starts
 * one child per setting with its environment). For each transfer size and repetition it measures, in an order
 * that alternates between repetitions, FFFS over UCX, the raw jucx loop ({@link RawUcxLoop}) at depth 1 and at
 * depth 4, and FFFS over TCP (Netty) — all in this JVM, on the same bytes. Results go to stdout as {@link Row}
 * lines that the parent parses; progress to stderr.
 *
 * <p>Arguments: {@code LABEL SIZES BYTES REPS} — the setting's name, comma-separated transfer sizes, bytes per file
 * (and per raw loop) and repetitions.
 */
public final class RdmaCase {
  static final String PREFIX = "RDMA-ROW ";

  /**
   * One measurement: which system, the transfer size, write and read GB/s (for the raw loop: GET and PUT), the
   * CPU seconds this JVM (every thread) spent per GB written and read, and whether the bytes were verified. CPU per
   * GB depends far less on the machine's load than GB/s does: it says what a transfer costs.
   */
  record Row(String system, int size, double write, double read, double writeCpu, double readCpu,
      boolean verified) {
    String line() {
      return String.format(Locale.ROOT, "%s%s %d %.6f %.6f %.6f %.6f %b", PREFIX, system, size, write, read,
          writeCpu, readCpu, verified);
    }

    static Row parse(String line) {
      String[] f = line.substring(PREFIX.length()).trim().split(" ");
      return new Row(f[0], Integer.parseInt(f[1]), Double.parseDouble(f[2]), Double.parseDouble(f[3]),
          Double.parseDouble(f[4]), Double.parseDouble(f[5]), Boolean.parseBoolean(f[6]));
    }
  }

  /** CPU nanoseconds of this process so far (all threads), or 0 where the JVM cannot say. */
  static long cpuNanos() {
    java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory
        .getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
  }

  static final String FFFS_UCX = "fffs-ucx";
  static final String FFFS_TCP = "fffs-tcp";
  static final String RAW_DEPTH_1 = "raw-d1";
  static final String RAW_DEPTH_4 = "raw-d4";
  private static final int RAW_DEPTH = 4;
  /** Bytes each system moves unmeasured at each size before its repetitions. */
  private static final long WARM_UP_PER_SIZE = 32L << 20;

  private RdmaCase() {}

  public static void main(String[] args) throws Exception {
    for (String name : new String[] {"org.apache.hadoop", "org.eclipse.jetty", "io.netty", "io.fffs"}) {
      LogManager.getLogger(name).setLevel(Level.WARN);
    }
    String label = args[0];
    int[] sizes = java.util.Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray();
    long bytes = Long.parseLong(args[2]);
    int reps = Integer.parseInt(args[3]);
    Path tmp = Files.createTempDirectory("fffs-bench-rdma-" + label + "-");
    int status = 0;
    try {
      for (Row row : run(label, sizes, bytes, reps, tmp)) {
        System.out.println(row.line());
      }
    } catch (Exception | LinkageError e) {
      e.printStackTrace();
      status = 1;
    } finally {
      BenchFiles.deleteRecursively(tmp);
    }
    System.out.flush();
    System.exit(status); // the cluster's non-daemon threads must not keep the child alive
  }

  static List<Row> run(String label, int[] sizes, long bytes, int reps, Path tmp) throws Exception {
    int max = java.util.Arrays.stream(sizes).max().orElseThrow();
    long warmUp = 16L << 20;
    long arena = (64L << 20) + 2 * warmUp + 2L * sizes.length * (reps * bytes + Math.min(bytes, WARM_UP_PER_SIZE));
    Progress.say("[%s] UCX_TLS=%s: %d MiB per file, %d repetition(s); FFFS arena %d MiB", label,
        System.getenv("UCX_TLS"), bytes >> 20, reps, arena >> 20);
    List<Row> rows = new ArrayList<>();
    try (FffsTransfers fffs = new FffsTransfers(tmp.resolve("fffs"), arena, max);
        RawUcxLoop raw = new RawUcxLoop(max, RAW_DEPTH)) {
      try (FileSystem ucx = fffs.client("ucx", 64 << 10); FileSystem tcp = fffs.client("tcp", 64 << 10)) {
        FileIo.warmUp(ucx, warmUp);
        FileIo.warmUp(tcp, warmUp);
      }
      raw.run(64 << 10, warmUp, RAW_DEPTH);
      Progress.say("[%s] cluster up and warmed up", label);
      for (int size : sizes) {
        rows.addAll(measure(label, fffs, raw, size, bytes, reps));
      }
    }
    return rows;
  }

  /**
   * Unmeasured: each system moves {@code bytes} at this size first, so that the code paths of this size (packet
   * splitting, request pipelining, reservations chained or not) are compiled before the clock starts.
   */
  private static void warmUp(FileSystem ucx, FileSystem tcp, RawUcxLoop raw, int size, byte[] data, byte[] buffer,
      long bytes) throws Exception {
    for (FileSystem fs : new FileSystem[] {ucx, tcp}) {
      org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("/rdma/warm-up-" + size);
      FffsTransfers.write(fs, path, bytes, data);
      FffsTransfers.read(fs, path, bytes, buffer);
      fs.delete(path, false);
    }
    raw.run(size, bytes, 1);
    raw.run(size, bytes, RAW_DEPTH);
  }

  private static List<Row> measure(String label, FffsTransfers fffs, RawUcxLoop raw, int size, long bytes, int reps)
      throws Exception {
    byte[] data = FileIo.randomBytes(size, size);
    byte[] buffer = new byte[size];
    double[][] sums = new double[4][2]; // nanoseconds per system and direction: rates combine as bytes over time
    double[][] cpu = new double[4][2]; // CPU nanoseconds per system and direction
    boolean[] verified = {true, true, true, true};
    String[] systems = {FFFS_UCX, RAW_DEPTH_1, RAW_DEPTH_4, FFFS_TCP};
    try (FileSystem ucx = fffs.client("ucx", size); FileSystem tcp = fffs.client("tcp", size)) {
      warmUp(ucx, tcp, raw, size, data, buffer, Math.min(bytes, WARM_UP_PER_SIZE));
      for (int rep = 0; rep < reps; rep++) {
        for (int turn = 0; turn < systems.length; turn++) {
          int s = rep % 2 == 0 ? turn : systems.length - 1 - turn;
          double write;
          double read;
          if (s == 0 || s == 3) {
            FileSystem fs = s == 0 ? ucx : tcp;
            org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("/rdma/" + systems[s] + "-" + size
                + "-" + rep);
            ThreadCpu writeThreads = ThreadCpu.enabled() ? new ThreadCpu() : null;
            long c0 = cpuNanos();
            write = FffsTransfers.write(fs, path, bytes, data);
            long c1 = cpuNanos();
            cpu[s][0] += c1 - c0;
            if (writeThreads != null) {
              Progress.say("[%s] %s %s write, CPU s/GB by thread: %s", label, RdmaBenchmark.size(size),
                  systems[s], writeThreads.top(bytes, 8));
            }
            ThreadCpu readThreads = ThreadCpu.enabled() ? new ThreadCpu() : null;
            long c2 = cpuNanos();
            read = FffsTransfers.read(fs, path, bytes, buffer);
            cpu[s][1] += cpuNanos() - c2;
            if (readThreads != null) {
              Progress.say("[%s] %s %s read, CPU s/GB by thread: %s", label, RdmaBenchmark.size(size),
                  systems[s], readThreads.top(bytes, 8));
            }
            verified[s] &= FffsTransfers.verify(fs, path, bytes, data);
          } else {
            RawUcxLoop.Result r = raw.run(size, bytes, s == 1 ? 1 : RAW_DEPTH);
            write = r.getGbps();
            read = r.putGbps();
            cpu[s][0] += r.getCpuNanos();
            cpu[s][1] += r.putCpuNanos();
            verified[s] &= r.verified();
          }
          sums[s][0] += bytes / write;
          sums[s][1] += bytes / read;
          Progress.say("[%s] %s: %s write %.3f GB/s, read %.3f GB/s", label, RdmaBenchmark.size(size), systems[s],
              write, read);
        }
      }
    }
    List<Row> rows = new ArrayList<>();
    double total = (double) bytes * reps;
    for (int s = 0; s < systems.length; s++) {
      rows.add(new Row(systems[s], size, total / sums[s][0], total / sums[s][1], cpu[s][0] / total,
          cpu[s][1] / total, verified[s])); // CPU ns per byte = CPU s per GB
    }
    return rows;
  }
}
