package io.fffs.datanode.store;

import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.persist.SegmentFormat;
import io.fffs.protocol.frame.ChunkChecksums;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A view made to be sent (BlockStore.readForSending) gives evicted pages an earlier read loaded and checked as runs of
 * their segment file, with the chunk CRCs that check computed (CheckedCrcs), instead of reading and checking them
 * again: the CRCs are those of the bytes as checked, so a page damaged on disk since fails the reader's check; pages
 * never checked, reads off a chunk boundary and plain reads are loaded and checked as before.
 */
class SentFromFilesTest {
  private static final int ENTRY = 8 * StoreFixture.PAGE_SIZE;
  private static final int ENTRIES = 8;

  @TempDir
  Path dataDir;

  private static byte[] written(StoreFixture fixture) throws Exception {
    byte[] all = new byte[ENTRY * ENTRIES];
    for (int i = 0; i < ENTRIES; i++) {
      ByteBuffer entry = bytes(ENTRY, i);
      entry.duplicate().get(all, i * ENTRY, ENTRY);
      fixture.store.write(1, (long) i * ENTRY, entry, WriteOptions.defaults());
    }
    fixture.restart();  // every page on disk only
    return all;
  }

  private static int[] crcsOf(ReadView view) throws Exception {
    return ChunkChecksums.of(ByteBuffer.wrap(view.toBytes()));
  }

