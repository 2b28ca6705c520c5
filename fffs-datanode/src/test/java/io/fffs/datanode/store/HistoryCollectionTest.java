package io.fffs.datanode.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.history.RetentionTable;
import io.fffs.datanode.store.persist.SegmentFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Garbage collection of history in the block store: a retention table from the NameNode, the blocks' logs trimmed,
 * the segment cleaner giving disk space back, restarts, and a crash at each step of the cleaner. Reads of kept
 * moments must equal the reference model byte for byte, and reads of others must be refused (HISTORY_EXPIRED).
 */
class HistoryCollectionTest {
  /** Where the cleaner stops dead. */
  enum CleanerCrash { MID_COPY, AFTER_COPY, BEFORE_DELETE }

  private static final long DROPPED_BLOCK = 5;

  @TempDir
  Path dataDir;
  StoreFixture fixture;
  RandomWorkload workload;
  final Random random = new Random(20261126);
  final TreeMap<Long, MomentSet> kept = new TreeMap<>();

  @BeforeEach
  void open() throws Exception {
    fixture = new StoreFixture(dataDir);
    fixture.conf.setLong(DataNodeConfigKeys.SEGMENT_FILE_SIZE_KEY, 64 << 10);
    fixture.conf.setLong(DataNodeConfigKeys.CLEANER_INTERVAL_KEY, 3_600_000);  // passes when the test asks
    fixture.conf.setLong(DataNodeConfigKeys.CLEANER_RATE_KEY, 1L << 30);
    fixture.open();
    workload = new RandomWorkload(77, fixture.physical);
    long start = fixture.physical.currentTimeMicros();
    for (int step = 0; step < 4000; step++) {
      workload.step(fixture.store);
      if (step % 50 == 49) {
        fixture.physical.advance(1_000);
      }
    }
    syncAll();
    fixture.passTime();
    long end = fixture.physical.currentTimeMicros();
    long floor = start + (end - start) * 6 / 10;
    for (long block : workload.blocks()) {
      if (block == DROPPED_BLOCK) {
        continue;
      }
      MomentSet.Builder moments = new MomentSet.Builder().add(floor, MomentSet.END);
      for (int i = 0; i < 3; i++) {
        long point = start + (long) (random.nextDouble() * (floor - start));
        moments.add(point, point + 1);
      }
      kept.put(block, moments.build());
    }
  }

  @AfterEach
  void close() throws Exception {
    StoreFaultInjector.set(null);
    fixture.close();
  }

  private void syncAll() throws FffsException {
    List<Long> ids = new ArrayList<>();
    for (long block : workload.blocks()) {
      ids.add(block);
    }
    fixture.store.sync(ids);
  }

  private RetentionTable table() {
    return new RetentionTable(1, 1_000, Collections.unmodifiableNavigableMap(kept));
  }

  private long diskBytes() throws IOException {
    long bytes = 0;
    for (Path file : SegmentFormat.list(dataDir)) {
      bytes += Files.size(file);
    }
    return bytes;
  }

  @Test
  void keptMomentsReadTheSameBeforeAndAfterCollectionCleaningAndRestarts() throws Exception {
    verify(false);
    long before = diskBytes();
    fixture.store.applyRetention(table());
    assertThat(fixture.store.retentionGeneration()).isEqualTo(1);
    assertThat(fixture.store.stats().blocksCollected.sum()).isEqualTo(1);
    assertThat(fixture.store.stats().entriesCollected.sum()).isGreaterThan(100);
    verify(true);

    // Views opened before the cleaner deletes the files they read from still read them afterwards.
    List<ReadView> views = new ArrayList<>();
    List<byte[]> expected = new ArrayList<>();
    for (var entry : kept.entrySet()) {
      MomentSet moments = entry.getValue();
      for (int i = 0; i + 1 < moments.intervalCount(); i++) {
        long micros = moments.start(i);
        BlockInfo info = fixture.store.info(entry.getKey(), TimeSpec.system(micros));
        if (info.exists() && info.length() > 0) {
          views.add(fixture.store.read(entry.getKey(), 0, (int) info.length(), TimeSpec.system(micros)));
          expected.add(workload.model.stateAt(entry.getKey(), workload.model.indexAtSystem(entry.getKey(), micros)));
        }
      }
    }
    assertThat(views.stream().filter(v -> v.runs().stream().anyMatch(r -> !r.inMemory())).count())
        .as("views reading evicted pages from segment files").isGreaterThan(3);
    assertThat(fixture.store.cleanSegments()).isGreaterThan(0);
    assertThat(fixture.store.stats().cleanerBytesFreed.sum()).isGreaterThan(0);
    for (int i = 0; i < views.size(); i++) {
      assertThat(views.get(i).toBytes()).isEqualTo(expected.get(i));
      views.get(i).close();
    }
    long after = diskBytes();
    assertThat(after).as("disk space came back").isLessThan(before * 3 / 4);
    verify(true);

    fixture.restart();
    assertThat(fixture.store.retentionGeneration()).isEqualTo(1);
    verify(true);

    // A table no newer than the last changes nothing (this one would drop every block); a newer one with the same
    // moments drops nothing more.
    fixture.store.applyRetention(new RetentionTable(1, 1_000, Collections.emptyNavigableMap()));
    verify(true);
    fixture.store.applyRetention(new RetentionTable(2, 1_000, Collections.unmodifiableNavigableMap(kept)));
    assertThat(fixture.store.retentionGeneration()).isEqualTo(2);
    verify(true);
    fixture.restart();
    assertThat(fixture.store.retentionGeneration()).isEqualTo(2);
    verify(true);
  }

