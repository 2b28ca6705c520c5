package io.fffs.datanode.store;

import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.time.TimeSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group commit ({@code fffs.datanode.persistence.batch.interval-us}): after a batch, a persistence thread lets
 * entries gather until the interval is over — unless a {@code sync} waits, which must not wait for the interval.
 */
class PersistenceGroupCommitTest {
  @TempDir
  Path tempDir;

  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)  // a sync that waited for the 30 s interval would fail here
  void writesWithinAnIntervalShareOneBatchAndASyncDoesNotWaitForTheInterval() throws Exception {
    Path dataDir = PersistMode.DIRECT.dataDir(tempDir);
    try (StoreFixture fixture = new StoreFixture(dataDir, PersistMode.DIRECT)) {
      fixture.conf.setLong(DataNodeConfigKeys.PERSISTENCE_BATCH_INTERVAL_KEY, 30_000_000);
      fixture.open();
      StoreStats stats = fixture.store.stats();
      fixture.store.write(1, 0, bytes(1000, 0), WriteOptions.defaults());
      // The first entry after an idle spell starts a batch at once.
      fixture.store.sync(List.of(1L));
      long batches = stats.persistBatches.sum();
      long persisted = stats.entriesPersisted.sum();
      assertThat(persisted).isEqualTo(2);  // the block's create entry and the write

      for (int i = 1; i <= 20; i++) {
        fixture.store.write(1, i * 1000L, bytes(1000, i), WriteOptions.defaults());
        Thread.sleep(10);  // room for a worker that ignored the interval to persist each write on its own
      }
      assertThat(stats.entriesPersisted.sum()).as("entries persisted before the interval is over").isEqualTo(persisted);

      fixture.store.sync(List.of(1L));
      assertThat(stats.entriesPersisted.sum()).isEqualTo(persisted + 20);
      assertThat(stats.persistBatches.sum() - batches).as("batches for the 20 writes").isEqualTo(1);
      assertThat(fixture.store.durableFrontier()).isEqualTo(fixture.store.info(1, TimeSpec.latest()).hlc());

      fixture.restart();
      assertThat(fixture.store.info(1, TimeSpec.latest()).length()).isEqualTo(21_000);
      try (ReadView view = fixture.store.read(1, 20_000, 1000, TimeSpec.latest())) {
        assertThat(view.toBytes()).isEqualTo(bytes(1000, 20).array());
      }
    }
  }

  /**
   * A writer that finds the arena full waits for pages to be persisted (and evicted): that cuts the group-commit
   * wait short too, or the writer would wait out the interval (here 30 s, beyond the arena's 20 s wait timeout).
   */
  @Test
  @Timeout(value = 15, unit = TimeUnit.SECONDS)
  void aWriterWaitingForRoomInTheArenaDoesNotWaitForTheInterval() throws Exception {
    Path dataDir = PersistMode.DIRECT.dataDir(tempDir);
    try (StoreFixture fixture = new StoreFixture(dataDir, PersistMode.DIRECT)) {
      fixture.conf.setLong(DataNodeConfigKeys.PERSISTENCE_BATCH_INTERVAL_KEY, 30_000_000);
      fixture.open();  // a 1 MiB arena
      StoreStats stats = fixture.store.stats();
      WriteOptions options = new WriteOptions(8L << 20, null);
      for (int i = 0; i < 64; i++) {  // 4 MiB: four times the arena
        fixture.store.write(1, i * 65_536L, bytes(65_536, i), options);
      }
      assertThat(stats.backpressureWaits.sum()).isGreaterThan(0);
      assertThat(stats.pagesEvicted.sum()).isGreaterThan(0);
      assertThat(fixture.store.info(1, TimeSpec.latest()).length()).isEqualTo(64 * 65_536L);
      try (ReadView view = fixture.store.read(1, 0, 65_536, TimeSpec.latest())) {
        assertThat(view.toBytes()).isEqualTo(bytes(65_536, 0).array());
      }
    }
  }

  @Test
  void anIntervalOutOfRangeIsRefusedNamingTheKey() throws Exception {
    try (StoreFixture fixture = new StoreFixture(tempDir)) {
      fixture.conf.setLong(DataNodeConfigKeys.PERSISTENCE_BATCH_INTERVAL_KEY, -1);
      assertThatThrownBy(fixture::open).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(DataNodeConfigKeys.PERSISTENCE_BATCH_INTERVAL_KEY);
    }
  }
}
