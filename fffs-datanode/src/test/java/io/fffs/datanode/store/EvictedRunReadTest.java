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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads of evicted pages resolve to runs of entry records and read each stretch of a segment file once, with its
 * CRCs (persist.PageRunLoader): a block written in many entries comes back in one read, a past state in one read per
 * run of pages, and a damaged page or stored CRC anywhere in a joined read is CORRUPT, never served.
 */
class EvictedRunReadTest {
  private static final int ENTRY = 8 * StoreFixture.PAGE_SIZE;
  private static final int ENTRIES = 16;

  @TempDir
  Path dataDir;

  @BeforeEach
  void placeDataDir() {
    dataDir = PersistMode.DIRECT.dataDir(dataDir);
  }

  private static byte[] sequential(StoreFixture fixture, long blockId) throws Exception {
    byte[] all = new byte[ENTRY * ENTRIES];
    for (int i = 0; i < ENTRIES; i++) {
      ByteBuffer entry = bytes(ENTRY, i);
      entry.duplicate().get(all, i * ENTRY, ENTRY);
      fixture.store.write(blockId, (long) i * ENTRY, entry, WriteOptions.defaults());
    }
    return all;
  }

  private static byte[] read(StoreFixture fixture, long blockId, long offset, int length, TimeSpec time)
      throws Exception {
    try (ReadView view = fixture.store.read(blockId, offset, length, time)) {
      assertThat(view.runs()).allMatch(ReadView.Run::loaded);
      for (ReadView.Run run : view.runs()) {
        // The chunk CRCs the check computed are those of the bytes the run holds.
        if (run.chunkCrcs() != null) {
          int whole = run.length() / ChunkChecksums.CHUNK_BYTES * ChunkChecksums.CHUNK_BYTES;
          int[] expected = ChunkChecksums.of(run.bytes().limit(whole));
          assertThat(Arrays.copyOfRange(run.chunkCrcs(), run.firstChunk(), run.firstChunk() + expected.length))
              .isEqualTo(expected);
        }
      }
      assertThat(view.runs()).anyMatch(run -> run.chunkCrcs() != null);
      return view.toBytes();
    }
  }

  @Test
  void aBlockWrittenInManyEntriesComesBackInOneSegmentRead() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, PersistMode.DIRECT).open()) {
      byte[] all = sequential(fixture, 1);
      fixture.restart();  // every page on disk only
      StoreStats stats = fixture.store.stats();

      assertThat(read(fixture, 1, 0, all.length, TimeSpec.latest())).isEqualTo(all);
      assertThat(stats.segmentReads.sum()).isEqualTo(1);
      assertThat(stats.pagesReloaded.sum()).isEqualTo(all.length / StoreFixture.PAGE_SIZE);

      // An unaligned range inside: the pages it covers, once more in one read.
      assertThat(read(fixture, 1, 1000, 20_000, TimeSpec.latest()))
          .isEqualTo(Arrays.copyOfRange(all, 1000, 21_000));
      assertThat(stats.segmentReads.sum()).isEqualTo(2);
    }
  }

  @Test
  void aPastStateOfOverwrittenPagesReadsEachRunOfItsOwnEntriesRight() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, PersistMode.DIRECT).open()) {
      byte[] before = sequential(fixture, 1);
      fixture.passTime();
      long then = fixture.physical.currentTimeMicros();
      fixture.physical.advance(1_000);
      byte[] after = before.clone();
      for (int i = 0; i < ENTRIES; i += 4) {  // every fourth entry's second half, overwritten
        int at = i * ENTRY + ENTRY / 2;
        ByteBuffer over = bytes(ENTRY / 2, 100 + i);
        over.duplicate().get(after, at, ENTRY / 2);
        fixture.store.write(1, at, over, WriteOptions.defaults());
      }
      fixture.passTime();
      fixture.restart();
      StoreStats stats = fixture.store.stats();

      assertThat(read(fixture, 1, 0, before.length, TimeSpec.system(then))).isEqualTo(before);
      assertThat(stats.segmentReads.sum()).isEqualTo(1);
      assertThat(read(fixture, 1, 0, after.length, TimeSpec.latest())).isEqualTo(after);
      // The latest state is runs of the first writes with the overwrites between: a read per stretch of the file,
      // far fewer than one per page.
      assertThat(stats.segmentReads.sum() - 1).isBetween(1L, 2L * ENTRIES / 4);
    }
  }

  @Test
  void aDamagedPageOrStoredCrcInsideAJoinedReadIsCorrupt() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, PersistMode.DIRECT).open()) {
      byte[] all = sequential(fixture, 1);
      fixture.store.write(2, 0, bytes(ENTRY, 50), WriteOptions.defaults());
      fixture.restart();
      Path file = CorruptionTest.segments(dataDir).get(0);
      List<CorruptionTest.Record> records = CorruptionTest.records(file, StoreFixture.PAGE_SIZE).stream()
          .filter(r -> r.pages() > 0).toList();
      CorruptionTest.Record tenth = records.get(10);  // block 1's eleventh write
      long page = tenth.offset() + SegmentFormat.PREFIX_BYTES + 3L * StoreFixture.PAGE_SIZE;
      CorruptionTest.flip(file, page + 5);
      CorruptionTest.assertCorrupt(() -> fixture.store.read(1, 0, all.length, TimeSpec.latest()), file, page);

      CorruptionTest.flip(file, page + 5);  // healed; now the CRC stored for the same page is wrong
      assertThat(read(fixture, 1, 0, all.length, TimeSpec.latest())).isEqualTo(all);
      long crc = tenth.offset() + SegmentFormat.pageCrcOffset(3, tenth.pages(), StoreFixture.PAGE_SIZE);
      CorruptionTest.flip(file, crc);
      CorruptionTest.assertCorrupt(() -> fixture.store.read(1, 0, all.length, TimeSpec.latest()), file, page);
      // Pages outside the damaged one, and the other block, still read.
      assertThat(read(fixture, 1, 0, 10 * ENTRY, TimeSpec.latest())).isEqualTo(Arrays.copyOf(all, 10 * ENTRY));
      assertThat(read(fixture, 2, 0, ENTRY, TimeSpec.latest())).isEqualTo(bytes(ENTRY, 50).array());
    }
  }
}
