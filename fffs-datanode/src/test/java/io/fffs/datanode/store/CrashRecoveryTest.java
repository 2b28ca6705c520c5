package io.fffs.datanode.store;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Simulated crashes at each named fault hook: the persistence thread stops dead at the hook, the store is abandoned
 * and reopened on the same data directory. Every entry that a returned {@code sync} covered must survive; every
 * surviving block log must be a prefix of what was written; and random temporal reads must match the model cut to
 * the surviving prefixes.
 */
class CrashRecoveryTest {
  /**
   * Where to crash. {@code POWER_LOSS} crashes before an fsync and also drops a random part of the unsynced tail;
   * {@code POWER_LOSS_HOLE} instead zeroes a random range of it and keeps what follows (the kernel wrote back a
   * later batch but not an earlier one).
   */
  enum CrashPoint { AFTER_PAGES_WRITTEN, MID_ENTRY, BEFORE_FSYNC, POWER_LOSS, POWER_LOSS_HOLE }

  @TempDir
  Path dataDir;

  /**
   * The persistence mode of this run; {@link CrashRecoveryPageCacheTest} runs every test again through the page
   * cache.
   */
  PersistMode mode() {
    return PersistMode.DIRECT;
  }

  @BeforeEach
  void placeDataDir() {
    dataDir = mode().dataDir(dataDir);
  }

  @AfterEach
  void removeInjector() {
    StoreFaultInjector.set(null);
  }

  /** Throws at the n-th call of the chosen hook and remembers what it interrupted. */
  static final class Crasher extends StoreFaultInjector {
    final CrashPoint point;
    final int crashAt;
    int calls;
    boolean crashed;
    long tornBlock = -1;
    int tornIndex = -1;
    Path crashedFile;
    final Map<Path, Long> syncedSize = new HashMap<>();

    Crasher(CrashPoint point, int crashAt) {
      this.point = point;
      this.crashAt = crashAt;
    }

    private void maybeCrash(long blockId, int logIndex) throws IOException {
      if (!crashed && ++calls == crashAt) {
        crashed = true;
        tornBlock = blockId;
        tornIndex = logIndex;
        throw new IOException("simulated crash at " + point);
      }
    }

    @Override
    public void afterPagesWritten(long blockId, int logIndex) throws IOException {
      if (point == CrashPoint.AFTER_PAGES_WRITTEN) {
        maybeCrash(blockId, logIndex);
      }
    }

    @Override
    public void midEntry(long blockId, int logIndex) throws IOException {
      if (point == CrashPoint.MID_ENTRY) {
        maybeCrash(blockId, logIndex);
      }
    }

