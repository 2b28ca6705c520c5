package io.fffs.bench.e2e;

import io.fffs.bench.child.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a fresh client's read costs each side, FFFS through its data port beside HDFS: per configuration a cluster in
 * a JVM of its own ({@link FreshServerMain}: FFFS with an arena that holds the whole file, or one that holds almost
 * none of it, and HDFS) in which a file is written and then replaced; per round a fresh client JVM
 * ({@link FreshClientMain}, short-circuit reads off) reads it to the end twice, and FFFS once more as of a time
 * before the replacement (a past state, evicted first); then a fresh client walks it with positioned reads and
 * another reads it with 8 threads at once (the figure counts all 8 reads). For each: the rate, the CPU time each JVM used (all its
 * threads, the JITs' included: what a loaded machine inflates much less than the rate), and the thread groups that
 * used most of it ({@link ThreadCpu}).
 * {@code java -cp "$(bin/fffs classpath)" io.fffs.bench.e2e.FreshReadCpu [MIB] [ROUNDS] [IO_KIB] [CASES]}
 * (256, 2, 1024, {@code all,none,hdfs}); {@code -Dfffs.bench.child-jvm-options=...} adds options to every child JVM
 * (a flight recording, say).
 */
public final class FreshReadCpu {
  private static final int WRITE_IO = 1 << 20;
  private static final long NONE_ARENA = 16L << 20;
  private static final int TOP = 6;

  private FreshReadCpu() {}

  public static void main(String[] args) throws Exception {
    long size = (args.length > 0 ? Long.parseLong(args[0]) : 256) << 20;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    int io = (args.length > 2 ? Integer.parseInt(args[2]) : 1024) << 10;
    List<String> cases = List.of((args.length > 3 ? args[3] : "all,none,hdfs").split(","));
    for (String c : cases) {
      boolean hdfs = c.equals("hdfs");
      long arena = c.equals("none") ? NONE_ARENA : size + size / 4 + (64L << 20);
      run(hdfs ? "HDFS" : "FFFS", hdfs ? "-" : c, arena, size, io, rounds);
    }
  }

  /** One command of a fresh client, with the CPU each JVM used for it and the thread groups that used most. */
  private static void measure(String system, String arenaName, int round, String name, ChildJvm cluster,
      ChildJvm client, String command, long size, int io) throws IOException {
    String clusterThreads = cluster.ask("threads")[0];
    String clientThreads = client.ask("threads")[0];
    long clusterCpu = Long.parseLong(cluster.ask("cpu")[0]);
    long startMillis = System.currentTimeMillis();
    String[] answer = client.ask(command);
    clusterCpu = Long.parseLong(cluster.ask("cpu")[0]) - clusterCpu;
    System.out.printf(Locale.ROOT, "%s arena %s round %d %s of %d MiB in %d KiB calls: %.3f GB/s, client CPU %s ms,"
        + " cluster CPU %d ms (from %tT.%<tL)%n  client: %s%n  cluster: %s%n", system, arenaName, round, name,
        size >> 20, io >> 10, Double.parseDouble(answer[0]), answer[1], clusterCpu, startMillis,
        ThreadCpu.delta(clientThreads, client.ask("threads")[0], TOP),
        ThreadCpu.delta(clusterThreads, cluster.ask("threads")[0], TOP));
  }

  private static void run(String system, String arenaName, long arena, long size, int io, int rounds)
      throws IOException {
    Path dir = Files.createTempDirectory("fffs-fresh-read");
    String path = "/fresh/file";
    try (ChildJvm cluster = ChildJvm.start(system + " cluster", "3g", FreshServerMain.class, system, dir.toString(),
        String.valueOf(arena))) {
      String uri = cluster.ask("uri")[0];
      long before;
      try (ChildJvm writer = ChildJvm.start(system + " writer", "1g", FreshClientMain.class, uri)) {
        writer.ask("write " + path + " " + size + " " + WRITE_IO);
        cluster.ask("quiet");
        before = System.currentTimeMillis();
        writer.ask("write " + path + " " + size + " " + WRITE_IO + " 8");
      }
      cluster.ask("quiet");
      boolean fffs = system.equals("FFFS");
      for (int round = 0; round < rounds; round++) {
        try (ChildJvm client = fffs
            ? ChildJvm.start("FFFS client", "1g", FreshClientMain.class, uri, "fffs.client.read.shortcircuit=false")
            : ChildJvm.start("HDFS client", "1g", FreshClientMain.class, uri)) {
          List<String> reads = new ArrayList<>(List.of("read " + path, "read " + path));
          if (fffs) {
            reads.add("read " + path + "@s" + before);
          }
          String[] names = {"1st read", "2nd read", "past read"};
          for (int i = 0; i < reads.size(); i++) {
            measure(system, arenaName, round, names[i], cluster, client, reads.get(i) + " " + size + " " + io, size,
                io);
          }
        }
        // positioned reads and 8 readers at once, each in a fresh client too
        for (String kind : new String[] {"pread", "readers"}) {
          try (ChildJvm client = fffs
              ? ChildJvm.start("FFFS client", "1g", FreshClientMain.class, uri, "fffs.client.read.shortcircuit=false")
              : ChildJvm.start("HDFS client", "1g", FreshClientMain.class, uri)) {
            measure(system, arenaName, round, kind.equals("pread") ? "pread" : "8 readers' read", cluster, client,
                kind + " " + path + " " + size + " " + io + (kind.equals("pread") ? "" : " 8"), size, io);
          }
        }
      }
      if (fffs) {
        String[] stats = cluster.ask("stats");
        System.out.printf(Locale.ROOT, "FFFS arena %s: %s pages reloaded from segment files in %s reads, %s sent"
            + " from them%n", arenaName, stats[0], stats[1], stats[4]);
      }
    } finally {
      Clusters.deleteRecursively(dir);
    }
  }
}
