package io.fffs.datanode.store;

import static io.fffs.datanode.store.CorruptionTest.assertCorrupt;
import static io.fffs.datanode.store.CorruptionTest.flip;
import static io.fffs.datanode.store.CorruptionTest.removeFooter;
import static io.fffs.datanode.store.CorruptionTest.segments;
import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.persist.DirectIo;
import io.fffs.datanode.store.persist.SegmentFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segment files written with O_DIRECT: every batch padded to the alignment with a padding record, which recovery
 * checks and skips; crashes inside a padded batch; damaged padding records; format versions; the mode switch.
 */
class DirectIoSegmentTest {
  private static final int PAGE = 512;

  @TempDir
  Path dataDir;

  @BeforeEach
  void placeDataDir() {
    dataDir = PersistMode.DIRECT.dataDir(dataDir);
  }

  /** A record of a segment file: where it starts, its bytes, and whether it is padding. */
  record Rec(long offset, long bytes, boolean padding) {
    long end() {
      return offset + bytes;
    }
  }

  /** Every record of a segment file (entries and padding), up to the footer or the first thing that is neither. */
  static List<Rec> walk(Path file) throws IOException {
    List<Rec> records = new ArrayList<>();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long pos = SegmentFormat.HEADER_BYTES;
      ByteBuffer prefix = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      while (pos + 8 <= channel.size()) {
        prefix.clear();
        channel.read(prefix, pos);
        long bytes;
        if (prefix.getInt(0) == SegmentFormat.PAD_MAGIC) {
          bytes = prefix.getInt(4);
        } else if (prefix.getInt(0) == SegmentFormat.ENTRY_MAGIC) {
          bytes = SegmentFormat.recordBytes(prefix.getInt(4), PAGE);
        } else {
          break;
        }
        records.add(new Rec(pos, bytes, prefix.getInt(0) == SegmentFormat.PAD_MAGIC));
        pos += bytes;
      }
    }
    return records;
  }

  /** The padding record that ends the batch of the {@code n}-th entry record (0: the create entry). */
  /** The first padding record after entry {@code n} that pads (not its batch's commit mark). */
  static Rec paddingAfterEntry(Path file, int n) throws IOException {
    List<Rec> records = walk(file);
    int at = records.indexOf(records.stream().filter(r -> !r.padding()).toList().get(n));
    while (!records.get(at).padding() || isCommitMark(file, records.get(at))) {
      at++;
    }
    return records.get(at);
  }

  static boolean isCommitMark(Path file, Rec record) throws IOException {
    if (!record.padding() || record.bytes() != SegmentFormat.COMMIT_BYTES) {
      return false;
    }
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer bytes = ByteBuffer.allocate(SegmentFormat.COMMIT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      channel.read(bytes, record.offset());
      return SegmentFormat.isCommitMark(bytes);
    }
  }

  /** The padding records that pad, commit marks left out. */
  private static List<Rec> pads(Path file) throws IOException {
    List<Rec> pads = new java.util.ArrayList<>();
    for (Rec record : walk(file)) {
      if (record.padding() && !isCommitMark(file, record)) {
        pads.add(record);
      }
    }
    return pads;
  }

  private static int headerInt(Path file, int at) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer header = ByteBuffer.allocate(SegmentFormat.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      channel.read(header, 0);
      return header.getInt(at);
    }
  }

  /** Rewrites the header's version (with a matching CRC), as another release would have written it. */
  private static void setVersion(Path file, int version) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer header = ByteBuffer.allocate(SegmentFormat.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      channel.read(header, 0);
      header.putInt(8, version);
      header.putInt(28, SegmentFormat.crc(header.array(), 0, 28));
      channel.write(header.flip(), 0);
    }
  }

  /** Two synced writes of 6000 bytes to block 1 (two batches), then a clean close; returns the segment file. */
  private static Path twoBatches(StoreFixture fixture) throws IOException {
    fixture.store.write(1, 0, bytes(6000, 1), WriteOptions.defaults());
    fixture.store.sync(List.of(1L));
    fixture.store.write(1, 6000, bytes(6000, 2), WriteOptions.defaults());
    fixture.store.sync(List.of(1L));
    fixture.store.close();
    fixture.store = null;
    return segments(fixture.dataDir).get(0);
  }

  private static byte[] expected(int writes) {
    byte[] all = new byte[6000 * writes];
    for (int i = 0; i < writes; i++) {
      System.arraycopy(bytes(6000, i + 1).array(), 0, all, 6000 * i, 6000);
    }
    return all;
  }

  private static void assertBlockOne(StoreFixture fixture, int writes) throws IOException {
    BlockInfo info = fixture.store.info(1, TimeSpec.latest());
    assertThat(info.length()).isEqualTo(6000L * writes);
    try (ReadView view = fixture.store.read(1, 0, 6000 * writes, TimeSpec.latest())) {
      assertThat(view.toBytes()).isEqualTo(expected(writes));
    }
  }

  private static void truncate(Path file, long size) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(size);
    }
  }

  @Test
  void everyBatchIsPaddedToTheAlignmentAndRecoverySkipsThePadding() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, PersistMode.DIRECT).open()) {
      int alignment = fixture.store.stats().persistenceDirectIoAlignment;
      Path file = twoBatches(fixture);

      assertThat(headerInt(file, 8)).as("version").isEqualTo(SegmentFormat.VERSION);
      assertThat(headerInt(file, 24)).as("alignment in the header").isEqualTo(alignment);
      assertThat(java.nio.file.Files.size(file) % alignment).as("the footer ends on the alignment").isZero();
      List<Rec> records = walk(file);
      List<Rec> paddings = pads(file);
      // after the header, batch 1 (create + write; or create alone and then the write), each fsync's commit mark,
      // batch 2, before the footer; how the persistence thread cuts its batches is timing (CI saw 8 pads once)
      assertThat(paddings).hasSizeBetween(6, 8);
      assertThat(records.stream().filter(Rec::padding).count() - paddings.size())
          .as("one commit mark per batch and one after each fsync").isBetween(4L, 6L);
      for (Rec pad : paddings.subList(0, paddings.size() - 1)) {
        assertThat(pad.end() % alignment).as("a batch ends on the alignment: %s", pad).isZero();
        assertThat(pad.bytes()).isBetween((long) SegmentFormat.PAD_MIN_BYTES,
            (long) alignment + SegmentFormat.PAD_MIN_BYTES - 1);
      }
      assertThat(records.stream().filter(r -> !r.padding()).count()).isEqualTo(3);

      fixture.open();
      assertThat(fixture.store.info(1, TimeSpec.latest()).logIndex()).isEqualTo(2);
      assertBlockOne(fixture, 2);
      assertThat(fixture.store.stats().crcFailures.sum()).isZero();
    }
  }

  @Test
  void aCrashThatTearsABatchOnABlockBoundaryKeepsTheBatchesBeforeIt() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, PersistMode.DIRECT).open()) {
      int alignment = fixture.store.stats().persistenceDirectIoAlignment;
      Path file = twoBatches(fixture);
      removeFooter(file);
      Rec second = walk(file).stream().filter(r -> !r.padding()).toList().get(2);
      // O_DIRECT writes whole blocks: the crash left the batch's first blocks and lost the rest.
      long cut = (second.end() - 1) / alignment * alignment;
      assertThat(cut).isGreaterThan(second.offset());
      truncate(file, cut);

      fixture.open();
      assertThat(fixture.store.info(1, TimeSpec.latest()).logIndex()).isEqualTo(1);
      assertBlockOne(fixture, 1);
      assertThat(java.nio.file.Files.size(file)).as("cut at the torn entry and closed with a footer")
          .isEqualTo(second.offset() + SegmentFormat.FOOTER_BYTES);
    }
  }

  @Test
  void aCrashInsideAPaddingRecordKeepsTheWholeBatch() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, PersistMode.DIRECT).open()) {
      Path file = twoBatches(fixture);
      removeFooter(file);
      List<Rec> records = walk(file);
      Rec second = records.stream().filter(r -> !r.padding()).toList().get(2);
      Rec pad = records.get(records.indexOf(second) + 1);
      assertThat(pad.padding()).isTrue();
      truncate(file, pad.offset() + 5); // the padding record cut short: torn, but every entry is whole

      fixture.open();
      assertThat(fixture.store.info(1, TimeSpec.latest()).logIndex()).isEqualTo(2);
      assertBlockOne(fixture, 2);
      assertThat(java.nio.file.Files.size(file)).isEqualTo(pad.offset() + SegmentFormat.FOOTER_BYTES);
    }
  }

  @Test
  void aPaddingRecordFailingItsCrcInAClosedFileIsCorrupt() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, PersistMode.DIRECT).open()) {
      Path file = twoBatches(fixture);
      Rec firstBatchPad = paddingAfterEntry(file, 1);
      flip(file, firstBatchPad.offset() + 9); // inside the CRC

      assertCorrupt(fixture::open, file, firstBatchPad.offset());
      fixture.store = null;
    }
  }

  @Test
  void aNonZeroFillerByteInAPaddingRecordIsCorrupt() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, PersistMode.DIRECT).open()) {
      Path file = twoBatches(fixture);
      Rec firstBatchPad = paddingAfterEntry(file, 1);
      assertThat(firstBatchPad.bytes()).isGreaterThan(SegmentFormat.PAD_MIN_BYTES);
      flip(file, firstBatchPad.end() - 1);

      assertThatThrownBy(fixture::open).isInstanceOfSatisfying(FffsException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT))
          .hasMessageContaining("offset " + firstBatchPad.offset()).hasMessageContaining("non-zero");
      fixture.store = null;
    }
  }

  @Test
  void aDamagedPaddingLengthInAnUnclosedFileIsCorruptNotATornTail() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, PersistMode.DIRECT).open()) {
      Path file = twoBatches(fixture);
      removeFooter(file);
      Rec firstBatchPad = paddingAfterEntry(file, 1);
      flip(file, firstBatchPad.offset() + 5); // the length: the record can no longer say where the next one is

      // The next batch still starts on an alignment boundary, and it is valid: damage, not the end of the file.
      assertCorrupt(fixture::open, file, firstBatchPad.offset());
      fixture.store = null;
    }
  }

  @Test
  void aFileOfAnUnknownFormatVersionIsRefusedAndVersionOneIsStillRead() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir, PersistMode.PAGE_CACHE).open()) {
      Path file = twoBatches(fixture);
      assertThat(headerInt(file, 24)).as("no alignment through the page cache").isZero();
      assertThat(pads(file)).as("through the page cache the only padding records are commit marks").isEmpty();

      setVersion(file, 1); // a version-1 file has this layout but for the commit marks, which every reader skips
      fixture.open();
      assertBlockOne(fixture, 2);
      fixture.store.close();

      setVersion(file, SegmentFormat.VERSION + 1);
      assertThatThrownBy(fixture::open).isInstanceOfSatisfying(FffsException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT))
          .hasMessageContaining(file.toString()).hasMessageContaining("version " + (SegmentFormat.VERSION + 1));
      fixture.store = null;
    }
  }

  @Test
  void whereTheProbeIsRefusedAutoFallsBackToThePageCacheAndTrueRefusesToStart() throws Exception {
    // A "directory" below a regular file: the file system refuses the probe (as tmpfs before Linux 6.6 does).
    Path file = java.nio.file.Files.createFile(dataDir.resolve("not-a-directory"));
    Path refusing = file.resolve("data");
    String key = DataNodeConfigKeys.PERSISTENCE_DIRECT_IO_KEY;
    assertThat(DirectIo.choose(DirectIo.Mode.AUTO, refusing, key)).isZero();
    assertThat(DirectIo.choose(DirectIo.Mode.FALSE, refusing, key)).isZero();
    assertThatThrownBy(() -> DirectIo.choose(DirectIo.Mode.TRUE, refusing, key))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining(refusing.toString()).hasMessageContaining(key).hasMessageContaining("auto or false");
    assertThat(DirectIo.choose(DirectIo.Mode.TRUE, dataDir, key)).isPositive().isEqualTo(
        DirectIo.choose(DirectIo.Mode.AUTO, dataDir, key));
  }

  @Test
  void theModeKeyIsCheckedAndAutoPicksDirectIoOnThisDisk() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir)) {
      fixture.conf.set(DataNodeConfigKeys.PERSISTENCE_DIRECT_IO_KEY, "sometimes");
      assertThatThrownBy(fixture::open).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(DataNodeConfigKeys.PERSISTENCE_DIRECT_IO_KEY).hasMessageContaining("sometimes");
      fixture.conf.set(DataNodeConfigKeys.PERSISTENCE_DIRECT_IO_KEY, "AUTO");
      fixture.open();
      assertThat(fixture.store.stats().persistenceDirectIoAlignment).isPositive();
      fixture.store.write(1, 0, bytes(6000, 1), WriteOptions.defaults());
      fixture.store.sync(List.of(1L));
      assertThat(fixture.store.stats().persistDirectBatches.sum()).isEqualTo(fixture.store.stats().persistBatches
          .sum()).isPositive();
      assertThat(fixture.store.stats().bytesPadded.sum()).isPositive();
    }
  }
}
