package io.fffs.datanode.store;

import static io.fffs.datanode.store.StoreFixture.array;
import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeSpec;
import io.fffs.protocol.frame.ChunkChecksums;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.thirdparty.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BlockStore#reserve}: the pages a write will occupy, filled by the caller (as the UCX transport's GET does),
 * checked, then committed or released. 512-byte pages, so every write here spans page boundaries.
 */
class PageReservationTest {
  private static final WriteOptions OPTIONS = WriteOptions.defaults();

  @TempDir
  Path dataDir;
  StoreFixture fixture;

  @AfterEach
  void close() throws Exception {
    if (fixture != null) {
      fixture.close();
    }
  }

  private BlockStore open() throws Exception {
    fixture = new StoreFixture(dataDir).open();
    return fixture.store;
  }

  /** What a transport does: put the bytes into the reserved regions. */
  static void fill(PageReservation reservation, ByteBuffer data) {
    int covered = 0;
    for (PageReservation.Region region : reservation.regions()) {
      assertThat(region.writeOffset()).isEqualTo(covered);
      region.buffer().put(data.duplicate().position(region.writeOffset()).limit(region.writeOffset()
          + region.length()));
      covered += region.length();
    }
    assertThat(covered).isEqualTo(reservation.length());
  }

  private static byte[] read(BlockStore store, long block, TimeSpec time) throws FffsException {
    long length = store.info(block, time).length();
    try (ReadView view = store.read(block, 0, (int) length, time)) {
      return view.toBytes();
    }
  }

  @Test
  void aCommittedReservationIsAWriteLikeAnyOther() throws Exception {
    BlockStore store = open();
    ByteBuffer data = bytes(1300, 1);
    WriteResult result;
    try (PageReservation reservation = store.reserve(7, 0, 1300, OPTIONS)) {
      fill(reservation, data);
      assertThat(array(reservation.bytes())).isEqualTo(array(data));
      result = reservation.commit();
    }
    assertThat(result.blockLength()).isEqualTo(1300);
    assertThat(read(store, 7, TimeSpec.latest())).isEqualTo(array(data));
    assertThat(store.memoryUsage().pagesAllocated()).isEqualTo(3);
    assertThat(store.stats().bytesWritten.sum()).isEqualTo(1300);
  }

  @Test
  void anUnalignedOverwriteKeepsThePreviousBytesAroundItsRange() throws Exception {
    BlockStore store = open();
    ByteBuffer v1 = bytes(2000, 1);
    WriteResult first = store.write(7, 0, v1, OPTIONS);
    ByteBuffer patch = bytes(600, 2); // [700, 1300): the ends of pages 1 and 2 are partly covered
    try (PageReservation reservation = store.reserve(7, 700, 600, OPTIONS)) {
      fill(reservation, patch);
      reservation.commit();
    }
    byte[] expected = array(v1);
    System.arraycopy(array(patch), 0, expected, 700, 600);
    assertThat(read(store, 7, TimeSpec.latest())).isEqualTo(expected);
    try (ReadView old = store.readAtLogIndex(7, first.logIndex(), 0, 2000)) {
      assertThat(old.toBytes()).isEqualTo(array(v1));
    }
  }

  @Test
  void aReservedPageAlreadyHoldsTheBytesBeforeTheWriteInItsFirstPage() throws Exception {
    BlockStore store = open();
    ByteBuffer v1 = bytes(100, 1);
    store.write(7, 0, v1, OPTIONS);
    try (PageReservation reservation = store.reserve(7, 100, 300, OPTIONS)) {
      PageReservation.Region region = reservation.regions().get(0);
      byte[] before = new byte[100];
      region.map().get(region.position() - 100, before);
      assertThat(before).isEqualTo(array(v1)); // copied before the caller fills [100, 400)
      fill(reservation, bytes(300, 3));
      reservation.commit();
    }
    byte[] expected = new byte[400];
    System.arraycopy(array(v1), 0, expected, 0, 100);
    System.arraycopy(array(bytes(300, 3)), 0, expected, 100, 300);
    assertThat(read(store, 7, TimeSpec.latest())).isEqualTo(expected);
  }

