package io.fffs.datanode.store;

import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.datanode.store.persist.SegmentFormat;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Batches written without an fsync: their pages leave the arena at once but count as durable only after the next
 * fsync; after a power loss any of them may be missing in part, while a later one reached the disk. A bad record
 * after the last fsync a commit mark records is a torn tail (cut, with every batch after it, though intact); a bad
 * record before it is damage (quarantined). Version 3 files, every batch of which was fsync'd, keep their rule.
 */
class UnsyncedBatchesTest {
  @TempDir
  Path tempDir;

  private StoreFixture fixture(PersistMode mode) throws Exception {
    return fixture(mode, mode.dataDir(tempDir));
  }

  private static StoreFixture fixture(PersistMode mode, Path dataDir) throws Exception {
    StoreFixture fixture = new StoreFixture(dataDir, mode);
    fixture.conf.set(DataNodeConfigKeys.PERSISTENCE_SYNC_INTERVAL_KEY, "1h");
    fixture.conf.setBoolean(DataNodeConfigKeys.RECOVERY_QUARANTINE_KEY, true);
    return fixture.open();
  }

  /** Writes one block (its create and write entries) and returns once both are written to the segment file. */
  private static void writeOwnBatch(StoreFixture fixture, long block) throws Exception {
    long before = fixture.store.stats().entriesPersisted.sum();
    fixture.store.write(block, 0, bytes(1000, (int) block), WriteOptions.defaults());
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (fixture.store.stats().entriesPersisted.sum() < before + 2) {
      assertThat(System.nanoTime()).as("block %d written to its segment file", block).isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  /** The only segment file, closed cleanly and its footer cut off: what a power loss after writeback leaves. */
  private static Path withoutFooter(StoreFixture fixture) throws Exception {
    fixture.store.close();
    List<Path> files = CorruptionTest.segments(fixture.dataDir);
    assertThat(files).hasSize(1);
    Path file = files.get(0);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(channel.size() - SegmentFormat.FOOTER_BYTES);
    }
    return file;
  }

  private static void zero(Path file, long offset, int length) throws Exception {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer zeros = ByteBuffer.allocate(length);
      while (zeros.hasRemaining()) {
        channel.write(zeros, offset + zeros.position());
      }
    }
  }

  @ParameterizedTest
  @EnumSource(PersistMode.class)
  void writtenPagesLeaveTheArenaButBecomeDurableOnlyAtASync(PersistMode mode) throws Exception {
    try (StoreFixture fixture = fixture(mode)) {
      writeOwnBatch(fixture, 1);
      WriteResult second = fixture.store.write(1, 1000, bytes(1000, 2), WriteOptions.defaults());
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (fixture.store.stats().entriesPersisted.sum() < 3) {
        assertThat(System.nanoTime()).as("the second write persisted").isLessThan(deadline);
        Thread.sleep(1);
      }
      assertThat(fixture.store.stats().entriesDurable.sum()).isZero();
      assertThat(fixture.store.durableFrontier()).isLessThan(second.hlc());
      long fsyncs = fixture.store.stats().fsyncs.sum();

      fixture.store.sync(List.of(1L));
      assertThat(fixture.store.stats().fsyncs.sum()).isEqualTo(fsyncs + 1);
      assertThat(fixture.store.stats().entriesDurable.sum()).isEqualTo(3);
      assertThat(fixture.store.durableFrontier()).isGreaterThanOrEqualTo(second.hlc());
    }
  }

  @ParameterizedTest
  @EnumSource(PersistMode.class)
  void aTornUnsyncedBatchIsCutWithTheIntactBatchesAfterIt(PersistMode mode) throws Exception {
    try (StoreFixture fixture = fixture(mode)) {
      writeOwnBatch(fixture, 1);
      fixture.store.sync(List.of(1L));
      for (long block = 2; block <= 4; block++) {
        writeOwnBatch(fixture, block);
      }
      Path file = withoutFooter(fixture);
      List<CorruptionTest.Record> records = CorruptionTest.records(file, StoreFixture.PAGE_SIZE);
      assertThat(records).hasSize(8);  // a create and a write per block
      CorruptionTest.Record tornWrite = records.get(5);  // block 3's write: the kernel never wrote its pages back
      zero(file, tornWrite.offset() + SegmentFormat.PREFIX_BYTES, StoreFixture.PAGE_SIZE);

      fixture.open();
      assertThat(fixture.store.quarantined()).isEmpty();
      assertThat(fixture.store.logEntries(1)).hasSize(2);
      assertThat(fixture.store.logEntries(2)).hasSize(2);
      assertThat(fixture.store.logEntries(3)).hasSize(1);  // its create, written before the hole
      assertThat(fixture.store.blockReport()).extracting(BlockSummary::blockId).containsExactlyInAnyOrder(1L, 2L,
          3L);
      assertThat(Files.size(file)).as("cut at the torn record, closed with a footer")
          .isEqualTo(tornWrite.offset() + SegmentFormat.FOOTER_BYTES);
    }
  }