    @Override
    public void beforeFsync(Path segment) throws IOException {
      if (point == CrashPoint.BEFORE_FSYNC || point == CrashPoint.POWER_LOSS
          || point == CrashPoint.POWER_LOSS_HOLE) {
        crashedFile = segment;
        maybeCrash(-1, -1);
        // Not crashing now: everything up to the current size is about to be synced.
        syncedSize.put(segment, Files.size(segment));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(CrashPoint.class)
  void syncedEntriesSurviveACrashAndEverySurvivingStateMatchesTheModel(CrashPoint point) throws Exception {
    boolean perBatch = point == CrashPoint.BEFORE_FSYNC || point == CrashPoint.POWER_LOSS
        || point == CrashPoint.POWER_LOSS_HOLE;
    Crasher crasher = new Crasher(point, perBatch ? 12 : 700);
    try (StoreFixture fixture = new StoreFixture(dataDir, mode())) {
      fixture.open();
      RandomWorkload workload = new RandomWorkload(point.ordinal() * 7919L + 1, fixture.physical);
      Map<Long, Integer> synced = new HashMap<>();
      StoreFaultInjector.set(crasher);
      for (int step = 0; step < 20_000 && workload.step(fixture.store); step++) {
        if (step % 40 == 39 && !syncAll(fixture.store, workload, synced)) {
          break;
        }
      }
      assertThat(crasher.crashed).as("the crash hook fired").isTrue();
      StoreFaultInjector.set(null);
      assertThatWritesAreRefusedAfterTheCrash(fixture.store);
      if (point == CrashPoint.POWER_LOSS) {
        dropUnsyncedTail(crasher, new Random(point.ordinal()));
      }
      if (point == CrashPoint.POWER_LOSS_HOLE) {
        punchUnsyncedHole(crasher, new Random(point.ordinal()));
      }

      fixture.restart();

      int entriesLost = 0;
      for (long block : workload.blocks()) {
        int written = workload.model.log(block).size();
        int recovered = fixture.store.info(block, TimeSpec.latest()).logIndex() + 1;
        assertThat(recovered).as("entries of block " + block + " after recovery").isBetween(
            synced.getOrDefault(block, 0), written);
        if (block == crasher.tornBlock) {
          // Everything before the torn entry was written to the file; the torn entry itself is cut.
          assertThat(recovered).as("block " + block + " cut at its torn entry").isEqualTo(crasher.tornIndex);
        }
        entriesLost += written - recovered;
        workload.model.keep(block, recovered);
        for (int i = 0; i < recovered; i++) {
          assertThat(fixture.store.infoAtLogIndex(block, i).hlc().packed())
              .isEqualTo(workload.model.log(block).get(i).hlc());
        }
      }
      if (point != CrashPoint.BEFORE_FSYNC) {
        assertThat(entriesLost).as("a crash that tears an entry loses it").isPositive();
      }
      fixture.passTime();
      workload.verifyReads(fixture.store, 300);

      // The store takes writes again, stamped after everything recovered.
      long before = fixture.store.durableFrontier().packed();
      WriteResult next = fixture.store.write(999, 0, ByteBuffer.wrap(new byte[100]), WriteOptions.defaults());
      assertThat(next.hlc().packed()).isGreaterThan(before);
      fixture.store.sync(List.of(999L));
      assertThat(fixture.store.durableFrontier()).isEqualTo(next.hlc());
    }
  }

  /** Syncs every block and records how many entries each had; false once the store has failed. */
  private static boolean syncAll(BlockStore store, RandomWorkload workload, Map<Long, Integer> synced)
      throws FffsException {
    List<Long> ids = new ArrayList<>();
    Map<Long, Integer> counts = new HashMap<>();
    for (long block : workload.blocks()) {
      ids.add(block);
      counts.put(block, workload.model.log(block).size());
    }
    try {
      store.sync(ids);
    } catch (FffsException e) {
      assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR);
      return false;
    }
    synced.putAll(counts);
    return true;
  }

  private static void assertThatWritesAreRefusedAfterTheCrash(BlockStore store) throws InterruptedException {
    // The crash is seen by the persistence thread; give it a moment to mark the store failed.
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (System.nanoTime() < deadline) {
      try {
        store.write(12345, 0, ByteBuffer.wrap(new byte[1]), WriteOptions.defaults());
      } catch (FffsException e) {
        assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR);
        assertThat(e.getMessage()).contains("simulated crash");
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("writes were still accepted after the persistence thread crashed");
  }

  /**
   * Power loss: a random part of what was written after the file's last fsync never reached the disk. The cut falls
   * before the end of the last entry record written since that fsync, so it tears at least that entry (a cut in
   * the batch's trailing padding would lose none).
   */
  private void dropUnsyncedTail(Crasher crasher, Random random) throws IOException {
    Path file = crasher.crashedFile;
    long synced = crasher.syncedSize.getOrDefault(file, 0L);
    long entriesEnd = endOfLastEntryRecord(file, Math.max(synced, SegmentFormat.HEADER_BYTES));
    assertThat(entriesEnd).as("an entry record written after the last fsync of " + file).isGreaterThan(synced);
    long keep = synced + (long) (random.nextDouble() * (entriesEnd - synced));
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(keep);
    }
  }

  /**
   * Power loss with writeback out of order: a random range of what was written after the file's last fsync reads as
   * zeros, and everything after it was written. The range starts before the end of the last entry record written
   * since that fsync, so it tears an entry record or the commit mark before one, and recovery must cut there.
   */
  private void punchUnsyncedHole(Crasher crasher, Random random) throws IOException {
    Path file = crasher.crashedFile;
    long synced = Math.max(crasher.syncedSize.getOrDefault(file, 0L), SegmentFormat.HEADER_BYTES);
    long entriesEnd = endOfLastEntryRecord(file, synced);
    assertThat(entriesEnd).as("an entry record written after the last fsync of " + file).isGreaterThan(synced);
    long start = synced + (long) (random.nextDouble() * (entriesEnd - synced));
    int length = (int) Math.min(1 + random.nextInt(4 * StoreFixture.PAGE_SIZE), entriesEnd - start);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer zeros = ByteBuffer.allocate(length);
      while (zeros.hasRemaining()) {
        channel.write(zeros, start + zeros.position());
      }
    }
  }

  /** Where the last entry record of {@code file} from record boundary {@code from} on ends ({@code from} if none). */
  private long endOfLastEntryRecord(Path file, long from) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      long end = from;
      ByteBuffer prefix = ByteBuffer.allocate(SegmentFormat.PREFIX_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      for (long pos = from; pos + SegmentFormat.PREFIX_BYTES <= size; ) {
        prefix.clear();
        while (prefix.hasRemaining()) {
          if (channel.read(prefix, pos + prefix.position()) < 0) {
            throw new IOException("end of " + file + " inside a record prefix at " + pos);
          }
        }
        int magic = prefix.getInt(0);
        if (magic == SegmentFormat.PAD_MAGIC) {
          pos += prefix.getInt(4);
        } else if (magic == SegmentFormat.ENTRY_MAGIC) {
          pos += SegmentFormat.recordBytes(prefix.getInt(4), StoreFixture.PAGE_SIZE);
          end = Math.min(pos, size);
        } else {
          break;
        }
      }
      return end;
    }
  }
}
