package io.fffs.datanode.store;

import static io.fffs.datanode.store.StoreFixture.array;
import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.usertime.FixedRecordUserTimeExtractor;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MultiLogBlockStoreTest {
  @TempDir
  Path dataDir;
  StoreFixture fixture;
  BlockStore store;

  @BeforeEach
  void open() throws Exception {
    fixture = new StoreFixture(dataDir).open();
    store = fixture.store;
  }

  @AfterEach
  void close() throws Exception {
    fixture.close();
  }

  private byte[] read(long block, long offset, int length, TimeSpec time) throws FffsException {
    try (ReadView view = store.read(block, offset, length, time)) {
      return view.toBytes();
    }
  }

  private static void assertCode(ThrowingRead call, ErrorCode code, String... fragments) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(code))
        .satisfies(e -> {
          for (String fragment : fragments) {
            assertThat(e.getMessage()).contains(fragment);
          }
        });
  }

  interface ThrowingRead {
    void run() throws Exception;
  }

  @Test
  void firstWriteCreatesTheBlockAndOverwritesExtendAcrossPartialPages() throws Exception {
    ByteBuffer first = bytes(1300, 1);
    WriteResult created = store.write(7, 0, first, WriteOptions.defaults());
    assertThat(created.blockLength()).isEqualTo(1300);
    assertThat(created.logIndex()).isEqualTo(1); // 0 is the create entry

    ByteBuffer second = bytes(900, 2);
    WriteResult overwrite = store.write(7, 1000, second, WriteOptions.defaults());
    assertThat(overwrite.blockLength()).isEqualTo(1900);
    assertThat(overwrite.hlc()).isGreaterThan(created.hlc());

    byte[] expected = new byte[1900];
    System.arraycopy(array(first), 0, expected, 0, 1300);
    System.arraycopy(array(second), 0, expected, 1000, 900);
    assertThat(read(7, 0, 4000, TimeSpec.latest())).isEqualTo(expected);
    assertThat(read(7, 700, 600, TimeSpec.latest())).isEqualTo(java.util.Arrays.copyOfRange(expected, 700, 1300));
    try (ReadView old = store.readAtLogIndex(7, 1, 0, 4000)) {
      assertThat(old.toBytes()).isEqualTo(array(first));
      assertThat(old.blockLength()).isEqualTo(1300);
      assertThat(old.hlc()).isEqualTo(created.hlc());
    }
    assertThat(first.position()).isZero();
  }

  @Test
  void runsAreContiguousFileRegionsThatCarryTheBytes() throws Exception {
    ByteBuffer data = bytes(3000, 3);
    store.write(1, 0, data, WriteOptions.defaults());
    ByteArrayOutputStream sent = new ByteArrayOutputStream();
    try (ReadView view = store.read(1, 100, 2500, TimeSpec.latest());
        WritableByteChannel sink = Channels.newChannel(sent)) {
      assertThat(view.runs()).hasSize(1); // six consecutive pages of one write are one run
      for (ReadView.Run run : view.runs()) {
        assertThat(run.inMemory()).isTrue();
        long done = 0;
        while (done < run.length()) {
          done += run.channel().transferTo(run.position() + done, run.length() - done, sink);
        }
      }
    }
    assertThat(sent.toByteArray()).isEqualTo(java.util.Arrays.copyOfRange(array(data), 100, 2600));
  }

  @Test
  void writesBeyondTheEndOrPastTheBlockSizeAreRefusedAndChangeNothing() throws Exception {
    store.write(2, 0, bytes(100, 1), WriteOptions.defaults());

    assertCode(() -> store.write(2, 101, bytes(10, 2), WriteOptions.defaults()), ErrorCode.WRITE_BEYOND_EOF,
        "offset 101", "block 2", "100 bytes");
    assertCode(() -> store.write(3, 5, bytes(10, 2), WriteOptions.defaults()), ErrorCode.WRITE_BEYOND_EOF,
        "block 3 does not exist", "offset 0");
    assertCode(() -> store.write(2, 90, bytes(20, 2), WriteOptions.defaults().withBlockSize(100)),
        ErrorCode.BLOCK_SIZE_EXCEEDED, "block 2", "110 bytes", "block size of 100");

    BlockInfo info = store.info(2, TimeSpec.latest());
    assertThat(info.length()).isEqualTo(100);
    assertThat(info.logIndex()).isEqualTo(1);
    assertThat(store.info(3, TimeSpec.latest()).exists()).isFalse();
  }

  @Test
  void readsAtSystemTimeSeeExactlyTheEntriesStampedAtOrBeforeIt() throws Exception {
    long t0 = fixture.physical.currentTimeMicros();
    store.write(4, 0, bytes(600, 1), WriteOptions.defaults());
    fixture.physical.advance(1_000);
    long t1 = fixture.physical.currentTimeMicros();
    store.write(4, 600, bytes(600, 2), WriteOptions.defaults());
    store.write(4, 0, bytes(10, 3), WriteOptions.defaults()); // same physical µs, next logical
    fixture.passTime();

    assertThat(store.info(4, TimeSpec.system(t0 - 1)).exists()).isFalse();
    assertThat(store.info(4, TimeSpec.system(t0)).length()).isEqualTo(600);
    assertThat(store.info(4, TimeSpec.system(t1 - 1)).logIndex()).isEqualTo(1);
    assertThat(store.info(4, TimeSpec.system(t1)).logIndex()).isEqualTo(3);
    assertThat(read(4, 0, 600, TimeSpec.system(t0))).isEqualTo(array(bytes(600, 1)));
    assertThat(read(4, 0, 10, TimeSpec.system(t1))).isEqualTo(array(bytes(10, 3)));
    assertCode(() -> read(4, 0, 10, TimeSpec.system(t0 - 1)), ErrorCode.NOT_FOUND, "block 4 does not exist",
        "created later");
  }

  @Test
  void evenAnUnknownBlockIsNotAnsweredForATimeNotYetPassed() {
    // The block could still be created with an HLC at or below that time, so "does not exist" is not final yet.
    long future = fixture.physical.currentTimeMicros() + 10_000_000;
    assertCode(() -> store.info(5, TimeSpec.system(future)), ErrorCode.TIME_IN_FUTURE, "block 5");
  }

  @Test
  void aReadAtAFutureSystemTimeIsTimeInFuture() throws Exception {
    store.write(5, 0, bytes(10, 1), WriteOptions.defaults());
    long future = fixture.physical.currentTimeMicros() + 10_000_000;
    assertCode(() -> read(5, 0, 10, TimeSpec.system(future)), ErrorCode.TIME_IN_FUTURE, "block 5", "10 s");
  }

  @Test
  void truncateAndDeleteKeepThePastReadable() throws Exception {
    store.write(6, 0, bytes(2000, 1), WriteOptions.defaults());
    WriteResult truncated = store.truncate(6, 700);
    assertThat(truncated.blockLength()).isEqualTo(700);
    store.write(6, 700, bytes(100, 2), WriteOptions.defaults());
    WriteResult deleted = store.delete(6);

    assertCode(() -> read(6, 0, 10, TimeSpec.latest()), ErrorCode.NOT_FOUND, "block 6", "was deleted at");
    assertThat(store.info(6, TimeSpec.latest()).exists()).isFalse();
    assertThat(store.info(6, TimeSpec.latest()).hlc()).isEqualTo(deleted.hlc());
    assertThat(store.blockReport()).extracting(BlockSummary::blockId).doesNotContain(6L);
    byte[] expected = new byte[800];
    System.arraycopy(array(bytes(2000, 1)), 0, expected, 0, 700);
    System.arraycopy(array(bytes(100, 2)), 0, expected, 700, 100);
    try (ReadView beforeDelete = store.readAtLogIndex(6, deleted.logIndex() - 1, 0, 5000)) {
      assertThat(beforeDelete.toBytes()).isEqualTo(expected);
    }
    try (ReadView beforeTruncate = store.readAtLogIndex(6, 1, 0, 5000)) {
      assertThat(beforeTruncate.length()).isEqualTo(2000);
    }
    assertCode(() -> store.truncate(6, 0), ErrorCode.NOT_FOUND, "block 6", "deleted");
    assertCode(() -> store.truncate(99, 0), ErrorCode.NOT_FOUND, "block 99", "does not exist");
  }

  @Test
  void aDeletedBlockIsRecreatedByAWriteAtOffsetZero() throws Exception {
    store.write(8, 0, bytes(1000, 1), WriteOptions.defaults());
    store.delete(8);
    WriteResult again = store.write(8, 0, bytes(300, 2), WriteOptions.defaults());

    assertThat(again.logIndex()).isEqualTo(4); // create, write, delete, create, write
    assertThat(read(8, 0, 1000, TimeSpec.latest())).isEqualTo(array(bytes(300, 2)));
  }

  @Test
  void userTimesComeFromTheRecordsAndARegressionChangesNothing() throws Exception {
    WriteOptions options = WriteOptions.defaults().withUserTimeExtractor(FixedRecordUserTimeExtractor.NAME);
    ByteBuffer records = ByteBuffer.allocate(64)
        .put(FixedRecordUserTimeExtractor.record(1_000, (byte) 1))
        .put(FixedRecordUserTimeExtractor.record(2_000, (byte) 2))
        .put(FixedRecordUserTimeExtractor.record(3_000, (byte) 3))
        .put(FixedRecordUserTimeExtractor.record(4_000, (byte) 4))
        .flip();
    store.write(9, 0, records.duplicate().limit(24), options); // record 2 is split across writes
    store.write(9, 24, records.duplicate().position(24).limit(48), options);
    WriteResult before = store.write(9, 48, records.duplicate().position(48), options);

    assertThat(store.info(9, TimeSpec.user(999)).logIndex()).isEqualTo(0); // created, still empty
    assertThat(store.info(9, TimeSpec.user(1_000)).length()).isEqualTo(24);
    assertThat(store.info(9, TimeSpec.user(2_999)).length()).isEqualTo(24);
    assertThat(store.info(9, TimeSpec.user(3_000)).length()).isEqualTo(48);
    assertThat(store.info(9, TimeSpec.user(10_000)).length()).isEqualTo(64);

    ByteBuffer late = ByteBuffer.wrap(FixedRecordUserTimeExtractor.record(3_500, (byte) 5));
    assertCode(() -> store.write(9, 64, late, options), ErrorCode.USER_TIME_REGRESSION, "block 9",
        "1970-01-01T00:00:00.003500Z", "1970-01-01T00:00:00.004000Z");
    BlockInfo after = store.info(9, TimeSpec.latest());
    assertThat(after.logIndex()).isEqualTo(before.logIndex());
    assertThat(after.length()).isEqualTo(64);
    // The refused write left no half record behind: the next record is parsed from its own start.
    store.write(9, 64, ByteBuffer.wrap(FixedRecordUserTimeExtractor.record(5_000, (byte) 6)), options);
    assertThat(store.info(9, TimeSpec.user(4_999)).length()).isEqualTo(64);
    assertThat(store.info(9, TimeSpec.user(5_000)).length()).isEqualTo(80);
  }

  @Test
  void anUnknownExtractorIsAnInvalidArgument() {
    assertCode(() -> store.write(10, 0, bytes(16, 1), WriteOptions.defaults().withUserTimeExtractor("nope")),
        ErrorCode.INVALID_ARGUMENT, "'nope'");
  }

  @Test
  void syncMakesEntriesDurableAndTheFrontierFollows() throws Exception {
    WriteResult a = store.write(11, 0, bytes(5000, 1), WriteOptions.defaults());
    WriteResult b = store.write(12, 0, bytes(700, 2), WriteOptions.defaults());
    store.sync(List.of(11L, 12L));

    assertThat(store.durableFrontier()).isGreaterThanOrEqualTo(b.hlc());
    assertThat(store.durableFrontier()).isGreaterThanOrEqualTo(a.hlc());
    assertThat(store.stats().entriesPersisted.sum()).isEqualTo(4);
    assertThat(store.blockReport()).extracting(BlockSummary::blockId, BlockSummary::length)
        .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(11L, 5000L),
            org.assertj.core.groups.Tuple.tuple(12L, 700L));
  }

  @Test
  void aCleanRestartRecoversEveryBlockAndItsHistory() throws Exception {
    WriteResult w1 = store.write(13, 0, bytes(1500, 1), WriteOptions.defaults());
    store.write(13, 200, bytes(100, 2), WriteOptions.defaults());
    store.delete(13);
    store.write(14, 0, bytes(10, 3), WriteOptions.defaults());
    byte[] latest14 = read(14, 0, 10, TimeSpec.latest());

    store = fixture.restart().store;

    try (ReadView view = store.readAtLogIndex(13, w1.logIndex(), 0, 2000)) {
      assertThat(view.toBytes()).isEqualTo(array(bytes(1500, 1)));
      assertThat(view.hlc()).isEqualTo(w1.hlc());
      assertThat(view.runs()).allSatisfy(run -> assertThat(run.inMemory()).isFalse());
    }
    assertThat(read(14, 0, 10, TimeSpec.latest())).isEqualTo(latest14);
    assertThat(store.info(13, TimeSpec.latest()).exists()).isFalse();
    WriteResult next = store.write(14, 10, bytes(5, 4), WriteOptions.defaults());
    assertThat(next.hlc()).isGreaterThan(w1.hlc());
    assertThat(next.logIndex()).isEqualTo(2);
  }
}
