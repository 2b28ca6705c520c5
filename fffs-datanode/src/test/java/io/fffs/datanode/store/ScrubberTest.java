package io.fffs.datanode.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.datanode.store.persist.SegmentFormat;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The background scrubber verifies persisted segments and reports damage with file and offset. */
class ScrubberTest {
  @TempDir
  Path dataDir;

  /** The persistence mode of this run; {@link ScrubberPageCacheTest} runs every test again through the page cache. */
  PersistMode mode() {
    return PersistMode.DIRECT;
  }

  @BeforeEach
  void placeDataDir() {
    dataDir = mode().dataDir(dataDir);
  }

  private static ScrubberStatus awaitStatus(MultiLogBlockStore store, java.util.function.Predicate<ScrubberStatus>
      done) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (System.nanoTime() < deadline) {
      ScrubberStatus status = store.scrubberStatus();
      if (done.test(status)) {
        return status;
      }
      Thread.sleep(25);
    }
    return store.scrubberStatus();
  }

  @Test
  void findsFlippedBytesInPersistedSegmentsAndNamesThem() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, mode())) {
      fixture.conf.set(DataNodeConfigKeys.SCRUBBER_RATE_KEY, "1g");
      fixture.conf.set(DataNodeConfigKeys.SCRUBBER_INTERVAL_KEY, "50ms");
      fixture.conf.setLong(DataNodeConfigKeys.SEGMENT_FILE_SIZE_KEY, 16 * 1024);
      fixture.open();
      for (long block = 1; block <= 4; block++) {
        for (int i = 0; i < 8; i++) {
          fixture.store.write(block, i * 2048L, StoreFixture.bytes(2048, (int) block * 100 + i),
              WriteOptions.defaults());
        }
        fixture.store.sync(List.of(block));  // one batch per block: the 16 KiB files roll between them
      }

      ScrubberStatus clean = awaitStatus(fixture.store, s -> s.passes() >= 2 && s.bytesVerified() > 64 * 1024);
      assertThat(clean.enabled()).isTrue();
      assertThat(clean.bytesVerified()).isGreaterThan(64 * 1024);
      assertThat(clean.corruptions()).isZero();
      assertThat(clean.lastCorruption()).isNull();

      List<Path> segments = SegmentFormat.list(dataDir);
      assertThat(segments.size()).as("rolled: the first file is closed").isGreaterThanOrEqualTo(2);
      Path victim = segments.get(0);
      for (Path closed : segments.subList(0, segments.size() - 1)) {
        if (java.nio.file.Files.size(closed) > java.nio.file.Files.size(victim)) {
          victim = closed;
        }
      }
      long offset = java.nio.file.Files.size(victim) / 2;  // pages are most of a segment file
      try (RandomAccessFile file = new RandomAccessFile(victim.toFile(), "rw")) {
        file.seek(offset);
        int b = file.read();
        file.seek(offset);
        file.write(b ^ 0xff);
      }

      ScrubberStatus damaged = awaitStatus(fixture.store, s -> s.corruptions() > 0);
      assertThat(damaged.corruptions()).isPositive();
      assertThat(damaged.lastCorruption()).startsWith("CORRUPT: segment file " + victim).contains(" at offset ")
          .contains("fails its CRC32C");
      assertThat(fixture.store.stats().scrubCorruptions.sum()).isPositive();
    }
  }

  @Test
  void aClosedFileWhoseFooterIsDamagedIsReported() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, mode())) {
      fixture.conf.set(DataNodeConfigKeys.SCRUBBER_RATE_KEY, "1g");
      fixture.conf.set(DataNodeConfigKeys.SCRUBBER_INTERVAL_KEY, "50ms");
      fixture.conf.setLong(DataNodeConfigKeys.SEGMENT_FILE_SIZE_KEY, 8 * 1024);
      fixture.open();
      for (int i = 0; i < 16; i++) {
        fixture.store.write(1, i * 2048L, StoreFixture.bytes(2048, i), WriteOptions.defaults());
        fixture.store.sync(List.of(1L));
      }
      List<Path> files = SegmentFormat.list(dataDir);
      assertThat(files.size()).as("rolled: %s", files).isGreaterThanOrEqualTo(2);
      Path closed = files.get(0);
      long last = java.nio.file.Files.size(closed) - 1;
      try (RandomAccessFile file = new RandomAccessFile(closed.toFile(), "rw")) {
        file.seek(last);
        int b = file.read();
        file.seek(last);
        file.write(b ^ 0x01);
      }
      ScrubberStatus damaged = awaitStatus(fixture.store, s -> s.corruptions() > 0);
      assertThat(damaged.lastCorruption()).as("%s, files %s", damaged, files).isNotNull()
          .contains(closed.toString()).contains("without a valid footer");
    }
  }

  @Test
  void offWhenTheRateIsZero() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, mode())) {
      fixture.conf.set(DataNodeConfigKeys.SCRUBBER_RATE_KEY, "0");
      fixture.open();
      assertThat(fixture.store.scrubberStatus()).isEqualTo(ScrubberStatus.DISABLED);
    }
  }
}