  @Test
  void aFailedCrcLeavesNoTraceAndNoLeakedPages() throws Exception {
    BlockStore store = open();
    ByteBuffer v1 = bytes(1000, 1);
    store.write(7, 0, v1, OPTIONS);
    BlockInfo before = store.info(7, TimeSpec.latest());
    long pagesBefore = store.memoryUsage().pagesAllocated();
    ByteBuffer sent = bytes(900, 5);
    ByteString crcs = ChunkChecksums.toWire(ChunkChecksums.of(sent));
    ByteBuffer damaged = ByteBuffer.wrap(array(sent));
    damaged.put(600, (byte) (damaged.get(600) ^ 1)); // one bit flipped on the way

    try (PageReservation reservation = store.reserve(7, 500, 900, OPTIONS)) {
      fill(reservation, damaged);
      assertThat(ChunkChecksums.firstMismatch(reservation.bytes(), crcs)).isEqualTo(1);
      // not committed: closing releases the pages and the block
    }

    BlockInfo after = store.info(7, TimeSpec.latest());
    assertThat(after.logIndex()).isEqualTo(before.logIndex());
    assertThat(after.length()).isEqualTo(1000);
    assertThat(read(store, 7, TimeSpec.latest())).isEqualTo(array(v1));
    assertThat(store.memoryUsage().pagesAllocated()).isEqualTo(pagesBefore);
    assertThat(store.stats().bytesWritten.sum()).isEqualTo(1000);
    // The writer lock is free: a write from another thread goes through, into the pages the reservation had.
    WriteResult next = CompletableFuture.supplyAsync(() -> {
      try {
        return store.write(7, 500, sent, OPTIONS);
      } catch (FffsException e) {
        throw new IllegalStateException(e);
      }
    }).get(10, TimeUnit.SECONDS);
    assertThat(next.logIndex()).isEqualTo(before.logIndex() + 1);
    assertThat(store.memoryUsage().pagesAllocated()).isEqualTo(pagesBefore + 3); // [500, 1400): pages 0-2
  }

  @Test
  void aRefusedReservationReservesNothingAndHoldsNoLock() throws Exception {
    BlockStore store = open();
    store.write(7, 0, bytes(100, 1), OPTIONS);
    long pages = store.memoryUsage().pagesAllocated();
    assertThatThrownBy(() -> store.reserve(7, 200, 10, OPTIONS))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.WRITE_BEYOND_EOF));
    assertThatThrownBy(() -> store.reserve(8, 0, 0, OPTIONS))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    assertThatThrownBy(() -> store.reserve(7, 0, 100, new WriteOptions(64, null)))
        .isInstanceOfSatisfying(FffsException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.BLOCK_SIZE_EXCEEDED));
    assertThat(store.memoryUsage().pagesAllocated()).isEqualTo(pages);
    CompletableFuture.runAsync(() -> {
      try {
        store.write(7, 100, bytes(10, 2), OPTIONS);
      } catch (FffsException e) {
        throw new IllegalStateException(e);
      }
    }).get(10, TimeUnit.SECONDS);
    assertThat(store.info(7, TimeSpec.latest()).length()).isEqualTo(110);
  }

  @Test
  void aReservationIsCommittedOnceAndClosingAfterwardsChangesNothing() throws Exception {
    BlockStore store = open();
    PageReservation reservation = store.reserve(7, 0, 10, OPTIONS);
    fill(reservation, bytes(10, 1));
    reservation.commit();
    assertThatThrownBy(reservation::commit)
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    reservation.close();
    assertThat(store.memoryUsage().pagesAllocated()).isEqualTo(1);
    assertThat(read(store, 7, TimeSpec.latest())).isEqualTo(array(bytes(10, 1)));
  }

  @Test
  void aWriteAcrossAnArenaFileBoundaryHasTwoRegions() throws Exception {
    fixture = new StoreFixture(dataDir);
    fixture.conf.setLong(DataNodeConfigKeys.MEMORY_SEGMENT_SIZE_KEY, 4096); // 8 pages per arena file
    fixture.open();
    BlockStore store = fixture.store;
    store.write(7, 0, bytes(3 * 512, 1), OPTIONS); // slots 0-2
    ByteBuffer data = bytes(3000, 2); // pages 3-8 of the block -> slots 3-8: slot 8 is in the next file
    try (PageReservation reservation = store.reserve(7, 1536, 3000, OPTIONS)) {
      assertThat(reservation.regions()).hasSize(2);
      assertThat(reservation.regions().get(0).channel()).isNotSameAs(reservation.regions().get(1).channel());
      assertThat(reservation.regions().get(1).writeOffset()).isEqualTo(5 * 512);
      fill(reservation, data);
      assertThat(array(reservation.bytes())).isEqualTo(array(data));
      reservation.commit();
    }
    byte[] expected = new byte[1536 + 3000];
    System.arraycopy(array(bytes(3 * 512, 1)), 0, expected, 0, 1536);
    System.arraycopy(array(data), 0, expected, 1536, 3000);
    assertThat(read(store, 7, TimeSpec.latest())).isEqualTo(expected);
  }
}
