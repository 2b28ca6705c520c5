package io.fffs.bench.e2e;

import io.fffs.bench.Closeables;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.datanode.store.StoreStats;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.NameNodeConfigKeys;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.XYChart;

/**
 * Paper Figs. 9 and 10 on this machine: one client writes a file into an FFFS DataNode with persistence on (the
 * default: a background thread writes every entry to segment files on disk) and into a second one with it off
 * ({@code fffs.datanode.persistence.enabled=false}), for packet sizes 128 KiB, 512 KiB and 2 MiB; the data always
 * fits in memory. Each size runs {@value #WRITES_PER_SIDE} times per side in alternating order (on, off, off, on, on,
 * off, off, on): single writes of 0.4–0.9 s swing by ±20 % on 2 cores, so the ratio needs several. During the first "on" run
 * of each size a sampler records every 50 ms the client's bytes written, the DataNode's persisted bytes
 * ({@code StoreStats.bytesPersisted}) and this JVM's {@code write_bytes} from {@code /proc/self/io} (the DataNode
 * runs in this JVM), until persistence goes quiet. File size: 256 MiB full, 64 MiB quick. Segment files are
 * written the default way ({@code fffs.datanode.persistence.direct-io=auto}) unless
 * {@code -Dfffs.bench.persistence.direct-io=true|false} says otherwise; the report names the mode used.
 */
final class PersistenceBenchmark implements EndToEndBenchmark.Run {
  private static final int[] PACKETS = {128 << 10, 512 << 10, 2 << 20};
  private static final long SAMPLE_MILLIS = 50;
  private static final int WRITES_PER_SIDE = 4;

  /** One sample of the timeline; bytes are cumulative since the run's start. */
  record Sample(int packet, double seconds, long clientBytes, long persistedBytes, long procWriteBytes) {}

