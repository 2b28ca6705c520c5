package io.fffs.datanode.store;

import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.persist.SegmentFormat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several persistence threads, each with its own segment files and small files that roll often; a restart with a
 * different thread count must still rebuild every block's log in order.
 */
class MultiThreadedPersistenceTest {
  @TempDir
  Path dataDir;

  /**
   * The persistence mode of this run; {@link MultiThreadedPersistencePageCacheTest} runs every test again
   * through the page cache.
   */
  PersistMode mode() {
    return PersistMode.DIRECT;
  }

  @BeforeEach
  void placeDataDir() {
    dataDir = mode().dataDir(dataDir);
  }

  @Test
  void blocksSpreadOverThreadsAndRolledFilesRecoverInLogOrder() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, mode())) {
      fixture.conf.setInt(DataNodeConfigKeys.PERSISTENCE_THREADS_KEY, 3);
      fixture.conf.setLong(DataNodeConfigKeys.SEGMENT_FILE_SIZE_KEY, 64 * 1024);
      fixture.conf.setLong(DataNodeConfigKeys.PERSISTENCE_BATCH_BYTES_KEY, 8 * 1024); // files roll between batches
      fixture.open();
      List<Long> blocks = new ArrayList<>();
      for (long block = 0; block < 9; block++) {
        blocks.add(block);
        for (int i = 0; i < 20; i++) {
          fixture.store.write(block, i * 700L, bytes(1000, (int) block * 100 + i), WriteOptions.defaults());
        }
      }
      fixture.store.sync(blocks);
      assertThat(fixture.store.durableFrontier())
          .isEqualTo(fixture.store.info(8, TimeSpec.latest()).hlc());
      try (Stream<Path> files = Files.list(dataDir)) {
        assertThat(files.filter(f -> SegmentFormat.fileNumberOf(f) >= 0).count()).isGreaterThan(3);
      }

      fixture.conf.setInt(DataNodeConfigKeys.PERSISTENCE_THREADS_KEY, 2);
      fixture.restart();
      for (long block : blocks) {
        fixture.store.write(block, 0, bytes(10, 7), WriteOptions.defaults());
      }
      fixture.restart();

      for (long block : blocks) {
        BlockInfo info = fixture.store.info(block, TimeSpec.latest());
        assertThat(info.logIndex()).isEqualTo(21); // create, 20 writes, 1 after the first restart
        assertThat(info.length()).isEqualTo(19 * 700 + 1000);
        byte[] expected = new byte[19 * 700 + 1000];
        for (int i = 0; i < 20; i++) {
          System.arraycopy(bytes(1000, (int) block * 100 + i).array(), 0, expected, i * 700, 1000);
        }
        try (ReadView before = fixture.store.readAtLogIndex(block, 20, 0, expected.length)) {
          assertThat(before.toBytes()).isEqualTo(expected);
        }
        System.arraycopy(bytes(10, 7).array(), 0, expected, 0, 10);
        try (ReadView latest = fixture.store.read(block, 0, expected.length, TimeSpec.latest())) {
          assertThat(latest.toBytes()).isEqualTo(expected);
        }
      }
    }
  }
}
