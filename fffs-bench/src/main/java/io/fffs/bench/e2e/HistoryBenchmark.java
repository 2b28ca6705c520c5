package io.fffs.bench.e2e;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.history.RetentionRule;
import io.fffs.datanode.store.MemoryUsage;
import io.fffs.datanode.store.StoreStats;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.knowm.xchart.XYChart;

/**
 * Bounded history under a steady writer (issue 31): random 64 KiB overwrites of files that together hold half the
 * arena, 3× the arena written per cycle, with a retention rule of one cycle on their directory — once with garbage
 * collection (NameNode passes, DataNode trims, the segment cleaner) and once without a rule. Sampled over time: the
 * segment files on disk, the DataNode's memory (arena pages in use, block logs and page indexes), the JVM's heap
 * after a collection (NameNode, DataNode and client share the JVM) and the NameNode's inodes. Write throughput is
 * measured while the writer writes (it sleeps between bursts to keep to the cycle), so GC on and off compare; an
 * unmeasured phase before them warms the JIT. Full: 256 MiB arena, 5-minute cycles, 30 minutes with GC and 5
 * without ({@code -Dfffs.bench.history.minutes} changes the 30); quick: 32 MiB, 20 s, 2 minutes and 40 s. Then
 * {@link TreeDiffRestore}: diff and restore of a 10,000-file tree (quick: 1,000) beside HDFS's snapshotDiff and a copy
 * from a snapshot, in {@code history-tree.csv}.
 */
final class HistoryBenchmark implements EndToEndBenchmark.Run {
  private static final int WRITE = 64 << 10;
  private static final int FILES = 2;

  /** One sample of a phase. */
  private record Sample(double seconds, long written, long disk, long memory, long logs, long heap, long inodes) {}

  /** What a phase measured. */
  private record Phase(String name, List<Sample> samples, double writeSeconds, long written, long entriesCollected,
      long segmentsCleaned) {
    double throughput() {
      return written / writeSeconds;
    }
  }