  @Override
  public String run(BenchArgs args, Path tmp) throws Exception {
    long fileSize = args.quick() ? 64L << 20 : 256L << 20;
    // JIT warm-up until it settles (JitWarmUp), as in the throughput benchmark: until 2026-11-24 a fixed 64 MiB,
    // after which C2 still compiled through the measured writes of both sides.
    long passBytes = args.quick() ? 4L << 20 : 32L << 20;
    int minPasses = args.quick() ? 1 : 3;
    int maxPasses = args.quick() ? 2 : 16;
    long warmUp = 0;
    for (int packet : PACKETS) {
      warmUp += maxPasses * JitWarmUp.bytesPerPacket(packet, passBytes);
    }
    // Before the measured writes of a size, one unmeasured write per side through that size's new clients: else the
    // first write of each size, always an 'on' one, paid for their start (measured 2026-11-24: 0.75 GB/s against
    // 1.0-1.1 for the other 'on' writes of the same size).
    long firstWrite = args.quick() ? 16L << 20 : 64L << 20;
    long arena = (long) WRITES_PER_SIDE * PACKETS.length * fileSize + (128L << 20) + warmUp
        + PACKETS.length * firstWrite;
    double[][] onNanos = new double[PACKETS.length][1];
    double[][] offNanos = new double[PACKETS.length][1];
    long backpressure;
    List<Sample> samples = new ArrayList<>();
    StringBuilder batches = new StringBuilder();
    double[] cpuOn = new double[1];
    double[] cpuOff = new double[1];
    double[] persistCpu = new double[1];
    String warm;
    MiniFffsCluster on = null;
    MiniFffsCluster off = null;
    try {
      Configuration persistence = new Configuration();
      // -Dfffs.bench.persistence.direct-io=false measures the page-cache path against O_DIRECT in one session.
      String directIo = System.getProperty("fffs.bench.persistence.direct-io");
      if (directIo != null) {
        persistence.set(DataNodeConfigKeys.PERSISTENCE_DIRECT_IO_KEY, directIo);
      }
      Configuration noPersistence = new Configuration();
      noPersistence.setBoolean(DataNodeConfigKeys.PERSISTENCE_ENABLED_KEY, false);
      // -Dfffs.bench.persistence.name-dir=DIR puts both NameNodes' name directories (edit logs) under DIR, e.g. on
      // another device than the DataNodes' segment files, as a NameNode on a machine of its own would have.
      String nameDirs = System.getProperty("fffs.bench.persistence.name-dir");
      if (nameDirs != null) {
        persistence.set(NameNodeConfigKeys.NAME_DIR_KEY, Paths.get(nameDirs, "on").toString());
        noPersistence.set(NameNodeConfigKeys.NAME_DIR_KEY, Paths.get(nameDirs, "off").toString());
      }
      on = Clusters.fffs(tmp.resolve("on"), persistence, arena);
      off = Clusters.fffs(tmp.resolve("off"), noPersistence, arena);
      Progress.say("two FFFS clusters up (persistence on / off), arena %d MiB each; %d MiB per file; warming up"
          + " until the JIT settles (%d to %d passes, not measured)", arena >> 20, fileSize >> 20, minPasses,
          maxPasses);
      warm = warmUp(on, off, passBytes, minPasses, maxPasses).describe();
      Progress.say("warm: %s", warm);
      FileIo.awaitPersistenceQuiet(on);
      for (int i = 0; i < PACKETS.length; i++) {
        int packet = PACKETS[i];
        byte[] data = FileIo.randomBytes(packet, packet);
        String p = String.valueOf(packet);
        StoreStats stats = on.getDataNode(0).store().stats();
        long batches0 = stats.persistBatches.sum();
        long fsyncs0 = stats.fsyncs.sum();
        long bytes0 = stats.bytesPersisted.sum();
        try (FileSystem onFs = Clusters.client(on, io.fffs.protocol.DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, p);
            FileSystem offFs = Clusters.client(off, io.fffs.protocol.DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, p)) {
          for (FileSystem fs : List.of(onFs, offFs)) {
            FileIo.write(fs, new org.apache.hadoop.fs.Path("/persistence/p" + packet + "-first"), firstWrite, data);
          }
          FileIo.awaitPersistenceQuiet(on);
          for (int k = 0; k < 2 * WRITES_PER_SIDE; k++) {
            org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("/persistence/p" + packet + "-" + k);
            boolean persist = k % 4 == 0 || k % 4 == 3; // on, off, off, on, ...
            long cpu0 = processCpuNanos();
            long persistCpu0 = persistenceThreadCpuNanos();
            double nanos;
            if (persist && k == 0) {
              nanos = sampledWrite(on, onFs, path, fileSize, data, samples);
            } else {
              nanos = fileSize / FileIo.write(persist ? onFs : offFs, path, fileSize, data);
            }
            (persist ? onNanos : offNanos)[i][0] += nanos;
            Progress.say("%s, persistence %s: write %.3f GB/s", ThroughputBenchmark.size(packet),
                persist ? "on " : "off", fileSize / nanos);
            // 'on' is charged until persistence last made progress, not for the quiet wait after it, in which
            // the JVM's idle threads alone would add a second or so per GiB.
            long cpuEnd = persist ? awaitPersistenceQuietCpu(on) : processCpuNanos();
            (persist ? cpuOn : cpuOff)[0] += cpuEnd - cpu0;
            persistCpu[0] += persistenceThreadCpuNanos() - persistCpu0;
          }
        }
        long n = stats.persistBatches.sum() - batches0;
        batches.append(String.format(Locale.ROOT, "%s%s: %d batches, %d fsyncs, %.2f MiB per batch",
            batches.length() == 0 ? "" : "; ", ThroughputBenchmark.size(packet), n, stats.fsyncs.sum() - fsyncs0,
            (stats.bytesPersisted.sum() - bytes0) / 1048576.0 / Math.max(1, n)));
      }
      backpressure = on.getDataNode(0).store().stats().backpressureWaits.sum();
      int alignment = on.getDataNode(0).store().stats().persistenceDirectIoAlignment;
      batches.append(alignment > 0 ? "; segment files written with O_DIRECT (" + alignment + " B aligned)"
          : "; segment files written through the page cache");
    } finally {
      if (off != null) {
        off.close();
      }
      if (on != null) {
        on.close();
      }
    }
    double gib = (double) WRITES_PER_SIDE * PACKETS.length * fileSize / (1L << 30);
    String cpu = String.format(Locale.ROOT, "CPU per GiB written (this JVM, all threads; 'on' until the last byte"
        + " persisted): on %.2f s, off %.2f s (on/off %.2f), of which the persistence thread %.2f s", cpuOn[0] / 1e9 / gib,
        cpuOff[0] / 1e9 / gib, cpuOn[0] / cpuOff[0], persistCpu[0] / 1e9 / gib);
    Progress.say("persistence batches: %s", batches);
    Progress.say("%s", cpu);
    System.out.printf(Locale.ROOT, "%n%s%n%s%n", batches, cpu);
    return report(args, fileSize, onNanos, offNanos, samples, backpressure) + "; " + batches + "; " + cpu
        + "; warm-up: " + warm;
  }

