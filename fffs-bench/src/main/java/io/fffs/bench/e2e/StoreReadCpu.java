package io.fffs.bench.e2e;

import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.datanode.store.MultiLogBlockStore;
import io.fffs.datanode.store.ReadView;
import io.fffs.datanode.store.WriteOptions;
import io.fffs.protocol.frame.ChunkChecksums;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * What a DataNode's handler thread spends to prepare a READ answer, without the network: a fresh store (an arena of
 * ARENA_MIB in /dev/shm, segment files in DIR through the page cache) takes MIB in 1 MiB writes with their chunk
 * CRCs (or without, {@code nocrcs}: the CRCs of arena pages are then computed at each read), then the whole range is
 * read ROUNDS times in 1 MiB views with the answer's chunk CRCs, alternating a plain {@code read} (evicted pages read
 * from the segment files and checked) and {@code readForSending} (evicted pages an earlier read checked are runs of
 * their file, to be written from a mapping of it). Prints the reading thread's CPU per round and the medians.
 * {@code java -cp ... io.fffs.bench.e2e.StoreReadCpu DIR [MIB] [ARENA_MIB] [ROUNDS] [crcs|nocrcs]}
 * (DIR, 256, 16, 8, crcs).
 */
public final class StoreReadCpu {
  private static final int IO = 1 << 20;
  private static final int BLOCK_MIB = 128;

  private StoreReadCpu() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory(Paths.get(args[0]), "store-read-cpu");
    int mib = args.length > 1 ? Integer.parseInt(args[1]) : 256;
    long arenaMib = args.length > 2 ? Long.parseLong(args[2]) : 16;
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 8;
    boolean crcs = args.length <= 4 || !args[4].equals("nocrcs");
    Path memory = Files.createTempDirectory(Paths.get("/dev/shm"), "store-read-cpu");
    Configuration conf = new Configuration(false);
    conf.set(DataNodeConfigKeys.DATA_DIR_KEY, dir.toString());
    conf.set(DataNodeConfigKeys.MEMORY_DIR_KEY, memory.toString());
    conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, arenaMib << 20);
    MultiLogBlockStore store = MultiLogBlockStore.open(conf, new HybridLogicalClock(PhysicalClock.system(), 250_000));
    try {
      ByteBuffer data = ByteBuffer.allocateDirect(IO);
      for (int i = 0; i < IO; i++) {
        data.put(i, (byte) (i * 7 + i / 4099));
      }
      WriteOptions options = crcs ? WriteOptions.defaults().withChunkCrcs(ChunkChecksums.of(data.duplicate()))
          : WriteOptions.defaults();
      for (int m = 0; m < mib; m++) {
        store.write(1 + m / BLOCK_MIB, (long) (m % BLOCK_MIB) * IO, data.duplicate(), options);
      }
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long[][] cpu = new long[2][rounds];
      for (int round = 0; round < 2 * rounds; round++) {
        boolean sending = round % 2 == 1;
        long before = threads.getCurrentThreadCpuTime();
        long check = 0;
        for (int m = 0; m < mib; m++) {
          long block = 1 + m / BLOCK_MIB;
          long offset = (long) (m % BLOCK_MIB) * IO;
          try (ReadView view = sending ? store.readForSending(block, offset, IO, TimeSpec.latest())
              : store.read(block, offset, IO, TimeSpec.latest())) {
            check += view.chunkCrcs()[0];
          }
        }
        cpu[sending ? 1 : 0][round / 2] = threads.getCurrentThreadCpuTime() - before;
        System.out.printf(Locale.ROOT, "round %d %s of %d MiB: %.1f ms CPU (%d)%n", round / 2,
            sending ? "readForSending" : "read", mib, cpu[sending ? 1 : 0][round / 2] / 1e6, check);
      }
      System.out.printf(Locale.ROOT, "arena %d MiB, writes %s chunk CRCs: median read %.1f ms, readForSending %.1f ms"
          + " CPU per %d MiB; %s%n", arenaMib, crcs ? "with" : "without", median(cpu[0]), median(cpu[1]), mib,
          store.stats());
    } finally {
      store.close();
      Clusters.deleteRecursively(dir);
      Clusters.deleteRecursively(memory);
    }
  }

  private static double median(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2] / 1e6;
  }
}
