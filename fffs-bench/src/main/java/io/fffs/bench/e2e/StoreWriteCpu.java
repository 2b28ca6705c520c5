package io.fffs.bench.e2e;

import com.sun.management.ThreadMXBean;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.datanode.store.MultiLogBlockStore;
import io.fffs.datanode.store.WriteOptions;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;

/**
 * What persistence costs a DataNode's store when a write runs beyond its arena, by sync policy: a fresh store (an
 * arena in /dev/shm, segment files in DIR, through the page cache) takes MIB in 1 MiB writes to 8 blocks, once
 * with an fsync after every batch ({@code fffs.datanode.persistence.sync-interval=0}) and once with the default;
 * per run the write's wall time, the persistence threads' CPU (user and kernel) by the last write's return, and
 * what a {@code sync} of every block right after adds (an upper bound: a DataNode's interval fsync comes later, when
 * the kernel has written back most of it). The two alternate, one round of each first as a warm-up; medians.
 * {@code java -cp ... io.fffs.bench.e2e.StoreWriteCpu DIR [ROUNDS] [MIB] [ARENA_MIB]} (DIR, 3, 1024, 256).
 */
public final class StoreWriteCpu {
  private static final int WRITE = 1 << 20;
  private static final int BLOCKS = 8;

  private StoreWriteCpu() {}

  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args[0]);
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    long mib = args.length > 2 ? Long.parseLong(args[2]) : 1024;
    long arenaMib = args.length > 3 ? Long.parseLong(args[3]) : 256;
    String[] modes = {"0", DataNodeConfigKeys.PERSISTENCE_SYNC_INTERVAL_DEFAULT};
    List<List<double[]>> results = List.of(new ArrayList<>(), new ArrayList<>());
    for (int round = -1; round < rounds; round++) {
      for (int m = 0; m < 2; m++) {
        int mode = Math.floorMod(round, 2) == 0 ? m : 1 - m;
        double[] r = run(dir, modes[mode], mib << 20, arenaMib << 20);
        System.out.printf(Locale.ROOT, "%s sync-interval=%s: %s%n", round < 0 ? "warm-up" : "round " + round,
            modes[mode], format(r));
        if (round >= 0) {
          results.get(mode).add(r);
        }
      }
    }
    for (int mode = 0; mode < 2; mode++) {
      List<double[]> rows = results.get(mode);
      double[] median = new double[5];
      for (int c = 0; c < median.length; c++) {
        int column = c;
        double[] values = rows.stream().mapToDouble(r -> r[column]).sorted().toArray();
        median[c] = values[values.length / 2];
      }
      System.out.printf(Locale.ROOT, "median of %d, %d MiB, arena %d MiB, sync-interval=%s: %s%n", rows.size(), mib,
          arenaMib, modes[mode], format(median));
    }
  }

  private static String format(double[] r) {
    return String.format(Locale.ROOT, "write %.2f s, persistence CPU %.2f s (kernel %.2f s), a sync right after"
        + " %.2f s more, %.0f fsyncs", r[0], r[1], r[2], r[3], r[4]);
  }

  /** Seconds of wall time, persistence CPU and its kernel part, CPU of a sync right after, fsyncs. */
  private static double[] run(Path dir, String syncInterval, long bytes, long arena) throws Exception {
    Path data = Files.createTempDirectory(Files.createDirectories(dir), "store-write-cpu");
    Path memory = Files.createTempDirectory(Paths.get("/dev/shm"), "store-write-cpu");
    Configuration conf = new Configuration(false);
    conf.set(DataNodeConfigKeys.DATA_DIR_KEY, data.toString());
    conf.set(DataNodeConfigKeys.MEMORY_DIR_KEY, memory.toString());
    conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, arena);
    conf.set(DataNodeConfigKeys.PERSISTENCE_DIRECT_IO_KEY, "false");
    conf.set(DataNodeConfigKeys.PERSISTENCE_SYNC_INTERVAL_KEY, syncInterval);
    byte[] payload = new byte[WRITE];
    new Random(1).nextBytes(payload);
    try (MultiLogBlockStore store = MultiLogBlockStore.open(conf,
        new HybridLogicalClock(PhysicalClock.system(), 250_000))) {
      List<Long> blocks = new ArrayList<>();
      long start = System.nanoTime();
      for (long block = 1; block <= BLOCKS; block++) {
        blocks.add(block);
        for (long offset = 0; offset < bytes / BLOCKS; offset += WRITE) {
          store.write(block, offset, ByteBuffer.wrap(payload), WriteOptions.defaults());
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      double[] written = persistenceCpu();
      store.sync(blocks);
      double[] synced = persistenceCpu();
      return new double[] {seconds, written[1], written[1] - written[0], synced[1] - written[1],
          store.stats().fsyncs.sum()};
    } finally {
      delete(data);
      delete(memory);
    }
  }

  /** User and total CPU seconds of the persistence threads. */
  private static double[] persistenceCpu() {
    ThreadMXBean bean = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    double user = 0;
    double total = 0;
    for (ThreadInfo info : bean.getThreadInfo(bean.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith("fffs-persist")) {
        user += bean.getThreadUserTime(info.getThreadId()) / 1e9;
        total += bean.getThreadCpuTime(info.getThreadId()) / 1e9;
      }
    }
    return new double[] {user, total};
  }

  private static void delete(Path dir) throws java.io.IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(path);
      }
    }
  }
}