  @ParameterizedTest
  @EnumSource(CleanerCrash.class)
  void aCrashAtAnyStepOfTheCleanerLosesNothingKept(CleanerCrash point) throws Exception {
    fixture.store.applyRetention(table());
    verify(true);
    StoreFaultInjector.set(new StoreFaultInjector() {
      @Override
      public void cleanerMidCopy(Path victim) throws IOException {
        crash(CleanerCrash.MID_COPY);
      }

      @Override
      public void cleanerAfterCopy(Path output) throws IOException {
        crash(CleanerCrash.AFTER_COPY);
      }

      @Override
      public void cleanerBeforeDelete(Path victim) throws IOException {
        crash(CleanerCrash.BEFORE_DELETE);
      }

      private void crash(CleanerCrash here) throws IOException {
        if (here == point) {
          throw new IOException("simulated crash at " + here);
        }
      }
    });
    assertThatThrownBy(() -> fixture.store.cleanSegments()).hasMessageContaining("simulated crash at " + point);
    StoreFaultInjector.set(null);
    fixture.restart();
    verify(true);
    assertThat(fixture.store.cleanSegments()).isGreaterThan(0);
    verify(true);
    fixture.restart();
    verify(true);
  }

  /**
   * Reads every block at many moments against the model: the whole block's bytes where the moment is kept (or
   * everything is, before collection), HISTORY_EXPIRED at system times that are not and at user times before the
   * window; the dropped block is gone.
   */
  private void verify(boolean collected) throws Exception {
    fixture.passTime();
    BlockStore store = fixture.store;
    for (long block : workload.blocks()) {
      List<ReferenceModel.Entry> log = workload.model.log(block);
      if (log.isEmpty()) {
        continue;
      }
      if (collected && block == DROPPED_BLOCK) {
        assertThat(store.info(block, TimeSpec.latest()).exists()).isFalse();
        continue;
      }
      MomentSet moments = collected ? kept.get(block) : MomentSet.ALL;
      for (int n = 0; n < 60; n++) {
        ReferenceModel.Entry pick = log.get(random.nextInt(log.size()));
        long micros = HlcTimestamp.valueOf(pick.hlc()).physicalMicros() + random.nextInt(3) - 1;
        if (n % 6 == 0 && moments.intervalCount() > 1) {
          micros = moments.start(random.nextInt(moments.intervalCount() - 1));  // a kept point
        }
        checkSystem(store, block, micros, moments.contains(micros));
        if (block == RandomWorkload.USER_TIME_BLOCK_A || block == RandomWorkload.USER_TIME_BLOCK_B) {
          long user = Math.max(0, pick.userTime() + random.nextInt(3) - 1);
          int index = workload.model.indexAtUser(block, user);
          int window = workload.model.indexAtSystem(block, moments.floor());
          checkUser(store, block, user, index, !collected || window < 0 || index >= window);
        }
      }
    }
  }

  private void checkSystem(BlockStore store, long block, long micros, boolean keptMoment) throws Exception {
    String what = "block " + block + " at system time " + micros;
    if (!keptMoment) {
      assertThatThrownBy(() -> read(store, block, TimeSpec.system(micros))).as(what)
          .satisfies(e -> assertThat(((FffsException) e).code()).isEqualTo(ErrorCode.HISTORY_EXPIRED));
      return;
    }
    byte[] expected = workload.model.stateAt(block, workload.model.indexAtSystem(block, micros));
    assertThat(read(store, block, TimeSpec.system(micros))).as(what).isEqualTo(expected);
  }

  private void checkUser(BlockStore store, long block, long user, int index, boolean readable) throws Exception {
    String what = "block " + block + " at user time " + user;
    if (!readable) {
      assertThatThrownBy(() -> read(store, block, TimeSpec.user(user))).as(what)
          .satisfies(e -> assertThat(((FffsException) e).code()).isEqualTo(ErrorCode.HISTORY_EXPIRED));
      return;
    }
    assertThat(read(store, block, TimeSpec.user(user))).as(what).isEqualTo(workload.model.stateAt(block, index));
  }

  /** The whole block at {@code time}, or null when it did not exist then. */
  private static byte[] read(BlockStore store, long block, TimeSpec time) throws FffsException {
    BlockInfo info = store.info(block, time);
    if (!info.exists()) {
      return null;
    }
    try (ReadView view = store.read(block, 0, (int) info.length(), time)) {
      byte[] bytes = view.toBytes();
      return Arrays.copyOf(bytes, bytes.length);
    }
  }
}