  @Test
  void pagesAReadCheckedAreSentFromTheirFileWithTheCrcsOfThatCheck() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir).open()) {
      byte[] all = written(fixture);
      StoreStats stats = fixture.store.stats();
      try (ReadView first = fixture.store.readForSending(1, 0, all.length, TimeSpec.latest())) {
        assertThat(first.runs()).allMatch(ReadView.Run::loaded);
        assertThat(first.toBytes()).isEqualTo(all);
      }
      long reads = stats.segmentReads.sum();
      try (ReadView second = fixture.store.readForSending(1, 0, all.length, TimeSpec.latest())) {
        assertThat(second.runs()).allMatch(ReadView.Run::inFile);
        assertThat(second.toBytes()).isEqualTo(all);
        assertThat(second.chunkCrcs()).isEqualTo(crcsOf(second));
      }
      assertThat(stats.segmentReads.sum()).isEqualTo(reads);
      assertThat(stats.pagesSentFromFiles.sum()).isEqualTo(all.length / StoreFixture.PAGE_SIZE);

      // A plain read loads and checks them again; a read off a chunk boundary too.
      try (ReadView plain = fixture.store.read(1, 0, all.length, TimeSpec.latest())) {
        assertThat(plain.runs()).allMatch(ReadView.Run::loaded);
      }
      try (ReadView unaligned = fixture.store.readForSending(1, 100, 3 * ENTRY, TimeSpec.latest())) {
        assertThat(unaligned.runs()).allMatch(ReadView.Run::loaded);
        assertThat(unaligned.toBytes()).isEqualTo(Arrays.copyOfRange(all, 100, 100 + 3 * ENTRY));
        assertThat(unaligned.chunkCrcs()).isEqualTo(crcsOf(unaligned));
      }
      assertThat(stats.segmentReads.sum()).isEqualTo(reads + 2);
    }
  }

  @Test
  void aPageDamagedOnDiskAfterItsCheckFailsTheCrcsItIsSentWith() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir).open()) {
      byte[] all = written(fixture);
      try (ReadView first = fixture.store.readForSending(1, 0, all.length, TimeSpec.latest())) {
        assertThat(first.toBytes()).isEqualTo(all);
      }
      Path file = CorruptionTest.segments(dataDir).get(0);
      List<CorruptionTest.Record> records = CorruptionTest.records(file, StoreFixture.PAGE_SIZE).stream()
          .filter(r -> r.pages() > 0).toList();
      long page = records.get(2).offset() + SegmentFormat.PREFIX_BYTES + 5L * StoreFixture.PAGE_SIZE;
      CorruptionTest.flip(file, page + 7);
      int chunk = (2 * ENTRY + 5 * StoreFixture.PAGE_SIZE) / ChunkChecksums.CHUNK_BYTES;

      try (ReadView sent = fixture.store.readForSending(1, 0, all.length, TimeSpec.latest())) {
        assertThat(sent.runs()).allMatch(ReadView.Run::inFile);
        int[] claimed = sent.chunkCrcs();
        int[] actual = crcsOf(sent);
        assertThat(claimed).isEqualTo(ChunkChecksums.of(ByteBuffer.wrap(all)));
        assertThat(actual[chunk]).isNotEqualTo(claimed[chunk]);  // the reader's check fails there
      }
      // A read that loads the pages still finds the damage itself.
      CorruptionTest.assertCorrupt(() -> fixture.store.read(1, 0, all.length, TimeSpec.latest()), file, page);
    }
  }

  @Test
  void withoutHeapForCheckedCrcsEveryReadLoadsAndChecks() throws Exception {
    StoreFixture unconfigured = new StoreFixture(dataDir);
    unconfigured.conf.setLong(DataNodeConfigKeys.READ_CHECKED_CRCS_KEY, 0);
    try (StoreFixture fixture = unconfigured.open()) {
      byte[] all = written(fixture);
      for (int i = 0; i < 2; i++) {
        try (ReadView view = fixture.store.readForSending(1, 0, all.length, TimeSpec.latest())) {
          assertThat(view.runs()).allMatch(ReadView.Run::loaded);
        }
      }
      assertThat(fixture.store.stats().pagesSentFromFiles.sum()).isZero();
    }
  }

  @Test
  void unsetTheHeapForCheckedCrcsIsASixteenthOfTheJvmsHeapWithinBounds() {
    assertThat(DataNodeConfigKeys.readCheckedCrcsDefault(3L << 30)).isEqualTo(192L << 20);
    assertThat(DataNodeConfigKeys.readCheckedCrcsDefault(256L << 20)).isEqualTo(32L << 20);
    assertThat(DataNodeConfigKeys.readCheckedCrcsDefault(512L << 20)).isEqualTo(32L << 20);
    assertThat(DataNodeConfigKeys.readCheckedCrcsDefault(8L << 30)).isEqualTo(512L << 20);
    assertThat(DataNodeConfigKeys.readCheckedCrcsDefault(16L << 30)).isEqualTo(1L << 30);
    assertThat(DataNodeConfigKeys.readCheckedCrcsDefault(Long.MAX_VALUE)).isEqualTo(1L << 30);
    Configuration conf = new Configuration(false);
    assertThat(DataNodeConfigKeys.readCheckedCrcs(conf))
        .isEqualTo(DataNodeConfigKeys.readCheckedCrcsDefault(Runtime.getRuntime().maxMemory()));
    conf.set(DataNodeConfigKeys.READ_CHECKED_CRCS_KEY, "64m");
    assertThat(DataNodeConfigKeys.readCheckedCrcs(conf)).isEqualTo(64L << 20);
    conf.set(DataNodeConfigKeys.READ_CHECKED_CRCS_KEY, "0");
    assertThat(DataNodeConfigKeys.readCheckedCrcs(conf)).isZero();
  }

  @Test
  void checkedCrcsKeepTheMostRecentlyUsedRecordsWithinTheirBudget() {
    // Three records of 4 pages of 4 chunks.
    CheckedCrcs crcs = new CheckedCrcs(3 * (4 * 16 + 8 + CheckedCrcs.RECORD_OVERHEAD_BYTES), 2048);
    int[] sixteen = new int[16];
    for (long record = 0; record < 3; record++) {
      crcs.keep(record, 4, 0, 4, sixteen);
    }
    int[] dst = new int[4];
    assertThat(crcs.copy(0, 3, dst, 0)).isTrue();  // record 0 is now the most recently used
    crcs.keep(3, 4, 1, 2, new int[] {1, 2, 3, 4, 5, 6, 7, 8});
    assertThat(crcs.records()).isEqualTo(3);
    assertThat(crcs.copy(1, 0, dst, 0)).isFalse();  // the least recently used one went
    assertThat(crcs.copy(0, 0, dst, 0)).isTrue();
    assertThat(crcs.copy(3, 0, dst, 0)).isFalse();  // page 0 of record 3 was never checked
    assertThat(crcs.copy(3, 2, dst, 0)).isTrue();
    assertThat(dst).containsExactly(5, 6, 7, 8);
  }
}