  @ParameterizedTest
  @EnumSource(PersistMode.class)
  void damageBeforeTheLastFsyncIsQuarantinedThoughUnsyncedBatchesFollow(PersistMode mode) throws Exception {
    try (StoreFixture fixture = fixture(mode)) {
      writeOwnBatch(fixture, 1);
      writeOwnBatch(fixture, 2);
      fixture.store.sync(List.of(1L, 2L));
      writeOwnBatch(fixture, 3);
      Path file = withoutFooter(fixture);
      CorruptionTest.Record damaged = CorruptionTest.records(file, StoreFixture.PAGE_SIZE).get(3);  // block 2's write
      CorruptionTest.flip(file, damaged.offset() + SegmentFormat.PREFIX_BYTES + 3);

      fixture.open();
      assertThat(fixture.store.quarantined()).containsExactly(2L);
      assertThat(fixture.store.logEntries(1)).hasSize(2);
      assertThat(fixture.store.logEntries(3)).hasSize(2);
    }
  }

  /**
   * What a power loss leaves of a DataNode idle since its last fsync: the files as they are on disk (copied while
   * the store runs, no footer). The commit mark written after that fsync is among them, so damage in the batches it
   * made durable is quarantined, not cut as a torn tail with the acknowledged entries after it.
   */
  @ParameterizedTest
  @EnumSource(PersistMode.class)
  void damageInTheLastFsyncdBatchOfAnIdleDataNodeIsQuarantined(PersistMode mode) throws Exception {
    Path crashed = mode.dataDir(Files.createDirectories(tempDir.resolve("crashed")));
    try (StoreFixture fixture = fixture(mode)) {
      writeOwnBatch(fixture, 1);
      writeOwnBatch(fixture, 2);
      Path file = CorruptionTest.segments(fixture.dataDir).get(0);
      long written = Files.size(file);
      fixture.store.sync(List.of(1L, 2L));
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (Files.size(file) <= written) {
        assertThat(System.nanoTime()).as("the commit mark after the fsync is in the file").isLessThan(deadline);
        Thread.sleep(1);
      }
      try (var files = Files.walk(fixture.dataDir)) {
        for (Path from : files.filter(Files::isRegularFile).toList()) {
          Path to = crashed.resolve(fixture.dataDir.relativize(from));
          Files.createDirectories(to.getParent());
          Files.copy(from, to);
        }
      }
    }
    Path file = CorruptionTest.segments(crashed).get(0);
    CorruptionTest.Record damaged = CorruptionTest.records(file, StoreFixture.PAGE_SIZE).get(3);  // block 2's write
    CorruptionTest.flip(file, damaged.offset() + SegmentFormat.PREFIX_BYTES + 3);

    try (StoreFixture restarted = fixture(mode, crashed)) {
      assertThat(restarted.store.quarantined()).containsExactly(2L);
      assertThat(restarted.store.logEntries(1)).hasSize(2);
    }
  }

