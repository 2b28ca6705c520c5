package io.fffs.bench.e2e;

import io.fffs.minicluster.MiniFffsCluster;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;

/**
 * What a write costs the writing thread: one in-process cluster of three DataNodes, files of replication 3 (or as
 * given) written in 1 MiB calls by the given write pipeline; per round the writer thread's CPU time per GiB (what
 * the client spends copying, checksumming and sending, which a shared machine's load changes little), the whole
 * process's (client and the three DataNodes: what the pipeline costs in all) and the wall-clock rate. Prints the
 * median of the rounds, and the thread groups that used the process's CPU over them.
 * {@code java -cp ... io.fffs.bench.e2e.PipelineWriteCpu [MIB_PER_ROUND] [ROUNDS] [REPLICATION] [PIPELINE]}
 * (256, 7, 3, fan-out).
 */
public final class PipelineWriteCpu {
  private PipelineWriteCpu() {}

  public static void main(String[] args) throws Exception {
    int mib = args.length > 0 ? Integer.parseInt(args[0]) : 256;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
    int replication = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    String pipeline = args.length > 3 ? args[3] : "fan-out";
    Path base = Files.createTempDirectory("fffs-pipeline-cpu");
    Configuration conf = new Configuration();
    conf.setInt("fffs.replication", replication);
    conf.setLong("fffs.blocksize", 64L << 20);
    conf.set("fffs.client.write.pipeline", pipeline);
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    byte[] chunk = new byte[1 << 20];
    new Random(30).nextBytes(chunk);
    double[] cpuMsPerGib = new double[rounds];
    double[] processMsPerGib = new double[rounds];
    double[] gbps = new double[rounds];
    String threadsBefore = null;
    String threadsAfter = null;
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(3)
        .memoryCapacity((long) mib * 3 / 2 << 20).build();
        FileSystem fs = cluster.getFileSystem()) {
      for (int round = -1; round < rounds; round++) {  // round -1 warms the JIT up
        if (round == 0) {
          threadsBefore = ThreadCpu.snapshot();
        }
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/cpu-" + round);
        long cpu = threads.getCurrentThreadCpuTime();
        long process = os.getProcessCpuTime();
        long start = System.nanoTime();
        try (FSDataOutputStream out = fs.create(file)) {
          for (int i = 0; i < mib; i++) {
            out.write(chunk);
          }
        }
        long wall = System.nanoTime() - start;
        cpu = threads.getCurrentThreadCpuTime() - cpu;
        process = os.getProcessCpuTime() - process;
        fs.delete(file, false);
        if (round >= 0) {
          cpuMsPerGib[round] = cpu / 1e6 / (mib / 1024.0);
          processMsPerGib[round] = process / 1e6 / (mib / 1024.0);
          gbps[round] = ((long) mib << 20) / (double) wall;
          System.out.printf(Locale.ROOT, "round %d: writer thread %.0f ms CPU per GiB, process %.0f, %.3f GB/s%n",
              round, cpuMsPerGib[round], processMsPerGib[round], gbps[round]);
        }
      }
      threadsAfter = ThreadCpu.snapshot();
    } finally {
      try (var paths = Files.walk(base)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    Arrays.sort(cpuMsPerGib);
    Arrays.sort(processMsPerGib);
    Arrays.sort(gbps);
    System.out.printf(Locale.ROOT, "median of %d rounds of %d MiB at replication %d by %s: writer thread %.0f ms CPU"
        + " per GiB, process %.0f ms CPU per GiB, %.3f GB/s%n", rounds, mib, replication, pipeline,
        cpuMsPerGib[rounds / 2], processMsPerGib[rounds / 2], gbps[rounds / 2]);
    System.out.println("thread groups, ms CPU over the " + rounds + " rounds (" + (long) mib * rounds
        + " MiB): " + ThreadCpu.delta(threadsBefore, threadsAfter, 16));
  }
}
