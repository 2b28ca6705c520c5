package io.fffs.bench.e2e;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.XYChart;

/**
 * Paper Fig. 7a on this machine: one client writes a file, then reads it twice, for packet sizes 1 KiB … 4 MiB (in
 * powers of 4), FFFS beside HDFS and beside a raw loopback socket stream of the same bytes in the same write size
 * (the ceiling). "Packet size" is both the size of every application {@code write}/{@code read} call and the
 * protocol's packet ({@code fffs.client.write.packet-size}, {@code dfs.client-write-packet-size}); each system
 * keeps its own read-ahead. Within a packet size the order alternates (FFFS first, then HDFS first) so neither
 * always runs on warmer caches; the full run repeats every packet size four times (the order flipped each time;
 * {@code -Dfffs.bench.throughput.reps}) and reports total bytes over total time: 4 × 256 MiB, the 1 GiB
 * per system and packet size, in files that fit the DataNode's arena with every version kept. File size: 256 MiB
 * full, 32 MiB quick (once; the paper: ten seconds at 10 GbE ≈ 10 GiB). Before measuring, each system warms its
 * JIT up ({@link JitWarmUp}): passes that write and read a scratch file at every packet size through the clients that
 * will be measured, until a pass spends at most 5 % of its time compiling (3 to 16 passes of 32 MiB per packet size;
 * quick: 1 to 2 of 4 MiB). FFFS runs with persistence on (the default); after each system's turn its
 * persistence is let go quiet, so that a write starts with an idle disk thread, and the bytes its persistence had
 * not yet written when {@code close()} returned are recorded (they are still being written during the 1st read).
 * After each HDFS turn the page cache's dirty pages (HDFS's block files) are written out ({@link DirtyPages}) for
 * the same reason: else the write after an HDFS turn runs during HDFS's writeback.
 *
 * <p>Each system — its cluster and its client — runs in a JVM of its own ({@link ChildFileSide}), as a DataNode
 * and a Hadoop job do; this JVM only drives them and measures the socket. Measured with both in one JVM, the JIT's
 * compiler threads took 10–30 % of a core through every phase of the run, recompiling the code both systems share
 * (Hadoop's streams, protobuf, Netty) as the two alternated. {@code -Dfffs.bench.throughput.jvm=shared} keeps both
 * in this JVM ({@link LocalFileSide}) for comparison.
 */
final class ThroughputBenchmark implements EndToEndBenchmark.Run {
  private static final int[] PACKETS = {1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20};
  private static final int PAGE = 4096;

  /** GB/s (10^9 bytes per second) of one packet size. */
  record Row(int packet, double socket, double fffsWrite, double hdfsWrite, double fffsRead1, double hdfsRead1,
      double fffsRead2, double hdfsRead2, double fffsUnpersistedMiB) {}

  @Override
  public String run(BenchArgs args, Path tmp) throws Exception {
    long fileSize = args.quick() ? 32L << 20 : 256L << 20;
    int reps = args.quick() ? 1 : Integer.getInteger("fffs.bench.throughput.reps", 4);
    // A fixed 2 GiB warm-up (until 2026-11-24) left FFFS's 64 KiB writes measured while C2 still compiled.
    long passBytes = args.quick() ? 4L << 20 : 32L << 20;
    int minPasses = args.quick() ? 1 : 3;
    int maxPasses = args.quick() ? 2 : 16;
    long arena = 128L << 20;
    for (int packet : PACKETS) {
      arena += reps * arenaBytes(packet, fileSize) + maxPasses * arenaBytes(packet,
          JitWarmUp.bytesPerPacket(packet, passBytes)); // deleted warm-up files stay in the arena as history
    }
    boolean shared = "shared".equals(System.getProperty("fffs.bench.throughput.jvm"));
    Progress.say("file %d MiB per packet size, %d repetition(s); FFFS arena %d MiB; starting FFFS and HDFS, %s",
        fileSize >> 20, reps, arena >> 20, shared ? "both in this JVM" : "each in a JVM of its own");
    List<Row> rows = new ArrayList<>();
    StringBuilder warmUps = new StringBuilder();
    String readBreakdown;
    try (FileSide fffs = start("FFFS", tmp.resolve("fffs"), arena, shared);
        FileSide hdfs = start("HDFS", tmp.resolve("hdfs"), arena, shared)) {
      Progress.say("clusters up; warming up until the JIT settles (%d to %d passes per system, not measured)",
          minPasses, maxPasses);
      for (FileSide side : List.of(fffs, hdfs)) {
        JitWarmUp.Result warm = side.warmUp(PACKETS, passBytes, minPasses, maxPasses);
        warmUps.append(warmUps.length() == 0 ? "" : ", ").append(side.name()).append(' ').append(warm.describe());
        Progress.say("%s warm: %s", side.name(), warm.describe());
      }
      DirtyPages.writeOut();
      for (int i = 0; i < PACKETS.length; i++) {
        rows.add(measure(fffs, hdfs, PACKETS[i], fileSize, reps, i % 2 == 0));
      }
      readBreakdown = readBufferBreakdown(fffs, fileSize);
    }
    print(rows, fileSize);
    System.out.printf(Locale.ROOT, "%nFFFS read of the 1 MiB-packet file, 1 MiB application reads, by"
        + " fffs.client.read.buffer-size%n(one DataNode round trip per buffer): %s%n", readBreakdown);
    write(args, rows);
    plot(args, rows, fileSize);
    return summary(rows, fileSize) + "; FFFS read by read-buffer size: " + readBreakdown + "; warm-up: " + warmUps
        + (shared ? "; both systems in one JVM" : "");
  }

