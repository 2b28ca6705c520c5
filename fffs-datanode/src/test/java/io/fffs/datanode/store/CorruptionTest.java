package io.fffs.datanode.store;

import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.persist.SegmentFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bytes flipped in segment files are found — at recovery or when an evicted page is reloaded — never served. */
class CorruptionTest {
  @TempDir
  Path dataDir;

  /** The persistence mode of this run; {@link CorruptionPageCacheTest} runs every test again through the page cache. */
  PersistMode mode() {
    return PersistMode.DIRECT;
  }

  @BeforeEach
  void placeDataDir() {
    dataDir = mode().dataDir(dataDir);
  }

  /** Where a record starts in a segment file and how many pages it carries. */
  record Record(long offset, int pages) {}

  /** The entry records of a segment file, padding records skipped. */
  static List<Record> records(Path file, int pageSize) throws IOException {
    List<Record> records = new ArrayList<>();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long pos = SegmentFormat.HEADER_BYTES;
      ByteBuffer prefix = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      while (pos + 8 <= channel.size()) {
        prefix.clear();
        channel.read(prefix, pos);
        if (prefix.getInt(0) == SegmentFormat.PAD_MAGIC) {
          pos += prefix.getInt(4);
          continue;
        }
        if (prefix.getInt(0) != SegmentFormat.ENTRY_MAGIC) {
          break;
        }
        int pages = prefix.getInt(4);
        records.add(new Record(pos, pages));
        pos += SegmentFormat.recordBytes(pages, pageSize);
      }
    }
    return records;
  }

  static List<Path> segments(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> SegmentFormat.fileNumberOf(f) >= 0).sorted().collect(Collectors.toList());
    }
  }

  static void flip(Path file, long offset) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      channel.read(one, offset);
      one.put(0, (byte) ~one.get(0)).rewind();
      channel.write(one, offset);
    }
  }

  static void assertCorrupt(ThrowingCall call, Path file, long offset) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(FffsException.class,
            e -> assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.CORRUPT))
        .hasMessageContaining(file.toString())
        .hasMessageContaining("offset " + offset);
  }

  interface ThrowingCall {
    void run() throws Exception;
  }

  @Test
  void aFlippedPageByteIsCorruptWhenThePageIsReloadedAndOtherPagesStillRead() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, mode()).open()) {
      fixture.store.write(1, 0, bytes(2048, 1), WriteOptions.defaults()); // four 512 B pages
      fixture.restart(); // closes the segment cleanly; after restart every page is on disk only
      Path file = segments(dataDir).get(0);
      Record write = records(file, 512).get(1); // 0 is the create entry
      long pageTwo = write.offset() + SegmentFormat.PREFIX_BYTES + 2 * 512;
      flip(file, pageTwo + 17);

      try (ReadView good = fixture.store.read(1, 0, 1024, TimeSpec.latest())) {
        assertThat(good.toBytes()).isEqualTo(java.util.Arrays.copyOf(bytes(2048, 1).array(), 1024));
      }
      assertCorrupt(() -> fixture.store.read(1, 1000, 100, TimeSpec.latest()), file, pageTwo);
      // A partial overwrite of that page must copy it first, so the write is refused too and changes nothing.
      assertCorrupt(() -> fixture.store.write(1, 1030, bytes(10, 2), WriteOptions.defaults()), file, pageTwo);
      assertThat(fixture.store.info(1, TimeSpec.latest()).logIndex()).isEqualTo(1);
      assertThat(fixture.store.stats().crcFailures.sum()).isEqualTo(2);
    }
  }

  @Test
  void aPageEvictedFromTheArenaIsCheckedWhenItComesBack() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, mode())) {
      fixture.conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, 64 * 512);
      fixture.open();
      fixture.store.write(1, 0, bytes(512, 1), WriteOptions.defaults());
      for (int i = 0; i < 8; i++) { // 8 × 8 pages push the first page out of the 64-page arena
        fixture.store.write(2 + i, 0, bytes(4096, i), WriteOptions.defaults());
      }
      fixture.store.sync(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L));
      fixture.store.write(20, 0, bytes(4096, 20), WriteOptions.defaults());
      assertThat(fixture.store.stats().pagesEvicted.sum()).isPositive();
      Path file = segments(dataDir).get(0);
      long page = records(file, 512).get(1).offset() + SegmentFormat.PREFIX_BYTES;
      flip(file, page + 100);

      assertCorrupt(() -> fixture.store.read(1, 0, 512, TimeSpec.latest()), file, page);
    }
  }

  @Test
  void aFlippedEntryByteInACleanlyClosedFileStopsRecoveryWithFileAndOffset() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, mode()).open()) {
      fixture.store.write(1, 0, bytes(1000, 1), WriteOptions.defaults());
      fixture.store.write(1, 1000, bytes(1000, 2), WriteOptions.defaults());
      fixture.store.close();
      Path file = segments(dataDir).get(0);
      Record last = records(file, 512).get(2);
      flip(file, last.offset() + SegmentFormat.bodyOffset(last.pages(), 512) + 20); // inside the HLC

      assertCorrupt(fixture::open, file, last.offset());
      fixture.store = null;
    }
  }

  @Test
  void aBadRecordInTheFsyncdPartOfAnUnclosedFileIsCorruptNotATornTail() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, mode()).open()) {
      fixture.store.write(1, 0, bytes(1000, 1), WriteOptions.defaults());
      fixture.store.write(1, 1000, bytes(1000, 2), WriteOptions.defaults());
      fixture.store.sync(List.of(1L));  // the commit mark written after the fsync shows the damage was fsync'd
      fixture.store.close();
      Path file = segments(dataDir).get(0);
      removeFooter(file);
      Record middle = records(file, 512).get(1);
      flip(file, middle.offset() + SegmentFormat.PREFIX_BYTES + 3); // a page byte

      assertCorrupt(fixture::open, file, middle.offset());
      fixture.store = null;
    }
  }

  @Test
  void aTornTailIsCutAndEverythingBeforeItRecovers() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, mode()).open()) {
      fixture.store.write(1, 0, bytes(1000, 1), WriteOptions.defaults());
      WriteResult lastKept = fixture.store.write(1, 1000, bytes(1000, 2), WriteOptions.defaults());
      fixture.store.write(1, 2000, bytes(1000, 3), WriteOptions.defaults());
      fixture.store.close();
      Path file = segments(dataDir).get(0);
      removeFooter(file);
      Record torn = records(file, 512).get(3);
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        channel.truncate(torn.offset() + SegmentFormat.recordBytes(torn.pages(), 512) - 3);
      }

      fixture.open();

      BlockInfo info = fixture.store.info(1, TimeSpec.latest());
      assertThat(info.logIndex()).isEqualTo(lastKept.logIndex());
      assertThat(info.length()).isEqualTo(2000);
      assertThat(Files.size(file)).as("cut and closed with a footer")
          .isEqualTo(torn.offset() + SegmentFormat.FOOTER_BYTES);
      try (ReadView view = fixture.store.read(1, 0, 2000, TimeSpec.latest())) {
        byte[] expected = new byte[2000];
        System.arraycopy(bytes(1000, 1).array(), 0, expected, 0, 1000);
        System.arraycopy(bytes(1000, 2).array(), 0, expected, 1000, 1000);
        assertThat(view.toBytes()).isEqualTo(expected);
      }
      fixture.restart(); // the cut file now counts as complete: a second recovery finds the same
      assertThat(fixture.store.info(1, TimeSpec.latest()).logIndex()).isEqualTo(lastKept.logIndex());
    }
  }

  static void removeFooter(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(channel.size() - SegmentFormat.FOOTER_BYTES);
    }
  }
}
