package io.fffs.datanode.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The model test: 10,000 random mutations on eight blocks, then 500 random temporal reads that must match
 * the reference model byte for byte — before a restart and after a clean one. The arena (4 MiB of 512 B pages)
 * is far smaller than the data, so reads mix resident pages with evicted ones reloaded from the segment files.
 */
class RandomWorkloadTest {
  @TempDir
  Path dataDir;

  /**
   * The persistence mode of this run; {@link RandomWorkloadPageCacheTest} runs every test again through the page
   * cache.
   */
  PersistMode mode() {
    return PersistMode.DIRECT;
  }

  @BeforeEach
  void placeDataDir() {
    dataDir = mode().dataDir(dataDir);
  }

  @Test
  void tenThousandRandomMutationsReadBackAtAnyTimeBeforeAndAfterARestart() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, mode())) {
      fixture.conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, 4L << 20);
      fixture.open();
      RandomWorkload workload = new RandomWorkload(20261121L, fixture.physical);
      while (workload.accepted < 10_000) {
        assertThat(workload.step(fixture.store)).isTrue();
      }
      fixture.passTime();
      assertThat(workload.refused).isPositive();
      assertThat(fixture.store.stats().pagesEvicted.sum()).isPositive();

      workload.verifyReads(fixture.store, 500);
      assertThat(fixture.store.stats().pagesReloaded.sum()).isPositive();
      assertThat(fixture.store.stats().pageCrcsDerived.sum()).as("pages persisted with CRCs from chunk CRCs")
          .isPositive();

      fixture.restart();
      workload.verifyReads(fixture.store, 500);
    }
  }
}