  /** Arena bytes {@code bytes} written in {@code packet}-sized calls take: a sub-page packet takes a page. */
  private static long arenaBytes(int packet, long bytes) {
    return packet < PAGE ? bytes / packet * PAGE : bytes;
  }

  private static FileSide start(String name, Path dir, long arena, boolean shared) throws IOException {
    return shared ? LocalFileSide.start(name, dir, arena) : ChildFileSide.start(name, dir, arena);
  }

  /**
   * A breakdown of the FFFS read: the client fetches {@code fffs.client.read.buffer-size} bytes per DataNode round
   * trip and waits for each before asking for the next. Reading the same file with other buffer sizes (each read
   * twice, alternating) shows how much of the read time is those round trips.
   */
  private static String readBufferBreakdown(FileSide fffs, long fileSize) throws IOException {
    // 16 MiB is not tried: the DataNode's answer then exceeds the 16 MiB max frame and the client drops the
    // connection instead of splitting the fetch (reported in docs/benchmarks.md).
    int[] buffers = {256 << 10, 1 << 20, 4 << 20, 8 << 20};
    double[] nanos = new double[buffers.length];
    String path = "/throughput/p" + (1 << 20);
    for (int rep = 0; rep < 2; rep++) {
      for (int k = 0; k < buffers.length; k++) {
        int i = rep == 0 ? k : buffers.length - 1 - k;
        nanos[i] += fileSize / fffs.read(path, fileSize, 1 << 20, buffers[i]);
      }
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < buffers.length; i++) {
      out.append(String.format(Locale.ROOT, "%s%s %.2f GB/s", i == 0 ? "" : ", ", size(buffers[i]),
          2.0 * fileSize / nanos[i]));
    }
    Progress.say("FFFS read by read-buffer size: %s", out);
    return out.toString();
  }

  private Row measure(FileSide fffs, FileSide hdfs, int packet, long fileSize, int reps, boolean fffsFirst)
      throws IOException {
    double socketNanos = 0;
    double[] f = new double[3];
    double[] h = new double[3];
    double unpersisted = 0;
    String path = "/throughput/p" + packet;
    for (int rep = 0; rep < reps; rep++) {
      double socket = LoopbackSocket.stream(fileSize, packet);
      socketNanos += fileSize / socket;
      Progress.say("%s: loopback socket %.2f GB/s", size(packet), socket);
      for (int turn = 0; turn < 2; turn++) {
        boolean doFffs = (turn == 0) == (fffsFirst == (rep % 2 == 0));
        FileSide side = doFffs ? fffs : hdfs;
        double[] r = new double[3];
        long persisted0 = fffs.persistedBytes();
        r[0] = side.write(path, fileSize, packet);
        long persistedDuringWrite = fffs.persistedBytes() - persisted0;
        r[1] = side.read(path, fileSize, packet, 0);
        r[2] = side.read(path, fileSize, packet, 0);
        double[] sum = doFffs ? f : h;
        for (int k = 0; k < 3; k++) {
          sum[k] += fileSize / r[k]; // nanoseconds: the rates combine as total bytes over total time
        }
        Progress.say("%s: %s write %.3f GB/s, 1st read %.3f, 2nd read %.3f", size(packet), side.name(), r[0], r[1],
            r[2]);
        double waited = fffs.awaitQuiet();
        if (!doFffs) {
          Progress.say("  HDFS: its dirty pages written out in %.1f s", DirtyPages.writeOut());
        } else {
          unpersisted += Math.max(0, fileSize - persistedDuringWrite);
          Progress.say("  FFFS: %.0f MiB of the file not yet persisted when close() returned; persistence quiet"
              + " %.1f s after the 2nd read", Math.max(0, fileSize - persistedDuringWrite) / 1048576.0, waited);
        }
      }
    }
    double bytes = (double) fileSize * reps;
    return new Row(packet, bytes / socketNanos, bytes / f[0], bytes / h[0], bytes / f[1], bytes / h[1],
        bytes / f[2], bytes / h[2], unpersisted / reps / 1048576.0);
  }