  @Test
  void aVersion3FileIsReadAndADamagedRecordFollowedByAValidOneIsStillDamage() throws Exception {
    try (StoreFixture fixture = fixture(PersistMode.PAGE_CACHE)) {
      for (long block = 1; block <= 2; block++) {
        writeOwnBatch(fixture, block);
        fixture.store.sync(List.of(block));
      }
      fixture.store.close();
      Path file = CorruptionTest.segments(fixture.dataDir).get(0);
      Files.write(file, asVersion3(Files.readAllBytes(file)));

      fixture.open();
      assertThat(fixture.store.logEntries(1)).hasSize(2);
      assertThat(fixture.store.logEntries(2)).hasSize(2);
      Path reopened = withoutFooter(fixture);
      assertThat(reopened).isEqualTo(file);
      CorruptionTest.Record write = CorruptionTest.records(file, StoreFixture.PAGE_SIZE).get(1);  // block 1's write
      CorruptionTest.flip(file, write.offset() + SegmentFormat.PREFIX_BYTES + 3);

      fixture.open();
      assertThat(fixture.store.quarantined()).containsExactly(1L);
      assertThat(fixture.store.logEntries(2)).hasSize(2);
    }
  }

  @Test
  void theSyncSettingsTakeDurationsAndSizesAndRefuseNegativeOnes() {
    Configuration conf = new Configuration(false);
    assertThat(DataNodeConfigKeys.persistenceSyncIntervalNanos(conf)).isEqualTo(30_000_000_000L);
    assertThat(DataNodeConfigKeys.persistenceSyncBytes(conf)).isEqualTo(2L << 30);
    conf.set(DataNodeConfigKeys.PERSISTENCE_SYNC_INTERVAL_KEY, "250ms");
    conf.set(DataNodeConfigKeys.PERSISTENCE_SYNC_BYTES_KEY, "0");
    assertThat(DataNodeConfigKeys.persistenceSyncIntervalNanos(conf)).isEqualTo(250_000_000L);
    assertThat(DataNodeConfigKeys.persistenceSyncBytes(conf)).isZero();
    conf.set(DataNodeConfigKeys.PERSISTENCE_SYNC_INTERVAL_KEY, "-1s");
    conf.set(DataNodeConfigKeys.PERSISTENCE_SYNC_BYTES_KEY, "-1");
    assertThatThrownBy(() -> DataNodeConfigKeys.persistenceSyncIntervalNanos(conf))
        .hasMessageContaining(DataNodeConfigKeys.PERSISTENCE_SYNC_INTERVAL_KEY);
    assertThatThrownBy(() -> DataNodeConfigKeys.persistenceSyncBytes(conf))
        .hasMessageContaining(DataNodeConfigKeys.PERSISTENCE_SYNC_BYTES_KEY);
  }

  /** A version 4 segment file written through the page cache, as version 3 wrote it: 28-byte commit marks. */
  private static byte[] asVersion3(byte[] v4) {
    ByteBuffer in = ByteBuffer.wrap(v4).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(in.getInt(8)).isEqualTo(4);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteBuffer header = ByteBuffer.allocate(SegmentFormat.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    header.put(v4, 0, SegmentFormat.HEADER_BYTES).putInt(8, 3);
    header.putInt(28, SegmentFormat.crc(header.array(), 0, 28));
    out.writeBytes(header.array());
    int end = v4.length - SegmentFormat.FOOTER_BYTES;
    int marks = 0;
    for (int pos = SegmentFormat.HEADER_BYTES; pos < end; ) {
      int length = in.getInt(pos) == SegmentFormat.PAD_MAGIC ? in.getInt(pos + 4)
          : (int) SegmentFormat.recordBytes(in.getInt(pos + 4), StoreFixture.PAGE_SIZE);
      if (length == SegmentFormat.COMMIT_BYTES && in.getInt(pos + 12) == SegmentFormat.COMMIT_MAGIC) {
        ByteBuffer mark = ByteBuffer.allocate(SegmentFormat.COMMIT_BYTES_V3).order(ByteOrder.LITTLE_ENDIAN);
        mark.put(SegmentFormat.paddingHeader(SegmentFormat.COMMIT_BYTES_V3)).putInt(SegmentFormat.COMMIT_MAGIC)
            .putLong(in.getLong(pos + 16));
        mark.putInt(SegmentFormat.crc(mark.array(), 0, SegmentFormat.COMMIT_BYTES_V3 - 4));
        out.writeBytes(mark.array());
        marks++;
      } else {
        out.write(v4, pos, length);
      }
      pos += length;
    }
    assertThat(marks).as("commit marks rewritten").isPositive();
    out.write(v4, end, SegmentFormat.FOOTER_BYTES);
    return out.toByteArray();
  }
}
