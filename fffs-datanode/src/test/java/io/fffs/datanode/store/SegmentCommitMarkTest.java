package io.fffs.datanode.store;

import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.datanode.store.persist.SegmentFormat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Commit marks tell damage from a torn tail in a segment file its writer never closed: the last entry of a batch
 * that was fsync'd, damaged, is quarantined (not cut as if it had never been written, which would leave its block
 * an entry short, silently); damage whose length cannot be read is skipped to the next valid record, so the
 * DataNode starts and keeps every other block; a batch cut anywhere before its mark is a torn tail and only it is
 * lost.
 */
class SegmentCommitMarkTest {
  @TempDir
  Path dataDir;

  /** Three blocks, one write each, each closed out by its own sync (a batch and its commit mark). */
  private StoreFixture writeThreeBlocks(PersistMode mode) throws Exception {
    StoreFixture fixture = new StoreFixture(dataDir, mode);
    fixture.conf.setBoolean(DataNodeConfigKeys.RECOVERY_QUARANTINE_KEY, true);
    fixture.open();
    for (long block = 1; block <= 3; block++) {
      fixture.store.write(block, 0, bytes(1000, (int) block), WriteOptions.defaults());
      fixture.store.sync(List.of(block));
    }
    fixture.store.close();
    return fixture;
  }

  /** The only segment file, its footer cut off: what a writer that died after its last fsync leaves. */
  private Path openFileLeftBehind() throws Exception {
    List<Path> files = CorruptionTest.segments(dataDir);
    assertThat(files).hasSize(1);
    Path file = files.get(0);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(channel.size() - SegmentFormat.FOOTER_BYTES);
    }
    return file;
  }

  private static long blockIdAt(Path file, CorruptionTest.Record record) throws Exception {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer id = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      channel.read(id, record.offset() + SegmentFormat.bodyOffset(record.pages(), StoreFixture.PAGE_SIZE));
      return id.getLong(0);
    }
  }

  @ParameterizedTest
  @EnumSource(PersistMode.class)
  void theDamagedLastEntryOfAnUnclosedFileIsQuarantinedNotCut(PersistMode mode) throws Exception {
    try (StoreFixture fixture = writeThreeBlocks(mode)) {
      Path file = openFileLeftBehind();
      List<CorruptionTest.Record> records = CorruptionTest.records(file, StoreFixture.PAGE_SIZE);
      CorruptionTest.Record last = records.get(records.size() - 1);
      long block = blockIdAt(file, last);
      CorruptionTest.flip(file, last.offset() + SegmentFormat.PREFIX_BYTES + 3);  // a page byte
      fixture.open();
      assertThat(fixture.store.quarantined()).containsExactly(block);
      for (long other = 1; other <= 3; other++) {
        if (other != block) {
          assertThat(fixture.store.logEntries(other)).hasSize(2);  // its create and its write
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(PersistMode.class)
  void damageOfUnknownLengthIsSkippedToTheNextValidRecord(PersistMode mode) throws Exception {
    try (StoreFixture fixture = writeThreeBlocks(mode)) {
      Path file = CorruptionTest.segments(dataDir).get(0);
      CorruptionTest.Record middle = CorruptionTest.records(file, StoreFixture.PAGE_SIZE).get(1);
      long block = blockIdAt(file, middle);
      CorruptionTest.flip(file, middle.offset());  // its magic: where it ends cannot be read
      fixture.open();
      assertThat(fixture.store.quarantined()).containsExactly(block);
      assertThat(fixture.store.blockReport()).extracting(BlockSummary::blockId).hasSize(2).doesNotContain(block);
      for (long other = 1; other <= 3; other++) {
        if (other != block) {
          assertThat(fixture.store.logEntries(other)).hasSize(2);
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(PersistMode.class)
  void aCutAnywhereInTheLastBatchIsATornTailThatLosesOnlyThatBatch(PersistMode mode) throws Exception {
    try (StoreFixture fixture = writeThreeBlocks(mode)) {
      Path file = openFileLeftBehind();
      byte[] whole = Files.readAllBytes(file);
      List<CorruptionTest.Record> records = CorruptionTest.records(file, StoreFixture.PAGE_SIZE);
      CorruptionTest.Record last = records.get(records.size() - 1);
      long lastBlock = blockIdAt(file, last);
      long markEnd = last.offset() + SegmentFormat.recordBytes(last.pages(), StoreFixture.PAGE_SIZE)
          + SegmentFormat.COMMIT_BYTES;
      List<Long> cuts = new ArrayList<>();
      for (long cut = last.offset() + 1; cut < markEnd; cut += 97) {
        cuts.add(cut);
      }
      cuts.add(markEnd - 1);
      for (long cut : cuts) {
        Files.write(file, java.util.Arrays.copyOf(whole, (int) cut));
        fixture.open();
        assertThat(fixture.store.quarantined()).as("cut at %d", cut).isEmpty();
        // The last batch's write is lost when the cut falls inside it, kept when only its mark is torn.
        assertThat(fixture.store.logEntries(lastBlock)).as("cut at %d", cut)
            .hasSize(cut < markEnd - SegmentFormat.COMMIT_BYTES ? 1 : 2);
        for (long other = 1; other <= 3; other++) {
          if (other != lastBlock) {
            assertThat(fixture.store.logEntries(other)).as("cut at %d", cut).hasSize(2);
          }
        }
        fixture.store.close();
      }
      fixture.store = null;
    }
  }
}
