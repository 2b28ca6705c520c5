package io.fffs.datanode.store;

import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.ManualPhysicalClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;

/**
 * A store on a manual clock with its arena in a fresh directory under /dev/shm and its data in a test's temp
 * directory; reopening keeps the data directory (a restart). Small pages and a small arena by default so tests
 * exercise page boundaries and eviction quickly.
 */
final class StoreFixture implements AutoCloseable {
  static final long START_MICROS = 1_763_719_200_000_000L;
  /** The page size of the fixture's stores. */
  static final int PAGE_SIZE = 512;

  final ManualPhysicalClock physical = new ManualPhysicalClock(START_MICROS);
  final Path dataDir;
  final Path memoryDir;
  final Configuration conf = new Configuration(false);
  HybridLogicalClock clock = new HybridLogicalClock(physical, 250_000);
  MultiLogBlockStore store;

  final PersistMode mode;

  /** A store that writes its segment files the default way ({@code auto}). */
  StoreFixture(Path dataDir) {
    this(dataDir, null);
  }

  /** A store that writes its segment files in {@code mode} (checked at every open); null: the default. */
  StoreFixture(Path dataDir, PersistMode mode) {
    this.dataDir = dataDir;
    this.mode = mode;
    if (mode != null) {
      conf.set(DataNodeConfigKeys.PERSISTENCE_DIRECT_IO_KEY, mode.configValue);
    }
    Path shm = Paths.get("/dev/shm");
    this.memoryDir = (Files.isDirectory(shm) ? shm : dataDir).resolve("fffs-test-" + UUID.randomUUID());
    conf.set(DataNodeConfigKeys.DATA_DIR_KEY, dataDir.toString());
    conf.set(DataNodeConfigKeys.MEMORY_DIR_KEY, memoryDir.toString());
    conf.setInt(DataNodeConfigKeys.PAGE_SIZE_KEY, PAGE_SIZE);
    conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, 1L << 20);
    conf.setLong(DataNodeConfigKeys.MEMORY_WAIT_TIMEOUT_KEY, 20_000);
    // Damage stops recovery here, so tests see it as CORRUPT with file and offset; QuarantineTest turns it on.
    conf.setBoolean(DataNodeConfigKeys.RECOVERY_QUARANTINE_KEY, false);
  }

  StoreFixture open() throws IOException {
    store = MultiLogBlockStore.open(conf, clock);
    if (mode != null && conf.getBoolean(DataNodeConfigKeys.PERSISTENCE_ENABLED_KEY, true)
        && (store.stats().persistenceDirectIoAlignment > 0) != (mode == PersistMode.DIRECT)) {
      throw new AssertionError("the store writes with O_DIRECT alignment "
          + store.stats().persistenceDirectIoAlignment + " but the test asked for " + mode);
    }
    return this;
  }

  /** Closes the store and opens a new one on the same data directory with a fresh clock (a process restart). */
  StoreFixture restart() throws IOException {
    store.close();
    clock = new HybridLogicalClock(physical, 250_000);
    return open();
  }

  /** Advances the physical clock past everything stamped so far, so reads at past system times do not wait. */
  void passTime() {
    physical.set(Math.max(physical.currentTimeMicros(), clock.last().physicalMicros()) + 10);
  }

  static ByteBuffer bytes(int length, int seed) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (seed * 31 + i * 7);
    }
    return ByteBuffer.wrap(bytes);
  }

  /** The remaining bytes of {@code buffer}, copied out (its position unchanged). */
  static byte[] array(ByteBuffer buffer) {
    byte[] out = new byte[buffer.remaining()];
    buffer.duplicate().get(out);
    return out;
  }

  @Override
  public void close() throws IOException {
    try {
      if (store != null) {
        store.close();
      }
    } finally {
      deleteTree(memoryDir);
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(path);
      }
    }
  }
}
