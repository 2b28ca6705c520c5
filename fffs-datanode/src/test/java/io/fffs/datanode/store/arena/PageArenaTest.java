package io.fffs.datanode.store.arena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.datanode.store.StoreStats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PageArenaTest {
  @TempDir
  Path dir;

  private PageArena arena(int slots, boolean evictable, StoreStats stats) throws FffsException {
    return arena(slots, evictable, stats, TimeUnit.SECONDS.toNanos(1));
  }

  private PageArena arena(int slots, boolean evictable, StoreStats stats, long waitNanos) throws FffsException {
    // Three slots per file, so the arena spans several files.
    return new PageArena(new ArenaFiles(dir, 512, slots, 3 * 512), evictable, waitNanos, stats);
  }

  @Test
  void pagesAreHandedOutInOrderAndTheOldestPersistedOnesAreEvictedFirst() throws Exception {
    StoreStats stats = new StoreStats();
    try (PageArena arena = arena(8, true, stats)) {
      long a = arena.allocate(3);
      long b = arena.allocate(5);
      assertThat(a).isEqualTo(0);
      assertThat(b).isEqualTo(3);
      arena.persisted(a);

      long c = arena.allocate(2); // needs pages 0 and 1 back: the oldest, persisted ones
      assertThat(c).isEqualTo(8);
      assertThat(arena.slot(c)).isEqualTo(0);
      assertThat(stats.pagesEvicted.sum()).isEqualTo(2);
      assertThat(arena.residentPages()).isEqualTo(8);
      try (PageArena.Pin pin = arena.pin()) {
        assertThat(pin.residentFrom()).isEqualTo(2);
      }
    }
  }

  @Test
  void unpersistedPagesStayAndAFullArenaTimesOutWithIoError() throws Exception {
    StoreStats stats = new StoreStats();
    try (PageArena arena = arena(4, true, stats)) {
      arena.allocate(4);
      assertThatThrownBy(() -> arena.allocate(1))
          .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR))
          .hasMessageContaining("stayed full");
      assertThat(stats.backpressureWaits.sum()).isEqualTo(1);
      assertThat(stats.backpressureNanos.sum()).isPositive();
    }
  }

  @Test
  void aPinKeepsItsPagesUntilReleased() throws Exception {
    // The waiter below must outlast any stall of this thread before it closes the pin.
    try (PageArena arena = arena(4, true, new StoreStats(), TimeUnit.SECONDS.toNanos(60))) {
      long first = arena.allocate(2);
      arena.allocate(2);
      arena.persisted(first);
      arena.persisted(2);
      PageArena.Pin pin = arena.pin();
      pin.narrow(1);
      assertThat(arena.pinsForTest()).containsOnlyKeys(1L);

      long next = arena.allocate(1); // evicts page 0, which the narrowed pin no longer holds
      assertThat(next).isEqualTo(4);
      Thread waiter = new Thread(() -> {
        try {
          arena.allocate(1); // needs page 1: waits for the pin
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      waiter.start();
      waiter.join(200);
      assertThat(waiter.isAlive()).as("blocked by the pin").isTrue();
      pin.close();
      waiter.join();
      assertThat(arena.allocatedPages()).isEqualTo(6);
      assertThat(arena.pinsForTest()).isEmpty();
    }
  }

  @Test
  void withoutPersistenceAFullArenaRefusesAtOnceAndAnOversizedWriteIsInvalid() throws Exception {
    try (PageArena arena = arena(4, false, new StoreStats())) {
      assertThatThrownBy(() -> arena.allocate(5))
          .isInstanceOfSatisfying(FffsException.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
      arena.allocate(4);
      assertThatThrownBy(() -> arena.allocate(1))
          .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR))
          .hasMessageContaining("persistence is off");
    }
  }

  @Test
  void anAbandonedRangeIsFreeAgain() throws Exception {
    try (PageArena arena = arena(4, true, new StoreStats())) {
      long first = arena.allocate(4);
      arena.abandon(first);
      assertThat(arena.allocate(4)).isEqualTo(4);
    }
  }

  @Test
  void anArenaLargerThanTheFreeSpaceOfItsFileSystemIsRefusedAtStart() throws Exception {
    int pageSize = 64 << 10;
    long usable = Files.getFileStore(dir).getUsableSpace();
    int slots = (int) (usable / pageSize + (1L << 30) / pageSize);
    assertThatThrownBy(() -> new ArenaFiles(dir, pageSize, slots, 1L << 30))
        .isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains(dir.toString(), "bytes free", "fffs.datanode.memory.capacity",
              "--shm-size");
        });
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left.filter(path -> path.getFileName().toString().startsWith("arena-"))).isEmpty();
    }
    // Nothing was left locked: an arena that fits opens in the same directory.
    try (ArenaFiles files = new ArenaFiles(dir, pageSize, 4, 1L << 30)) {
      assertThat(files.dir()).isEqualTo(dir);
    }
  }
}