  /**
   * JIT warm-up passes ({@link JitWarmUp}): each pass writes a scratch file of every packet size to both clusters,
   * through clients of that packet size, and deletes it.
   */
  private static JitWarmUp.Result warmUp(MiniFffsCluster on, MiniFffsCluster off, long passBytes, int minPasses,
      int maxPasses) throws IOException {
    List<FileSystem> clients = new ArrayList<>();
    try {
      for (int packet : PACKETS) {
        for (MiniFffsCluster cluster : List.of(on, off)) {
          clients.add(Clusters.client(cluster, io.fffs.protocol.DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY,
              String.valueOf(packet)));
        }
      }
      return JitWarmUp.run(pass -> {
        long written = 0;
        for (int i = 0; i < clients.size(); i++) {
          int packet = PACKETS[i / 2];
          long bytes = JitWarmUp.bytesPerPacket(packet, passBytes);
          org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("/warm-up/" + pass + "-" + i);
          FileIo.write(clients.get(i), path, bytes, FileIo.randomBytes(packet, packet));
          clients.get(i).delete(path, false);
          written += bytes;
        }
        return written;
      }, minPasses, maxPasses);
    } finally {
      Closeables.closeAll(clients);
    }
  }

  /** Writes the file while a sampler thread records the timeline; returns the write's nanoseconds. */
  private double sampledWrite(MiniFffsCluster cluster, FileSystem fs, org.apache.hadoop.fs.Path path, long total,
      byte[] data, List<Sample> samples) throws IOException {
    StoreStats stats = cluster.getDataNode(0).store().stats();
    AtomicLong written = new AtomicLong();
    long persisted0 = stats.bytesPersisted.sum();
    long proc0 = procWriteBytes();
    long start = System.nanoTime();
    int packet = data.length;
    List<Sample> mine = new ArrayList<>();
    Thread sampler = new Thread(() -> {
      long next = start;
      long lastPersisted = -1;
      long quietSince = 0;
      while (true) {
        long now = System.nanoTime();
        long persisted = stats.bytesPersisted.sum() - persisted0;
        synchronized (mine) {
          mine.add(new Sample(packet, (now - start) / 1e9, written.get(), persisted, procWriteBytes() - proc0));
        }
        boolean writing = written.get() < total;
        if (persisted != lastPersisted || writing) {
          lastPersisted = persisted;
          quietSince = now;
        } else if (now - quietSince > 500_000_000L || now - start > 120_000_000_000L) {
          return;
        }
        next += SAMPLE_MILLIS * 1_000_000L;
        long sleep = (next - System.nanoTime()) / 1_000_000L;
        if (sleep > 0) {
          try {
            Thread.sleep(sleep);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }, "persistence-sampler");
    sampler.setDaemon(true);
    sampler.start();
    try (FSDataOutputStream out = fs.create(path, true)) {
      for (long n = 0; n < total; n += packet) {
        out.write(data);
        written.addAndGet(packet);
      }
    }
    double nanos = System.nanoTime() - start;
    try {
      sampler.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    samples.addAll(mine);
    return nanos;
  }

  /**
   * Waits as {@link FileIo#awaitPersistenceQuiet} does and returns the process CPU time read when the persisted
   * byte count last changed.
   */
  private static long awaitPersistenceQuietCpu(MiniFffsCluster cluster) throws IOException {
    StoreStats stats = cluster.getDataNode(0).store().stats();
    long start = System.nanoTime();
    long last = -1;
    long cpuAtProgress = processCpuNanos();
    long quietSince = System.nanoTime();
    while (System.nanoTime() - start < 60_000_000_000L) {
      long persisted = stats.bytesPersisted.sum();
      if (persisted != last) {
        last = persisted;
        cpuAtProgress = processCpuNanos();
        quietSince = System.nanoTime();
      } else if (System.nanoTime() - quietSince > 300_000_000L) {
        break;
      }
      Clusters.sleep(5);
    }
    return cpuAtProgress;
  }

  private static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
  }

  /** CPU time of the DataNode's persistence threads (named {@code fffs-persist-*}). */
  private static long persistenceThreadCpuNanos() {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long total = 0;
    for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith("fffs-persist")) {
        total += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
      }
    }
    return total;
  }

  /** {@code write_bytes} of /proc/self/io: bytes this process caused to be written to storage; -1 if unknown. */
  static long procWriteBytes() {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/io"))) {
        if (line.startsWith("write_bytes:")) {
          return Long.parseLong(line.substring("write_bytes:".length()).trim());
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux
    }
    return -1;
  }

  private static String report(BenchArgs args, long fileSize, double[][] onNanos, double[][] offNanos,
      List<Sample> samples, long backpressure) throws IOException {
    double[] onRate = new double[PACKETS.length];
    double[] offRate = new double[PACKETS.length];
    System.out.printf(Locale.ROOT, "%npersistence: %d MiB per write, %d writes per side and size, GB/s%n%n",
        fileSize >> 20, WRITES_PER_SIDE);
    System.out.println("| packet | persistence on | persistence off | on/off |");
    System.out.println("|---|---|---|---|");
    Report csv = new Report("kind", "packet_bytes", "seconds", "on_gbps", "off_gbps", "on_over_off",
        "client_bytes", "persisted_bytes", "proc_write_bytes");
    double minRatio = Double.MAX_VALUE;
    for (int i = 0; i < PACKETS.length; i++) {
      onRate[i] = (double) WRITES_PER_SIDE * fileSize / onNanos[i][0];
      offRate[i] = (double) WRITES_PER_SIDE * fileSize / offNanos[i][0];
      minRatio = Math.min(minRatio, onRate[i] / offRate[i]);
      System.out.printf(Locale.ROOT, "| %s | %.3f | %.3f | %.2f |%n", ThroughputBenchmark.size(PACKETS[i]),
          onRate[i], offRate[i], onRate[i] / offRate[i]);
      csv.row("throughput", PACKETS[i], Double.NaN, onRate[i], offRate[i], onRate[i] / offRate[i], "", "", "");
    }
    StringBuilder drain = new StringBuilder();
    for (int packet : PACKETS) {
      double writeEnd = Double.NaN;
      double persistEnd = Double.NaN;
      for (Sample s : samples) {
        if (s.packet() != packet) {
          continue;
        }
        csv.row("timeline", packet, s.seconds(), Double.NaN, Double.NaN, Double.NaN, s.clientBytes(),
            s.persistedBytes(), s.procWriteBytes());
        if (Double.isNaN(writeEnd) && s.clientBytes() >= fileSize) {
          writeEnd = s.seconds();
        }
        if (Double.isNaN(persistEnd) && s.persistedBytes() >= fileSize) {
          persistEnd = s.seconds();
        }
      }
      drain.append(String.format(Locale.ROOT, "%s%s: client done at %.1f s, file's bytes persisted at %.1f s",
          drain.length() == 0 ? "" : "; ", ThroughputBenchmark.size(packet), writeEnd, persistEnd));
    }
    System.out.printf(Locale.ROOT, "%ntimeline (first 'on' run per size): %s; backpressure waits: %d%n", drain,
        backpressure);
    csv.writeCsv(args.csv());
    plot(args, onRate, offRate, samples, fileSize);
    return String.format(Locale.ROOT, "%d MiB files, 128 KiB / 512 KiB / 2 MiB packets: on/off %.2f / %.2f /"
        + " %.2f (goal ≥ 0.90: %s); %s; backpressure waits %d", fileSize >> 20, onRate[0] / offRate[0],
        onRate[1] / offRate[1], onRate[2] / offRate[2], minRatio >= 0.9 ? "met" : "missed", drain, backpressure);
  }

  private static void plot(BenchArgs args, double[] onRate, double[] offRate, List<Sample> samples, long fileSize)
      throws IOException {
    List<String> sizes = new ArrayList<>();
    for (int packet : PACKETS) {
      sizes.add(ThroughputBenchmark.size(packet));
    }
    CategoryChart rates = Charts.bars(String.format(Locale.ROOT, "FFFS write, one client, %d MiB file, 1 DataNode",
        fileSize >> 20), "packet size", "write throughput (GB/s)");
    rates.addSeries("persistence on (disk)", sizes, java.util.Arrays.stream(onRate).boxed().toList());
    rates.addSeries("persistence off", sizes, java.util.Arrays.stream(offRate).boxed().toList());
    XYChart timeline = Charts.xy("Client vs disk write rate, persistence on (sizes one after another)",
        "time (s, each size's run starts where the previous one ended)", "rate (MB/s, 50 ms samples)");
    timeline.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNE);
    double offset = 0;
    for (int packet : PACKETS) {
      List<Sample> mine = samples.stream().filter(s -> s.packet() == packet).toList();
      if (mine.size() < 2) {
        continue;
      }
      double[] t = new double[mine.size() - 1];
      double[] client = new double[t.length];
      double[] disk = new double[t.length];
      for (int i = 1; i < mine.size(); i++) {
        Sample a = mine.get(i - 1);
        Sample b = mine.get(i);
        double dt = b.seconds() - a.seconds();
        t[i - 1] = offset + b.seconds();
        client[i - 1] = (b.clientBytes() - a.clientBytes()) / dt / 1e6;
        disk[i - 1] = (b.persistedBytes() - a.persistedBytes()) / dt / 1e6;
      }
      String size = ThroughputBenchmark.size(packet);
      Charts.plain(timeline, "client, " + size, t, client);
      Charts.plain(timeline, "disk (persisted), " + size, t, disk);
      offset = t[t.length - 1];
    }
    Charts.save(args.png(), List.of(rates, timeline));
  }
}
