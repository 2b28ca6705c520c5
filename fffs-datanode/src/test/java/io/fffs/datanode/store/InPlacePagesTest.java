package io.fffs.datanode.store;

import static io.fffs.datanode.store.CorruptionTest.segments;
import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.persist.SegmentFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * O_DIRECT with 4 KiB pages: an entry of 32 pages or more is written from the arena in place, after a padding
 * record that makes its pages start on the alignment; smaller ones are copied into the staging buffer. Both kinds,
 * mixed in one batch, read back the same before and after a restart and after eviction (pages reloaded from disk).
 */
class InPlacePagesTest {
  private static final int PAGE = 4096;

  @TempDir
  Path dataDir;

  @BeforeEach
  void placeDataDir() {
    dataDir = PersistMode.DIRECT.dataDir(dataDir);
  }

  private StoreFixture fixture(long capacity) {
    StoreFixture fixture = new StoreFixture(dataDir, PersistMode.DIRECT);
    fixture.conf.setInt(DataNodeConfigKeys.PAGE_SIZE_KEY, PAGE);
    fixture.conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, capacity);
    return fixture;
  }

  /** The entry records of a segment file: offset and page count. */
  private static List<long[]> entries(Path file) throws IOException {
    List<long[]> entries = new ArrayList<>();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long pos = SegmentFormat.HEADER_BYTES;
      ByteBuffer prefix = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      while (pos + 8 <= channel.size()) {
        channel.read(prefix.clear(), pos);
        if (prefix.getInt(0) == SegmentFormat.PAD_MAGIC) {
          pos += prefix.getInt(4);
        } else if (prefix.getInt(0) == SegmentFormat.ENTRY_MAGIC) {
          entries.add(new long[] {pos, prefix.getInt(4)});
          pos += SegmentFormat.recordBytes(prefix.getInt(4), PAGE);
        } else {
          break;
        }
      }
    }
    return entries;
  }

  /** Writes a mix of large and small writes to blocks 1 and 2, at offsets inside and at the end; returns the model. */
  private static byte[][] writeMix(StoreFixture fixture) throws IOException {
    byte[][] model = {new byte[0], new byte[0]};
    Random random = new Random(7);
    for (int i = 0; i < 40; i++) {
      int block = i % 2;
      int size = i % 3 == 0 ? 6_000 + random.nextInt(4_000) : 32 * PAGE + random.nextInt(40 * PAGE);
      long offset = model[block].length == 0 || i % 4 == 1 ? model[block].length
          : random.nextInt(model[block].length);
      ByteBuffer data = bytes(size, i + 1);
      fixture.store.write(block + 1, offset, data.duplicate(), WriteOptions.defaults());
      byte[] next = java.util.Arrays.copyOf(model[block], (int) Math.max(model[block].length, offset + size));
      data.get(next, (int) offset, size);
      model[block] = next;
    }
    fixture.store.sync(List.of(1L, 2L));
    return model;
  }

  private static void assertModel(StoreFixture fixture, byte[][] model) throws IOException {
    for (int block = 0; block < 2; block++) {
      try (ReadView view = fixture.store.read(block + 1, 0, model[block].length, TimeSpec.latest())) {
        assertThat(view.toBytes()).as("block %d", block + 1).isEqualTo(model[block]);
      }
    }
  }

  @Test
  void largeEntriesHaveTheirPagesOnTheAlignmentAndReadBackAfterARestart() throws Exception {
    StoreFixture scrubbed = fixture(64L << 20);
    scrubbed.conf.set(DataNodeConfigKeys.SCRUBBER_RATE_KEY, "1g");
    scrubbed.conf.set(DataNodeConfigKeys.SCRUBBER_INTERVAL_KEY, "50ms");
    try (StoreFixture fixture = scrubbed.open()) {
      int alignment = fixture.store.stats().persistenceDirectIoAlignment;
      byte[][] model = writeMix(fixture);
      long padded = fixture.store.stats().bytesPadded.sum();
      fixture.restart();
      assertModel(fixture, model);

      int large = 0;
      int small = 0;
      for (Path file : segments(dataDir)) {
        for (long[] entry : entries(file)) {
          if (entry[1] >= 32) {
            large++;
            assertThat((entry[0] + SegmentFormat.PREFIX_BYTES) % alignment)
                .as("pages of a %d-page entry at %d start on the alignment", entry[1], entry[0]).isZero();
          } else if (entry[1] > 0) {
            small++;
          }
        }
      }
      assertThat(large).as("entries written in place").isGreaterThanOrEqualTo(20);
      assertThat(small).as("entries staged").isGreaterThanOrEqualTo(5);
      assertThat(padded).as("padding before the large entries").isGreaterThan(0);

      long deadline = System.nanoTime() + 20_000_000_000L;
      while (fixture.store.scrubberStatus().passes() < 2 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      ScrubberStatus scrub = fixture.store.scrubberStatus();
      assertThat(scrub.passes()).as("scrubber passes").isGreaterThanOrEqualTo(2);
      assertThat(scrub.bytesVerified()).as("bytes the scrubber verified").isGreaterThan(4L << 20);
      assertThat(scrub.corruptions()).as("corruptions found: %s", scrub.lastCorruption()).isZero();
    }
  }

  @Test
  void zeroTurnsItOffAndANegativeCountIsRefused() throws Exception {
    StoreFixture off = fixture(64L << 20);
    off.conf.setInt(DataNodeConfigKeys.PERSISTENCE_IN_PLACE_MIN_PAGES_KEY, 0);
    try (StoreFixture fixture = off.open()) {
      int alignment = fixture.store.stats().persistenceDirectIoAlignment;
      byte[][] model = writeMix(fixture);
      fixture.restart();
      assertModel(fixture, model);
      long unaligned = 0;
      for (Path file : segments(dataDir)) {
        unaligned += entries(file).stream()
            .filter(e -> e[1] >= 32 && (e[0] + SegmentFormat.PREFIX_BYTES) % alignment != 0).count();
      }
      assertThat(unaligned).as("large entries staged where they fall").isGreaterThan(0);
    }
    StoreFixture negative = fixture(64L << 20);
    negative.conf.setInt(DataNodeConfigKeys.PERSISTENCE_IN_PLACE_MIN_PAGES_KEY, -1);
    try (negative) {
      org.assertj.core.api.Assertions.assertThatThrownBy(negative::open)
          .hasMessageContaining(DataNodeConfigKeys.PERSISTENCE_IN_PLACE_MIN_PAGES_KEY);
    }
  }

  @Test
  void pagesWrittenInPlaceAreReloadedAfterEviction() throws Exception {
    // 2 MiB of arena for ~7 MiB of writes: the early pages are evicted once persisted and read back from disk.
    try (StoreFixture fixture = fixture(2L << 20).open()) {
      byte[][] model = writeMix(fixture);
      assertThat(fixture.store.stats().pagesEvicted.sum()).as("pages evicted").isGreaterThan(0);
      assertModel(fixture, model);
    }
  }
}