  @Override
  public String run(BenchArgs args, Path tmp) throws Exception {
    boolean quick = args.quick();
    long arena = quick ? 32L << 20 : 256L << 20;
    long cycleMillis = quick ? 20_000 : 300_000;
    long onMillis = Long.getLong("fffs.bench.history.minutes", quick ? 2 : 30) * 60_000;
    long offMillis = quick ? 40_000 : 300_000;
    // A phase the JIT warms up in, not measured: the two measured phases then start equally warm.
    phase("warm-up", tmp.resolve("warm-up"), arena, cycleMillis, quick ? 20_000 : 60_000, true, quick);
    Phase off = phase("GC off", tmp.resolve("off"), arena, cycleMillis, offMillis, false, quick);
    Phase on = phase("GC on", tmp.resolve("on"), arena, cycleMillis, onMillis, true, quick);

    Report csv = new Report("phase", "seconds", "written_mib", "disk_mib", "arena_pages_mib", "logs_mib",
        "heap_mib", "inodes");
    for (Phase phase : List.of(on, off)) {
      for (Sample s : phase.samples) {
        csv.row(phase.name, s.seconds, mib(s.written), mib(s.disk), mib(s.memory), mib(s.logs), mib(s.heap),
            s.inodes);
      }
    }
    csv.writeCsv(args.csv());
    XYChart disk = Charts.xy("Segment files on disk, writer rewriting 3× the arena per " + cycleMillis / 1000
        + " s cycle", "seconds", "MiB");
    XYChart memory = Charts.xy("DataNode block logs and page indexes; JVM heap after a collection (arena pages"
        + " in use stay at the arena's " + (arena >> 20) + " MiB)", "seconds", "MiB");
    for (Phase phase : List.of(on, off)) {
      double[] x = phase.samples.stream().mapToDouble(Sample::seconds).toArray();
      Charts.line(disk, phase.name, x, phase.samples.stream().mapToDouble(s -> mib(s.disk)).toArray());
      Charts.line(memory, phase.name + ": logs + indexes", x,
          phase.samples.stream().mapToDouble(s -> mib(s.logs)).toArray());
      Charts.line(memory, phase.name + ": heap", x, phase.samples.stream().mapToDouble(s -> mib(s.heap)).toArray());
    }
    Charts.save(args.png(), List.of(disk, memory));

    TreeDiffRestore.Result tree = TreeDiffRestore.run(tmp, quick ? 1_000 : 10_000);
    Report treeCsv = new Report("files", "system", "diff_seconds", "differences", "restore_seconds");
    treeCsv.row(tree.files(), "FFFS history diff / restore", tree.fffsDiffSeconds(), tree.fffsDifferences(),
        tree.fffsRestoreSeconds());
    treeCsv.row(tree.files(), "HDFS snapshotDiff / cp -r from the snapshot", tree.hdfsDiffSeconds(),
        tree.hdfsDifferences(), tree.hdfsCopySeconds());
    treeCsv.writeCsv(args.out().resolve("history-tree.csv"));

    Sample lastOn = on.samples.get(on.samples.size() - 1);
    double maxDiskSecondHalf = secondHalfMax(on, Sample::disk);
    double maxDiskFirstHalf = firstHalfMax(on, Sample::disk);
    double ratio = on.throughput() / off.throughput();
    System.out.printf(Locale.ROOT, "%n| | GC on | GC off |%n|---|---|---|%n");
    System.out.printf(Locale.ROOT, "| written | %.0f MiB in %.0f s | %.0f MiB in %.0f s |%n", mib(on.written),
        onMillis / 1000.0, mib(off.written), offMillis / 1000.0);
    System.out.printf(Locale.ROOT, "| write throughput while writing | %.1f MB/s | %.1f MB/s |%n",
        on.throughput() / 1e6, off.throughput() / 1e6);
    System.out.printf(Locale.ROOT, "| disk at the end | %.0f MiB | %.0f MiB |%n", mib(lastOn.disk),
        mib(off.samples.get(off.samples.size() - 1).disk));
    System.out.printf(Locale.ROOT, "| largest disk, first / second half | %.0f / %.0f MiB | |%n",
        mib((long) maxDiskFirstHalf), mib((long) maxDiskSecondHalf));
    System.out.printf(Locale.ROOT, "| block logs + indexes at the end, largest | %.1f, %.1f MiB | %.1f, %.1f MiB |%n",
        mib(lastOn.logs), mib((long) max(on, Sample::logs)), mib(off.samples.get(off.samples.size() - 1).logs),
        mib((long) max(off, Sample::logs)));
    System.out.printf(Locale.ROOT, "| entries collected, segment files cleaned | %d, %d | |%n", on.entriesCollected,
        on.segmentsCleaned);
    System.out.printf(Locale.ROOT, "%n| %d-file tree | FFFS | HDFS |%n|---|---|---|%n", tree.files());
    System.out.printf(Locale.ROOT, "| differences since the moment / snapshot | %.2f s (%d) | %.2f s (%d) |%n",
        tree.fffsDiffSeconds(), tree.fffsDifferences(), tree.hdfsDiffSeconds(), tree.hdfsDifferences());
    System.out.printf(Locale.ROOT, "| the tree as it was, copied beside it | %.2f s (restore) | %.2f s (cp -r) |%n",
        tree.fffsRestoreSeconds(), tree.hdfsCopySeconds());
    return String.format(Locale.ROOT, "arena %d MiB, %d s cycles: GC on wrote %.0f MiB in %.0f min, disk largest"
        + " %.0f MiB in the first half and %.0f MiB in the second (%.0f at the end; GC off: %.0f MiB after %.0f s);"
        + " block logs + indexes at the end %.1f MiB, heap %.0f MiB; write throughput GC on / off %.1f / %.1f MB/s"
        + " = %.2f; %d-file tree: diff %.2f s vs snapshotDiff %.2f s, restore %.2f s vs cp -r %.2f s", arena >> 20,
        cycleMillis / 1000, mib(on.written), onMillis / 60_000.0,
        mib((long) maxDiskFirstHalf), mib((long) maxDiskSecondHalf), mib(lastOn.disk),
        mib(off.samples.get(off.samples.size() - 1).disk), offMillis / 1000.0, mib(lastOn.logs),
        mib(lastOn.heap), on.throughput() / 1e6, off.throughput() / 1e6, ratio, tree.files(),
        tree.fffsDiffSeconds(), tree.hdfsDiffSeconds(), tree.fffsRestoreSeconds(), tree.hdfsCopySeconds());
  }

