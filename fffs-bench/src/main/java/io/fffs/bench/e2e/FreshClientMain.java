package io.fffs.bench.e2e;

import io.fffs.bench.BenchLogging;
import io.fffs.bench.child.ChildLoop;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A fresh client in a JVM of its own, as a new Spark executor or a command-line tool is: {@code FreshClientMain URI
 * [KEY=VALUE]...} opens one {@code FileSystem} (its configuration with those settings) and serves ({@link ChildLoop});
 * every answer is GB/s (10^9 bytes per second) and the CPU milliseconds this JVM used for the command (all its
 * threads, the JIT's included: what the case costs the client, whatever else runs on the machine):
 * <pre>
 *   write PATH SIZE IO [SEED] → ok GBPS CPU_MS   (creates PATH, writes SIZE bytes in IO-byte calls, closes it)
 *   read PATH SIZE IO         → ok GBPS CPU_MS   (reads it to the end in IO-byte calls)
 *   pread PATH SIZE IO        → ok GBPS CPU_MS   (readFully(position, IO bytes) from 0 to the end)
 *   readers PATH SIZE IO N    → ok GBPS CPU_MS   (N threads each read the whole file at once; aggregate)
 *   delete PATH               → ok 0 0
 *   threads                   → ok SNAPSHOT      (the CPU time of each thread group, {@link ThreadCpu})
 * </pre>
 */
public final class FreshClientMain {
  private FreshClientMain() {}

  public static void main(String[] args) {
    BenchLogging.quiet();
    ChildLoop.run(() -> {
      Configuration conf = new Configuration();
      for (int i = 1; i < args.length; i++) {
        int eq = args[i].indexOf('=');
        conf.set(args[i].substring(0, eq), args[i].substring(eq + 1));
      }
      FileSystem fs = FileSystem.newInstance(URI.create(args[0]), conf);
      return new ChildLoop.Side() {
        @Override
        public String serve(String[] c) throws Exception {
          if (c[0].equals("threads")) {
            return ThreadCpu.snapshot();
          }
          if (c[0].equals("delete")) {
            fs.delete(new Path(c[1]), false);
            return "0 0";
          }
          Path path = new Path(c[1]);
          long size = Long.parseLong(c[2]);
          int io = Integer.parseInt(c[3]);
          long cpu = processCpuNanos();
          double gbps = switch (c[0]) {
            case "write" -> FileIo.write(fs, path, size,
                FileIo.randomBytes(io, c.length > 4 ? Long.parseLong(c[4]) : 7));
            case "read" -> FileIo.read(fs, path, size, new byte[io]);
            case "pread" -> pread(fs, path, size, io);
            case "readers" -> readers(fs, path, size, io, Integer.parseInt(c[4]));
            default -> throw new IllegalArgumentException("unknown command " + c[0]);
          };
          return gbps + " " + (processCpuNanos() - cpu) / 1_000_000;
        }

        @Override
        public void close() throws Exception {
          fs.close();
        }
      };
    });
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  static double pread(FileSystem fs, Path path, long size, int io) throws IOException {
    byte[] buffer = new byte[io];
    long start = System.nanoTime();
    try (FSDataInputStream in = fs.open(path)) {
      for (long at = 0; at < size; at += io) {
        in.readFully(at, buffer, 0, (int) Math.min(io, size - at));
      }
    }
    return size / (double) (System.nanoTime() - start);
  }

  static double readers(FileSystem fs, Path path, long size, int io, int n) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      long start = System.nanoTime();
      List<Future<Double>> reads = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        reads.add(pool.submit(() -> FileIo.read(fs, path, size, new byte[io])));
      }
      for (Future<Double> read : reads) {
        read.get();
      }
      return n * size / (double) (System.nanoTime() - start);
    } finally {
      pool.shutdownNow();
    }
  }
}
