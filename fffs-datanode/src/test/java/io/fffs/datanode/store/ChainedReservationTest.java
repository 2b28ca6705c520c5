package io.fffs.datanode.store;

import static io.fffs.datanode.store.PageReservationTest.fill;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PageReservation#reserveNext}: the writes of one stream reserved before the earlier ones commit, filled in
 * any order (as the UCX transport's GETs land), committed in order, each its own entry. 512-byte pages.
 */
class ChainedReservationTest {
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

  private static byte[] read(BlockStore store, long block, int logIndex, int length) throws FffsException {
    try (ReadView view = store.readAtLogIndex(block, logIndex, 0, length)) {
      return view.toBytes();
    }
  }

  private static CompletableFuture<WriteResult> writeFromAnotherThread(BlockStore store, long block, long offset,
      ByteBuffer data) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return store.write(block, offset, data, OPTIONS);
      } catch (FffsException e) {
        throw new IllegalStateException(e);
      }
    });
  }

  @Test
  void eachWriteOfAChainIsPersistedWithItsOwnChunkCrcs() throws Exception {
    BlockStore store = open();
    ByteBuffer a = bytes(2048, 4);
    ByteBuffer b = bytes(1536, 5);
    PageReservation first = store.reserve(9, 0, 2048, OPTIONS.withChunkCrcs(ChunkChecksums.of(a)));
    PageReservation second = first.reserveNext(1536, ChunkChecksums.of(b));
    assertThatThrownBy(() -> second.reserveNext(512, new int[2]))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    fill(second, b);
    fill(first, a);
    first.commit();
    second.commit();
    store.sync(java.util.List.of(9L));
    assertThat(fixture.store.stats().pageCrcsDerived.sum()).as("pages, 512 bytes each").isEqualTo(7);

    fixture.restart(); // every page now comes back from disk and is checked against the CRC it was persisted with
    byte[] expected = new byte[3584];
    a.duplicate().get(expected, 0, 2048);
    b.duplicate().get(expected, 2048, 1536);
    assertThat(read(fixture.store, 9, 2, 3584)).isEqualTo(expected);
    assertThat(fixture.store.stats().crcFailures.sum()).isZero();
  }

  @Test
  void aChainFilledOutOfOrderCommitsInOrderAsOneEntryPerWrite() throws Exception {
    BlockStore store = open();
    ByteBuffer a = bytes(1024, 1);
    ByteBuffer b = bytes(512, 2);
    ByteBuffer c = bytes(700, 3);
    PageReservation first = store.reserve(7, 0, 1024, OPTIONS); // creates the block
    PageReservation second = first.reserveNext(512);
    PageReservation third = second.reserveNext(700);
    assertThat(second.offset()).isEqualTo(1024);
    assertThat(third.offset()).isEqualTo(1536);
    fill(third, c);
    fill(first, a);
    fill(second, b);
    WriteResult r1 = first.commit();
    WriteResult r2 = second.commit();
    WriteResult r3 = third.commit();

    assertThat(r1.blockLength()).isEqualTo(1024);
    assertThat(r2.blockLength()).isEqualTo(1536);
    assertThat(r3.blockLength()).isEqualTo(2236);
    assertThat(r2.logIndex()).isEqualTo(r1.logIndex() + 1);
    assertThat(r3.logIndex()).isEqualTo(r2.logIndex() + 1);
    assertThat(r2.hlc()).isGreaterThan(r1.hlc());
    assertThat(r3.hlc()).isGreaterThan(r2.hlc());
    byte[] all = new byte[2236];
    System.arraycopy(array(a), 0, all, 0, 1024);
    System.arraycopy(array(b), 0, all, 1024, 512);
    System.arraycopy(array(c), 0, all, 1536, 700);
    assertThat(read(store, 7, r1.logIndex(), 1024)).isEqualTo(array(a));
    assertThat(read(store, 7, r2.logIndex(), 1536)).isEqualTo(java.util.Arrays.copyOf(all, 1536));
    try (ReadView latest = store.read(7, 0, 2236, TimeSpec.latest())) {
      assertThat(latest.toBytes()).isEqualTo(all);
    }
    assertThat(store.memoryUsage().pagesAllocated()).isEqualTo(2 + 1 + 2);
    assertThat(store.stats().reservationsChained.sum()).isEqualTo(2);
    // The lock went with the last of the chain.
    assertThat(writeFromAnotherThread(store, 7, 2236, bytes(10, 4)).get(10, TimeUnit.SECONDS).blockLength())
        .isEqualTo(2246);
  }

  @Test
  void anOverwriteChainKeepsTheOldBytesAfterItsPartlyCoveredLastPage() throws Exception {
    BlockStore store = open();
    ByteBuffer v1 = bytes(2000, 1);
    WriteResult old = store.write(7, 0, v1, OPTIONS);
    ByteBuffer x = bytes(512, 2); // [512, 1024): page 1 whole
    ByteBuffer y = bytes(300, 3); // [1024, 1324): page 2 partly
    try (PageReservation first = store.reserve(7, 512, 512, OPTIONS); PageReservation next = first.reserveNext(300)) {
      fill(next, y);
      fill(first, x);
      first.commit();
      next.commit();
    }
    byte[] expected = array(v1);
    System.arraycopy(array(x), 0, expected, 512, 512);
    System.arraycopy(array(y), 0, expected, 1024, 300);
    try (ReadView latest = store.read(7, 0, 2000, TimeSpec.latest())) {
      assertThat(latest.toBytes()).isEqualTo(expected);
    }
    assertThat(read(store, 7, old.logIndex(), 2000)).isEqualTo(array(v1));
  }

  @Test
  void aWriteEndingInsideAPageCannotBeFollowedBeforeItCommits() throws Exception {
    BlockStore store = open();
    long pages;
    try (PageReservation first = store.reserve(7, 0, 700, OPTIONS)) {
      pages = store.memoryUsage().pagesAllocated();
      assertThatThrownBy(() -> first.reserveNext(512))
          .isInstanceOfSatisfying(FffsException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED);
            assertThat(e.getMessage()).contains("ends at 700, inside a page");
          });
      assertThat(store.memoryUsage().pagesAllocated()).isEqualTo(pages);
      fill(first, bytes(700, 1));
      assertThat(first.commit().blockLength()).isEqualTo(700);
    }
    assertThat(store.memoryUsage().pagesAllocated()).isEqualTo(pages);
  }

  @Test
  void theBlockSizeLimitCountsTheWritesBeforeInTheChain() throws Exception {
    BlockStore store = open();
    WriteOptions small = new WriteOptions(1024, null);
    try (PageReservation first = store.reserve(7, 0, 512, small)) {
      PageReservation second = first.reserveNext(512);
      long pages = store.memoryUsage().pagesAllocated();
      assertThatThrownBy(() -> second.reserveNext(1))
          .isInstanceOfSatisfying(FffsException.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.BLOCK_SIZE_EXCEEDED));
      assertThat(store.memoryUsage().pagesAllocated()).isEqualTo(pages);
      fill(first, bytes(512, 1));
      fill(second, bytes(512, 2));
      first.commit();
      assertThat(second.commit().blockLength()).isEqualTo(1024);
    }
  }

  @Test
  void whenAnEarlierWriteIsReleasedTheRestCannotCommitAndNothingIsVisible() throws Exception {
    BlockStore store = open();
    store.write(7, 0, bytes(512, 1), OPTIONS);
    BlockInfo before = store.info(7, TimeSpec.latest());
    long pagesBefore = store.memoryUsage().pagesAllocated();
    PageReservation first = store.reserve(7, 512, 512, OPTIONS);
    PageReservation second = first.reserveNext(512);
    fill(second, bytes(512, 3));
    first.close(); // e.g. its CRC failed
    assertThatThrownBy(second::commit)
        .isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("was released");
        });
    second.close();
    assertThat(store.info(7, TimeSpec.latest()).logIndex()).isEqualTo(before.logIndex());
    assertThat(store.info(7, TimeSpec.latest()).length()).isEqualTo(512);
    assertThat(store.memoryUsage().pagesAllocated()).isEqualTo(pagesBefore);
    assertThat(writeFromAnotherThread(store, 7, 512, bytes(20, 5)).get(10, TimeUnit.SECONDS).blockLength())
        .isEqualTo(532);
  }

  @Test
  void otherWritersOfTheBlockWaitUntilTheWholeChainIsDone() throws Exception {
    BlockStore store = open();
    PageReservation first = store.reserve(7, 0, 512, OPTIONS);
    PageReservation second = first.reserveNext(512);
    fill(first, bytes(512, 1));
    fill(second, bytes(512, 2));
    first.commit();
    CompletableFuture<WriteResult> other = new CompletableFuture<>();
    Thread writer = new Thread(() -> {
      try {
        other.complete(store.write(7, 1024, bytes(10, 3), OPTIONS));
      } catch (FffsException | RuntimeException e) {
        other.completeExceptionally(e);
      }
    }, "other-writer");
    writer.start();
    // The other writer needs the block's writer lock, which the open second reservation still holds: once its
    // thread waits, it can only be waiting for that lock (had it written, its write at 1024 would have been
    // refused, as the block's length is 512 until the chain is done).
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (writer.getState() != Thread.State.WAITING && !other.isDone()) {
      assertThat(System.nanoTime()).as("the other writer to wait for the lock").isLessThan(deadline);
      Thread.sleep(1);
    }
    assertThat(other).isNotDone();
    second.commit();
    assertThat(other.get(10, TimeUnit.SECONDS).blockLength()).isEqualTo(1034);
  }
}