  private Phase phase(String name, Path dir, long arena, long cycleMillis, long durationMillis, boolean collect,
      boolean quick) throws Exception {
    Configuration conf = new Configuration();
    conf.set("fffs.history.gc.interval", quick ? "2s" : "15s");
    conf.set("fffs.datanode.retention.interval", quick ? "1s" : "5s");
    conf.set("fffs.datanode.cleaner.interval", quick ? "2s" : "15s");
    conf.set("fffs.datanode.cleaner.bytes-per-second", "64m");
    conf.set("fffs.datanode.segment.file.size", quick ? "4m" : "32m");
    conf.set("fffs.datanode.scrubber.bytes-per-second", "0");
    MiniFffsCluster cluster = Clusters.fffs(dir, conf, arena);
    List<Sample> samples = new ArrayList<>();
    try (FileSystem fs = Clusters.client(cluster)) {
      FreezeFrameFileSystem fffs = (FreezeFrameFileSystem) fs;
      long fileBytes = arena / 2 / FILES / WRITE * WRITE;
      byte[] data = FileIo.randomBytes(WRITE, 5);
      for (int f = 0; f < FILES; f++) {
        FileIo.write(fs, path(f), fileBytes, data);
      }
      if (collect) {
        fffs.setRetention(new org.apache.hadoop.fs.Path("/history"),
            RetentionRule.parse(RetentionRule.duration(cycleMillis * 1000)));
      }
      Random random = new Random(31);
      long start = System.nanoTime();
      long sampleEvery = quick ? 1_000 : 10_000;
      long nextSample = 0;
      long written = 0;
      long writeNanos = 0;
      long burst = arena / 8;
      long perCycle = 3 * arena;
      FffsDataOutputStream[] outs = new FffsDataOutputStream[FILES];
      for (int f = 0; f < FILES; f++) {
        outs[f] = fffs.openForWrite(path(f));
      }
      try {
        while (true) {
          long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
          if (elapsedMillis >= nextSample) {
            samples.add(sample(cluster, dir, elapsedMillis / 1000.0, written, samples.size() % 10 == 0));
            nextSample += sampleEvery;
          }
          if (elapsedMillis >= durationMillis) {
            break;
          }
          long due = perCycle * elapsedMillis / cycleMillis;
          if (written >= due) {
            Thread.sleep(Math.min(200, sampleEvery));
            continue;
          }
          long burstStart = System.nanoTime();
          for (long b = 0; b < burst; b += WRITE) {
            FffsDataOutputStream out = outs[random.nextInt(FILES)];
            out.seek((long) (random.nextDouble() * (fileBytes - WRITE)) / 512 * 512);
            out.write(data);
            written += WRITE;
          }
          for (FffsDataOutputStream out : outs) {
            out.hflush();
          }
          writeNanos += System.nanoTime() - burstStart;
        }
      } finally {
        for (FffsDataOutputStream out : outs) {
          out.close();
        }
      }
      StoreStats stats = cluster.getDataNode(0).store().stats();
      Progress.say("%s: %.0f MiB written, %.1f MB/s while writing, disk %.0f MiB at the end", name, mib(written),
          written / (writeNanos / 1e9) / 1e6, mib(samples.get(samples.size() - 1).disk));
      return new Phase(name, samples, writeNanos / 1e9, written, stats.entriesCollected.sum(),
          stats.segmentsCleaned.sum() + stats.segmentsDeletedEmpty.sum());
    } finally {
      cluster.close();
    }
  }

  private static org.apache.hadoop.fs.Path path(int f) {
    return new org.apache.hadoop.fs.Path("/history/f" + f);
  }

  /** The heap after the last collection sampled (sampled every tenth sample: a full GC is not free). */
  private long lastHeap;

  private Sample sample(MiniFffsCluster cluster, Path dir, double seconds, long written, boolean collectHeap)
      throws IOException {
    MemoryUsage usage = cluster.getDataNode(0).store().memoryUsage();
    if (collectHeap) {
      System.gc();
      Runtime runtime = Runtime.getRuntime();
      lastHeap = runtime.totalMemory() - runtime.freeMemory();
    }
    long heap = lastHeap;
    return new Sample(seconds, written, segmentBytes(dir), usage.residentPageBytes(),
        usage.logBytes() + usage.indexBytes(), heap, cluster.getNameNode().namesystem().inodeCount());
  }

  /** Bytes of the segment files under {@code dir}. */
  private static long segmentBytes(Path dir) throws IOException {
    try {
      return walkSegments(dir);
    } catch (java.io.UncheckedIOException e) {
      return walkSegments(dir);  // a file went while the walk listed its directory: once more
    }
  }

  private static long walkSegments(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(f -> f.getFileName().toString().startsWith("seg-")).mapToLong(f -> {
        try {
          return Files.size(f);
        } catch (IOException e) {
          return 0;  // deleted by the cleaner meanwhile
        }
      }).sum();
    }
  }

  private static double secondHalfMax(Phase phase, java.util.function.ToLongFunction<Sample> value) {
    List<Sample> samples = phase.samples;
    return samples.subList(samples.size() / 2, samples.size()).stream().mapToLong(value).max().orElse(0);
  }

  private static double max(Phase phase, java.util.function.ToLongFunction<Sample> value) {
    return phase.samples.stream().mapToLong(value).max().orElse(0);
  }

  private static double firstHalfMax(Phase phase, java.util.function.ToLongFunction<Sample> value) {
    List<Sample> samples = phase.samples;
    return samples.subList(0, Math.max(1, samples.size() / 2)).stream().mapToLong(value).max().orElse(0);
  }

  private static double mib(long bytes) {
    return bytes / (double) (1 << 20);
  }
}
