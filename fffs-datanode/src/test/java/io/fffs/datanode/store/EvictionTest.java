package io.fffs.datanode.store;

import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The arena is a hard memory cap: data three times its size is written, evicted FIFO, and read back intact. */
class EvictionTest {
  private static final int PAGE = 512;
  private static final int ARENA_PAGES = 512; // 256 KiB

  @TempDir
  Path dataDir;

  /** The persistence mode of this run; {@link EvictionPageCacheTest} runs every test again through the page cache. */
  PersistMode mode() {
    return PersistMode.DIRECT;
  }

  @BeforeEach
  void placeDataDir() {
    dataDir = mode().dataDir(dataDir);
  }

  @AfterEach
  void removeInjector() {
    StoreFaultInjector.set(null);
  }

  private StoreFixture fixture() {
    StoreFixture fixture = new StoreFixture(dataDir, mode());
    fixture.conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, (long) ARENA_PAGES * PAGE);
    return fixture;
  }

  /** Slows every fsync down, as a slow disk would. */
  static final class SlowDisk extends StoreFaultInjector {
    @Override
    public void beforeFsync(Path segment) {
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Holds the first fsync until a writer has had to wait for arena space, so backpressure surely happens. */
  static final class DiskStuckUntilBackpressure extends StoreFaultInjector {
    private final StoreStats stats;

    DiskStuckUntilBackpressure(StoreStats stats) {
      this.stats = stats;
    }

    @Override
    public void beforeFsync(Path segment) {
      for (int i = 0; i < 2_000 && stats.backpressureWaits.sum() == 0; i++) {
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  @Test
  void threeTimesTheArenaIsWrittenAndReadBackWhileTheMemoryCapHolds() throws Exception {
    try (StoreFixture fixture = fixture().open()) {
      StoreFaultInjector.set(new DiskStuckUntilBackpressure(fixture.store.stats()));
      BlockStore store = fixture.store;
      long capacity = (long) ARENA_PAGES * PAGE;
      int writeSize = 4096;
      int writes = (int) (3 * capacity / writeSize);
      for (int i = 0; i < writes; i++) {
        long block = i % 3;
        store.write(block, (i / 3) * (long) writeSize, bytes(writeSize, i), WriteOptions.defaults());
        assertThat(store.memoryUsage().residentPageBytes()).isLessThanOrEqualTo(capacity);
      }
      assertThat(store.stats().backpressureWaits.sum()).as("writers waited for the slow disk").isPositive();
      assertThat(store.stats().pagesEvicted.sum()).isGreaterThanOrEqualTo(2L * ARENA_PAGES);
      assertThat(arenaFileBytes(fixture.memoryDir)).isEqualTo(capacity);

      for (int i = 0; i < writes; i++) {
        try (ReadView view = store.read(i % 3, (i / 3) * (long) writeSize, writeSize, TimeSpec.latest())) {
          assertThat(view.toBytes()).as("write " + i).isEqualTo(bytes(writeSize, i).array());
        }
      }
      // The oldest pages left first: the first write is on disk, the last one still in memory.
      try (ReadView first = store.read(0, 0, writeSize, TimeSpec.latest());
          ReadView last = store.read((writes - 1) % 3, ((writes - 1) / 3) * (long) writeSize, writeSize,
              TimeSpec.latest())) {
        assertThat(first.runs()).noneMatch(ReadView.Run::inMemory);
        assertThat(last.runs()).allMatch(ReadView.Run::inMemory);
      }
      assertThat(store.stats().pagesReloaded.sum()).isPositive();
    }
  }

  @Test
  void writersDoNotWaitForASlowDiskWhileTheArenaHasRoom() throws Exception {
    try (StoreFixture fixture = fixture().open()) {
      StoreFaultInjector.set(new SlowDisk());
      for (int i = 0; i < ARENA_PAGES / 8 - 1; i++) {
        fixture.store.write(i, 0, bytes(8 * PAGE, i), WriteOptions.defaults());
      }
      assertThat(fixture.store.stats().backpressureWaits.sum()).isZero();
    }
  }

  @Test
  void aPageHeldByAnOpenViewIsNeitherEvictedNorOverwritten() throws Exception {
    try (StoreFixture fixture = fixture().open()) {
      BlockStore store = fixture.store;
      ByteBuffer original = bytes(8 * PAGE, 1);
      store.write(1, 0, original, WriteOptions.defaults());
      store.sync(List.of(1L));
      ReadView held = store.read(1, 0, 8 * PAGE, TimeSpec.latest());
      assertThat(held.runs()).allMatch(ReadView.Run::inMemory);

      CountDownLatch started = new CountDownLatch(1);
      CompletableFuture<Void> filler = CompletableFuture.runAsync(() -> {
        try {
          started.countDown();
          for (int i = 0; i < ARENA_PAGES / 8 + 4; i++) {
            store.write(100 + i, 0, bytes(8 * PAGE, 100 + i), WriteOptions.defaults());
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      started.await();
      while (store.stats().backpressureWaits.sum() == 0 && !filler.isDone()) {
        Thread.onSpinWait();
      }
      assertThat(filler).as("the filler cannot finish while the view pins the oldest pages").isNotDone();
      assertThat(held.toBytes()).isEqualTo(original.array());
      held.close();
      filler.get();
      try (ReadView again = store.read(1, 0, 8 * PAGE, TimeSpec.latest())) {
        assertThat(again.runs()).noneMatch(ReadView.Run::inMemory);
        assertThat(again.toBytes()).isEqualTo(original.array());
      }
    }
  }

  private static long arenaFileBytes(Path memoryDir) throws IOException {
    try (Stream<Path> files = Files.list(memoryDir)) {
      long total = 0;
      for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".pages"))::iterator) {
        total += Files.size(file);
      }
      return total;
    }
  }
}