  private static void print(List<Row> rows, long fileSize) {
    System.out.printf(Locale.ROOT, "%nthroughput, %d MiB per file, GB/s (ratios: same run)%n%n", fileSize >> 20);
    System.out.println("| packet | socket | FFFS write | HDFS write | FFFS/HDFS write | FFFS read 1 | HDFS read 1"
        + " | FFFS read 2 | HDFS read 2 | FFFS/HDFS read 2 | FFFS write % socket | HDFS write % socket"
        + " | FFFS MiB unpersisted at close |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (Row r : rows) {
      System.out.printf(Locale.ROOT, "| %s | %.2f | %.3f | %.3f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f%% |"
          + " %.0f%% | %.0f |%n", size(r.packet()), r.socket(), r.fffsWrite(), r.hdfsWrite(),
          r.fffsWrite() / r.hdfsWrite(), r.fffsRead1(), r.hdfsRead1(), r.fffsRead2(), r.hdfsRead2(),
          r.fffsRead2() / r.hdfsRead2(),
          100 * r.fffsWrite() / r.socket(), 100 * r.hdfsWrite() / r.socket(), r.fffsUnpersistedMiB());
    }
  }

  private static void write(BenchArgs args, List<Row> rows) throws Exception {
    Report csv = new Report("packet_bytes", "socket_gbps", "fffs_write_gbps", "hdfs_write_gbps", "fffs_read1_gbps",
        "hdfs_read1_gbps", "fffs_read2_gbps", "hdfs_read2_gbps", "fffs_over_hdfs_write", "fffs_over_hdfs_read2",
        "fffs_write_of_socket", "hdfs_write_of_socket", "fffs_read2_of_socket", "hdfs_read2_of_socket",
        "fffs_unpersisted_mib_at_close");
    for (Row r : rows) {
      csv.row(r.packet(), r.socket(), r.fffsWrite(), r.hdfsWrite(), r.fffsRead1(), r.hdfsRead1(), r.fffsRead2(),
          r.hdfsRead2(), r.fffsWrite() / r.hdfsWrite(), r.fffsRead2() / r.hdfsRead2(), r.fffsWrite() / r.socket(),
          r.hdfsWrite() / r.socket(), r.fffsRead2() / r.socket(), r.hdfsRead2() / r.socket(),
          r.fffsUnpersistedMiB());
    }
    csv.writeCsv(args.csv());
  }

  private static void plot(BenchArgs args, List<Row> rows, long fileSize) throws Exception {
    int n = rows.size();
    double[] x = new double[n];
    double[][] y = new double[7][n];
    double[][] ratio = new double[2][n];
    for (int i = 0; i < n; i++) {
      Row r = rows.get(i);
      x[i] = r.packet() / 1024.0;
      double[] v = {r.socket(), r.fffsWrite(), r.hdfsWrite(), r.fffsRead1(), r.hdfsRead1(), r.fffsRead2(),
          r.hdfsRead2()};
      for (int k = 0; k < v.length; k++) {
        y[k][i] = v[k];
      }
      ratio[0][i] = r.fffsWrite() / r.hdfsWrite();
      ratio[1][i] = r.fffsRead2() / r.hdfsRead2();
    }
    XYChart abs = Charts.xy(String.format(Locale.ROOT, "One client, %d MiB file, 1 DataNode, loopback",
        fileSize >> 20), "packet size (KiB, log scale)", "throughput (GB/s)");
    abs.getStyler().setXAxisLogarithmic(true);
    String[] names = {"loopback socket (ceiling)", "FFFS write", "HDFS write", "FFFS 1st read", "HDFS 1st read",
        "FFFS 2nd read", "HDFS 2nd read"};
    for (int k = 0; k < names.length; k++) {
      Charts.line(abs, names[k], x, y[k]);
    }
    XYChart rel = Charts.xy("FFFS / HDFS, same run", "packet size (KiB, log scale)", "ratio FFFS / HDFS");
    rel.getStyler().setXAxisLogarithmic(true);
    Charts.line(rel, "write", x, ratio[0]);
    Charts.line(rel, "2nd read", x, ratio[1]);
    Charts.plain(rel, "goal: write 2x", new double[] {x[0], x[n - 1]}, new double[] {2, 2});
    Charts.plain(rel, "parity", new double[] {x[0], x[n - 1]}, new double[] {1, 1});
    Charts.save(args.png(), List.of(abs, rel));
  }

  private static String summary(List<Row> rows, long fileSize) {
    double minWrite = Double.MAX_VALUE;
    double minRead2 = Double.MAX_VALUE;
    StringBuilder perSize = new StringBuilder();
    for (Row r : rows) {
      if (r.packet() >= 64 << 10) {
        minWrite = Math.min(minWrite, r.fffsWrite() / r.hdfsWrite());
      }
      minRead2 = Math.min(minRead2, r.fffsRead2() / r.hdfsRead2());
      if (r.packet() == 64 << 10 || r.packet() == 1 << 20) {
        perSize.append(String.format(Locale.ROOT, "; %s: FFFS write %.2f GB/s = %.0f%% of socket, HDFS %.2f GB/s",
            size(r.packet()), r.fffsWrite(), 100 * r.fffsWrite() / r.socket(), r.hdfsWrite()));
      }
    }
    return String.format(Locale.ROOT, "%d MiB files: FFFS/HDFS write at ≥ 64 KiB min %.2f (goal ≥ 2: %s), "
        + "2nd read min %.2f (goal ≥ 1: %s)%s", fileSize >> 20, minWrite, minWrite >= 2 ? "met" : "missed",
        minRead2, minRead2 >= 1 ? "met" : "missed", perSize);
  }

  static String size(int bytes) {
    return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
  }
}
