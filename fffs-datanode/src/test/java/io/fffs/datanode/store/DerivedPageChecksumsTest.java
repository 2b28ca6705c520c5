package io.fffs.datanode.store;

import static io.fffs.datanode.store.CorruptionTest.assertCorrupt;
import static io.fffs.datanode.store.CorruptionTest.records;
import static io.fffs.datanode.store.CorruptionTest.segments;
import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.persist.SegmentFormat;
import io.fffs.protocol.frame.ChunkChecksums;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writes that come with their checked chunk CRCs ({@link WriteOptions#chunkCrcs}), as through the data server: the
 * pages they cover whole, on a chunk boundary, are persisted with CRCs derived from them; every other page is
 * checksummed from its bytes. Both read back after a restart and after eviction, and a chunk CRC that does not
 * match its bytes is caught when the page comes back from disk, never served.
 */
class DerivedPageChecksumsTest {
  private static final int PAGE = 4096;

  @TempDir
  Path tempDir;

  private StoreFixture fixture(PersistMode mode, long capacity) {
    StoreFixture fixture = new StoreFixture(mode.dataDir(tempDir), mode);
    fixture.conf.setInt(DataNodeConfigKeys.PAGE_SIZE_KEY, PAGE);
    fixture.conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, capacity);
    return fixture;
  }

  private static WriteOptions withCrcs(ByteBuffer data) {
    return WriteOptions.defaults().withChunkCrcs(ChunkChecksums.of(data));
  }

  @ParameterizedTest
  @EnumSource(PersistMode.class)
  void wholePagesGetDerivedCrcsAndEverythingReadsBackAfterRestartAndEviction(PersistMode mode) throws Exception {
    // 1 MiB of arena for 1.5 MiB of writes: the first pages leave memory and are reloaded (and checked) from disk.
    try (StoreFixture fixture = fixture(mode, 1L << 20).open()) {
      byte[] model = new byte[0];
      long expectDerived = 0;
      for (int i = 0; i < 24; i++) { // 24 × 64 KiB appends: 16 whole pages each
        ByteBuffer data = bytes(64 << 10, i);
        fixture.store.write(1, model.length, data.duplicate(), withCrcs(data));
        model = apply(model, model.length, data);
        expectDerived += 16;
      }
      ByteBuffer odd = bytes(3 * PAGE, 99); // at 100: no page on a chunk boundary of the write, all checksummed
      fixture.store.write(1, 100, odd.duplicate(), withCrcs(odd));
      model = apply(model, 100, odd);
      ByteBuffer shifted = bytes(3 * PAGE + 700, 98); // at 512: pages 1 and 2 whole and on a chunk boundary
      fixture.store.write(1, 512, shifted.duplicate(), withCrcs(shifted));
      model = apply(model, 512, shifted);
      expectDerived += 2;
      ByteBuffer plain = bytes(5 * PAGE, 97); // no CRCs: checksummed
      fixture.store.write(1, 8 * PAGE, plain.duplicate(), WriteOptions.defaults());
      model = apply(model, 8 * PAGE, plain);
      fixture.store.sync(List.of(1L));

      assertThat(fixture.store.stats().pageCrcsDerived.sum()).as("page CRCs derived").isEqualTo(expectDerived);
      assertThat(fixture.store.stats().pagesEvicted.sum()).as("pages evicted").isPositive();
      assertBlock(fixture, model);
      fixture.restart();
      assertBlock(fixture, model);
      assertThat(fixture.store.stats().crcFailures.sum()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(PersistMode.class)
  void aChunkCrcThatDoesNotMatchItsBytesIsCaughtWhenThePageIsReadFromDisk(PersistMode mode) throws Exception {
    try (StoreFixture fixture = fixture(mode, 1L << 20).open()) {
      ByteBuffer data = bytes(4 * PAGE, 5);
      int[] crcs = ChunkChecksums.of(data);
      crcs[8 + 3] ^= 1; // a chunk of page 1
      fixture.store.write(1, 0, data.duplicate(), WriteOptions.defaults().withChunkCrcs(crcs));
      fixture.restart(); // closes the segment cleanly; its pages are now on disk only

      Path file = segments(fixture.dataDir).get(0);
      long pageOne = records(file, PAGE).get(1).offset() + SegmentFormat.PREFIX_BYTES + PAGE;
      assertCorrupt(() -> fixture.store.read(1, PAGE + 10, 100, TimeSpec.latest()), file, pageOne);
      try (ReadView others = fixture.store.read(1, 2 * PAGE, 2 * PAGE, TimeSpec.latest())) {
        assertThat(others.toBytes()).isEqualTo(Arrays.copyOfRange(data.array(), 2 * PAGE, 4 * PAGE));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(PersistMode.class)
  void aWrongNumberOfChunkCrcsIsRefusedAndChangesNothing(PersistMode mode) throws Exception {
    try (StoreFixture fixture = fixture(mode, 1L << 20).open()) {
      ByteBuffer data = bytes(2000, 5);
      fixture.store.write(1, 0, data.duplicate(), withCrcs(data));
      int[] tooFew = Arrays.copyOf(ChunkChecksums.of(data), 3);
      assertThatThrownBy(() -> fixture.store.write(1, 2000, data.duplicate(),
          WriteOptions.defaults().withChunkCrcs(tooFew)))
          .isInstanceOfSatisfying(FffsException.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
          .hasMessageContaining("3 chunk checksums instead of 4");
      assertThat(fixture.store.info(1, TimeSpec.latest()).length()).isEqualTo(2000);
    }
  }

  @ParameterizedTest
  @EnumSource(PersistMode.class)
  void theChunkCrcsQueuedForPersistenceStayWithinTheirBudget(PersistMode mode) throws Exception {
    StoreFixture small = fixture(mode, 4L << 20);
    small.conf.setLong(DataNodeConfigKeys.PERSISTENCE_CHUNK_CRC_BUDGET_KEY, 600); // one 64 KiB write's 512 bytes
    try (StoreFixture fixture = small.open()) {
      for (int i = 0; i < 10; i++) { // each durable before the next: the budget is given back every time
        ByteBuffer data = bytes(64 << 10, i);
        fixture.store.write(1, (long) i << 16, data.duplicate(), withCrcs(data));
        fixture.store.sync(List.of(1L));
      }
      assertThat(fixture.store.stats().pageCrcsDerived.sum()).isEqualTo(10 * 16);
    }
    StoreFixture off = fixture(mode, 4L << 20);
    off.conf.setLong(DataNodeConfigKeys.PERSISTENCE_CHUNK_CRC_BUDGET_KEY, 0);
    try (StoreFixture fixture = off.open()) {
      ByteBuffer data = bytes(64 << 10, 1);
      fixture.store.write(1, 0, data.duplicate(), withCrcs(data));
      fixture.store.sync(List.of(1L));
      assertThat(fixture.store.stats().pageCrcsDerived.sum()).as("budget 0: derivation off").isZero();
      fixture.restart();
      assertBlock(fixture, data.array());
    }
    StoreFixture negative = fixture(mode, 4L << 20);
    negative.conf.set(DataNodeConfigKeys.PERSISTENCE_CHUNK_CRC_BUDGET_KEY, "-1");
    try (negative) {
      assertThatThrownBy(negative::open).hasMessageContaining(DataNodeConfigKeys.PERSISTENCE_CHUNK_CRC_BUDGET_KEY);
    }
  }

  private static byte[] apply(byte[] model, int offset, ByteBuffer data) {
    byte[] next = Arrays.copyOf(model, Math.max(model.length, offset + data.remaining()));
    data.duplicate().get(next, offset, data.remaining());
    return next;
  }

  private static void assertBlock(StoreFixture fixture, byte[] model) throws Exception {
    try (ReadView view = fixture.store.read(1, 0, model.length, TimeSpec.latest())) {
      assertThat(view.toBytes()).isEqualTo(model);
    }
  }
}
