package io.fffs.bench.e2e;

import io.fffs.bench.child.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What a fresh client's reads of data only the segment files hold cost: an FFFS cluster in a JVM of its own
 * ({@link FreshServerMain}, a 16 MiB arena) in which a fresh client writes a file; then, with {@code drop}, the
 * DataNode unmaps its segment files and the kernel drops its clean caches ({@code /proc/sys/vm/drop_caches}, root
 * only); then three fresh clients in turn read the file to the end. Each read prints its rate, the client JVM's
 * CPU, the cluster JVM's CPU, and how the DataNode served the pages (loaded and checked, or sent from the files).
 * {@code java -cp "$(bin/fffs classpath)" io.fffs.bench.e2e.ColdReadCpu [MIB] [IO_KIB] [now|drop] [KEY=VALUE...]}
 * (4096, 1024, now); the settings go to the reading clients, e.g.
 * {@code fffs.client.read.shortcircuit=false} (the data port) or {@code fffs.client.read.shortcircuit.direct-io=true}.
 */
public final class ColdReadCpu {
  private static final long ARENA = 16L << 20;
  private static final int WRITE_IO = 1 << 20;
  private static final int READS = 3;

  private ColdReadCpu() {}

  public static void main(String[] args) throws Exception {
    long size = (args.length > 0 ? Long.parseLong(args[0]) : 4096) << 20;
    int io = (args.length > 1 ? Integer.parseInt(args[1]) : 1024) << 10;
    String when = args.length > 2 ? args[2] : "now";
    if (!when.equals("now") && !when.equals("drop")) {
      throw new IllegalArgumentException("the third argument is now or drop (then KEY=VALUE settings), got " + when);
    }
    boolean drop = when.equals("drop");
    Path dir = Files.createTempDirectory("fffs-cold-read");
    String path = "/cold/file";
    try (ChildJvm cluster = ChildJvm.start("FFFS cluster", "3g", FreshServerMain.class, "FFFS", dir.toString(),
        String.valueOf(ARENA))) {
      String uri = cluster.ask("uri")[0];
      List<String> clientArgs = new ArrayList<>(List.of(uri));
      clientArgs.addAll(Arrays.asList(args).subList(Math.min(3, args.length), args.length));
      try (ChildJvm writer = ChildJvm.start("FFFS writer", "1g", FreshClientMain.class, uri)) {
        writer.ask("write " + path + " " + size + " " + WRITE_IO);
      }
      cluster.ask("quiet");
      if (drop) {
        cluster.ask("unmap");
        dropCaches();
      }
      long[] served = served(cluster);
      for (int read = 1; read <= READS; read++) {
        try (ChildJvm client = ChildJvm.start("FFFS client", "1g", FreshClientMain.class,
            clientArgs.toArray(String[]::new))) {
          long clusterCpu = cpu(cluster);
          String[] answer = client.ask("read " + path + " " + size + " " + io);
          clusterCpu = cpu(cluster) - clusterCpu;
          long[] now = served(cluster);
          System.out.printf(Locale.ROOT, "read %d of %d MiB in %d KiB calls%s: %.3f GB/s, client CPU %s ms, cluster"
              + " CPU %d ms; DataNode pages loaded and checked %d, sent from the files %d%n", read, size >> 20,
              io >> 10, drop ? " (after drop_caches)" : "", Double.parseDouble(answer[0]), answer[1], clusterCpu,
              now[0] - served[0], now[1] - served[1]);
          served = now;
        }
      }
    } finally {
      Clusters.deleteRecursively(dir);
    }
  }

  private static long cpu(ChildJvm cluster) throws IOException {
    return Long.parseLong(cluster.ask("cpu")[0]);
  }

  /** The DataNode's pages loaded and checked, and pages sent from segment files, so far. */
  private static long[] served(ChildJvm cluster) throws IOException {
    String[] stats = cluster.ask("stats");
    return new long[] {Long.parseLong(stats[0]), Long.parseLong(stats[4])};
  }

  private static void dropCaches() throws IOException, InterruptedException {
    Process drop = new ProcessBuilder("sh", "-c", "sync && echo 3 > /proc/sys/vm/drop_caches")
        .redirectErrorStream(true).start();
    String said = new String(drop.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (drop.waitFor() != 0) {
      throw new IOException("could not drop the kernel's caches (drop needs root): " + said);
    }
    Thread.sleep(3000);  // as a reader arriving a little later finds the machine
  }
}
