package io.fffs.bench.jmh;

import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.datanode.store.MultiLogBlockStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;

/** Opens block stores for the {@code Store*Benchmark}s in throw-away directories and cleans up after them. */
final class StoreBenchSupport implements AutoCloseable {
  /**
   * Where the arenas go: {@code /dev/shm}, or the tmpfs named by {@code -Dfffs.bench.memory.root} (for example one
   * mounted with {@code huge=always}).
   */
  static final String MEMORY_ROOT = System.getProperty("fffs.bench.memory.root", "/dev/shm");

  final Path memoryDir = Paths.get(MEMORY_ROOT, "fffs-bench-" + UUID.randomUUID());
  final Path dataDir;
  final MultiLogBlockStore store;

  /**
   * A store with an arena of {@code capacity} bytes of {@code pageSize}-byte pages, fully pre-touched before this
   * returns; persistence to a temporary directory on disk if {@code persistent}.
   */
  StoreBenchSupport(long capacity, int pageSize, boolean persistent, PhysicalClock clock) throws IOException {
    this(capacity, pageSize, persistent, clock, DataNodeConfigKeys.PERSISTENCE_DIRECT_IO_DEFAULT);
  }

  /** As above, with {@code fffs.datanode.persistence.direct-io} set to {@code directIo}. */
  StoreBenchSupport(long capacity, int pageSize, boolean persistent, PhysicalClock clock, String directIo)
      throws IOException {
    dataDir = Files.createTempDirectory("fffs-bench-data");
    Configuration conf = new Configuration(false);
    conf.set(DataNodeConfigKeys.MEMORY_DIR_KEY, memoryDir.toString());
    conf.set(DataNodeConfigKeys.DATA_DIR_KEY, dataDir.toString());
    conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, capacity);
    conf.setInt(DataNodeConfigKeys.PAGE_SIZE_KEY, pageSize);
    conf.setBoolean(DataNodeConfigKeys.PERSISTENCE_ENABLED_KEY, persistent);
    conf.set(DataNodeConfigKeys.PERSISTENCE_DIRECT_IO_KEY, directIo);
    store = MultiLogBlockStore.open(conf, new HybridLogicalClock(clock, 250_000));
    long pages = capacity / pageSize;
    while (store.stats().pagesPretouched.sum() < pages) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while the arena was pre-touched", e);
      }
    }
  }

  /**
   * Closes the store, deletes its directories and collects garbage: the arena's tmpfs files, though deleted, keep
   * their memory until their mappings are collected (Java 17 cannot unmap them), and a benchmark that opens a store
   * per round otherwise held every earlier round's arena (5.3 GB of shared memory after 20 rounds of {@link
   * StorePersistenceOnOffBenchmark}, with the append rate falling from round to round).
   */
  @Override
  public void close() throws IOException {
    try {
      store.close();
    } finally {
      deleteTree(memoryDir);
      deleteTree(dataDir);
      System.gc();
    }
  }

  /**
   * The arena's first page file ({@code arena-0.pages}, see {@code ArenaFiles}), mapped read-only: the memory the
   * store's writes fill first.
   */
  ByteBuffer mapArena() throws IOException {
    try (FileChannel channel = FileChannel.open(memoryDir.resolve("arena-0.pages"), StandardOpenOption.READ)) {
      return channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
          Files.deleteIfExists(path);
        }
      }
    }
  }
}
