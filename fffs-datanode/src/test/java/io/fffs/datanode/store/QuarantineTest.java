package io.fffs.datanode.store;

import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.persist.QuarantineFile;
import io.fffs.datanode.store.persist.SegmentFormat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DataNode whose segment files hold a damaged record starts anyway: recovery skips the record, quarantines the
 * blocks it touches (the one it names, and any whose log then shows a gap), keeps serving every other block with
 * its whole history, and remembers the quarantine across restarts until the replica is dropped.
 */
class QuarantineTest {
  @TempDir
  Path dataDir;

  /** A record's place in a segment file and the block entry it holds. */
  private record Located(Path file, long offset, long blockId, int logIndex) {}

  @Test
  void aDamagedRecordQuarantinesOnlyTheBlocksItTouches() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir)) {
      fixture.conf.setBoolean(DataNodeConfigKeys.RECOVERY_QUARANTINE_KEY, true);
      fixture.open();
      for (long block = 1; block <= 3; block++) {
        fixture.store.write(block, 0, bytes(1000, (int) block), WriteOptions.defaults());
      }
      for (long block = 1; block <= 3; block++) {
        fixture.store.write(block, 500, bytes(1000, 10 + (int) block), WriteOptions.defaults());
        fixture.store.write(block, 1500, bytes(700, 20 + (int) block), WriteOptions.defaults());
      }
      List<List<LogEntry>> logs = new ArrayList<>();
      for (long block = 1; block <= 3; block++) {
        logs.add(fixture.store.logEntries(block));
      }
      fixture.store.close();

      // Entry 2 of block 2 (its first overwrite): a flipped byte in the block id the record names, so the record
      // fails its CRC and names no block to trust; block 2's next entry then shows the gap.
      Located damaged = find(dataDir, 2, 2);
      CorruptionTest.flip(damaged.file(), damaged.offset() + bodyOffsetOf(damaged) + 1);
      fixture.open();

      assertThat(fixture.store.quarantined()).contains(2L).doesNotContain(1L, 3L);
      assertThat(QuarantineFile.read(dataDir)).isEqualTo(fixture.store.quarantined());
      assertThat(fixture.store.blockReport()).extracting(BlockSummary::blockId).containsExactlyInAnyOrder(1L, 3L);
      assertThatThrownBy(() -> fixture.store.read(2, 0, 100, TimeSpec.latest()))
          .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
      for (long block : new long[] {1, 3}) {
        assertThat(fixture.store.logEntries(block)).as("block %d keeps its whole history", block)
            .isEqualTo(logs.get((int) block - 1));
        try (ReadView view = fixture.store.readAtLogIndex(block, 1, 0, 1000)) {
          assertThat(view.toBytes()).isEqualTo(bytes(1000, (int) block).array());
        }
      }

      fixture.restart();
      assertThat(fixture.store.quarantined()).as("remembered across a restart").contains(2L);
      assertThat(fixture.store.blockReport()).extracting(BlockSummary::blockId).containsExactlyInAnyOrder(1L, 3L);

      assertThat(fixture.store.dropReplica(2)).isTrue();
      assertThat(fixture.store.quarantined()).doesNotContain(2L);
      assertThat(QuarantineFile.read(dataDir)).doesNotContain(2L);

      // Taken in again (re-replicated back here) while the damaged records are still on disk: a restart keeps the
      // new replica, not the damage.
      fixture.store.write(2, 0, bytes(900, 77), WriteOptions.defaults());
      fixture.store.sync(List.of(2L));
      fixture.restart();
      assertThat(fixture.store.quarantined()).doesNotContain(2L);
      try (ReadView view = fixture.store.read(2, 0, 900, TimeSpec.latest())) {
        assertThat(view.toBytes()).isEqualTo(bytes(900, 77).array());
      }
      assertThat(fixture.store.logEntries(2)).as("the new replica's CREATE and write").hasSize(2);
    }
  }

  @Test
  void withQuarantineOffTheSameDamageStopsRecovery() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir).open()) {
      fixture.store.write(2, 0, bytes(1000, 1), WriteOptions.defaults());
      fixture.store.write(2, 500, bytes(1000, 2), WriteOptions.defaults());
      fixture.store.write(2, 1500, bytes(700, 3), WriteOptions.defaults());
      fixture.store.close();
      Located damaged = find(dataDir, 2, 2);
      CorruptionTest.flip(damaged.file(), damaged.offset() + bodyOffsetOf(damaged) + 1);
      assertThatThrownBy(fixture::open).isInstanceOfSatisfying(FffsException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT));
      fixture.store = null;
    }
  }

  private static long bodyOffsetOf(Located record) throws Exception {
    return SegmentFormat.bodyOffset(pagesAt(record.file(), record.offset()), StoreFixture.PAGE_SIZE);
  }

  private static int pagesAt(Path file, long offset) throws Exception {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer prefix = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      channel.read(prefix, offset);
      return prefix.getInt(4);
    }
  }

  /** The record of entry {@code logIndex} of {@code blockId} in the segment files. */
  private static Located find(Path dir, long blockId, int logIndex) throws Exception {
    for (Path file : CorruptionTest.segments(dir)) {
      for (CorruptionTest.Record record : CorruptionTest.records(file, StoreFixture.PAGE_SIZE)) {
        long body = record.offset() + SegmentFormat.bodyOffset(record.pages(), StoreFixture.PAGE_SIZE);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
          ByteBuffer fields = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
          channel.read(fields, body);
          if (fields.getLong(0) == blockId && fields.getInt(8) == logIndex) {
            return new Located(file, record.offset(), blockId, logIndex);
          }
        }
      }
    }
    throw new AssertionError("no record of entry " + logIndex + " of block " + blockId + " in " + dir);
  }
}
