package io.fffs.datanode.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.history.RetentionTable;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The moments a copy of a trimmed history took in at its opening ({@code retention.adopted}) hold across restarts:
 * an empty set as much as any other, after a crash between a table's state and its list, and not for a later replica
 * of the same block taken in whole.
 */
class CopiedKeptMomentsTest {
  private static final long COPY = 40;

  @TempDir
  Path dataDir;
  StoreFixture fixture;

  @BeforeEach
  void open() throws Exception {
    fixture = new StoreFixture(dataDir).open();
  }

  @AfterEach
  void close() throws Exception {
    if (fixture.store != null) {
      fixture.close();
    }
  }

  @Test
  void aCopyThatKeepsNoPastMomentStillRefusesThemAfterARestart() throws Exception {
    long written = copy(COPY, MomentSet.NONE);
    assertThat(answer(COPY, written)).isEqualTo("HISTORY_EXPIRED");
    fixture.restart();
    assertThat(answer(COPY, written)).as("after a restart").isEqualTo("HISTORY_EXPIRED");
    assertThat(answer(COPY, Long.MAX_VALUE)).as("the present").isEqualTo("4000");
  }

  @Test
  void aCopysMomentsSurviveACrashBetweenATablesStateAndItsList() throws Exception {
    long written = copy(COPY, MomentSet.from(fixture.physical.currentTimeMicros() + 1_000_000));
    Path list = dataDir.resolve("retention.adopted");
    byte[] before = Files.readAllBytes(list);
    // A table made before the copy's block existed: it decides nothing for it.
    fixture.store.applyRetention(new RetentionTable(1, COPY, Collections.emptyNavigableMap()));
    fixture.store.close();
    Files.write(list, before);  // the list as the crash left it: of no table
    fixture.open();
    assertThat(answer(COPY, written)).isEqualTo("HISTORY_EXPIRED");
  }

  @Test
  void aReplicaTakenInWholeAfterACopyWasDroppedIsNotGivenTheCopysMoments() throws Exception {
    copy(COPY, MomentSet.NONE);
    assertThat(fixture.store.dropReplica(COPY)).isTrue();
    fixture.physical.advance(100);
    fixture.store.write(COPY, 0, StoreFixture.bytes(4000, 9), WriteOptions.defaults());
    fixture.store.sync(List.of(COPY));
    long written = fixture.physical.currentTimeMicros();
    fixture.passTime();
    assertThat(answer(COPY, written)).isEqualTo("4000");
    fixture.restart();
    assertThat(answer(COPY, written)).as("after a restart").isEqualTo("4000");
  }

  @Test
  void aTableThatListsACopyNarrowsItsMomentsAndARestartKeepsThem() throws Exception {
    long early = fixture.physical.currentTimeMicros();
    long written = copy(COPY, MomentSet.from(early));
    assertThat(answer(COPY, written)).isEqualTo("4000");
    TreeMap<Long, MomentSet> kept = new TreeMap<>();
    kept.put(COPY, MomentSet.from(written + 1));
    fixture.store.applyRetention(new RetentionTable(1, COPY + 1, kept));
    assertThat(answer(COPY, written)).isEqualTo("HISTORY_EXPIRED");
    fixture.restart();
    assertThat(answer(COPY, written)).as("after a restart").isEqualTo("HISTORY_EXPIRED");
  }

  /** Makes {@code blockId} a copy keeping {@code kept}: opened so, 4000 bytes written at stamps; returns their µs. */
  private long copy(long blockId, MomentSet kept) throws Exception {
    fixture.store.openReplica(blockId, ReplicaRole.FOLLOWER, 0, kept);
    long create = fixture.clock.now().packed() + 1;
    long entry = create + 1;
    ByteBuffer data = StoreFixture.bytes(4000, 7);
    fixture.store.write(blockId, 0, data, WriteOptions.defaults().withReplica(new ReplicaStamp(entry, create, 0,
        4000, entry)));
    fixture.store.endReplica(blockId, HlcTimestamp.valueOf(entry));
    fixture.store.sync(List.of(blockId));
    fixture.passTime();
    return HlcTimestamp.valueOf(entry).physicalMicros();
  }

  /** The block's length as of {@code micros} (MAX_VALUE: now), or the refusal's code. */
  private String answer(long blockId, long micros) throws Exception {
    fixture.passTime();
    TimeSpec time = micros == Long.MAX_VALUE ? TimeSpec.latest() : TimeSpec.system(micros);
    try (ReadView view = fixture.store.read(blockId, 0, 4000, time)) {
      return Integer.toString(view.length());
    } catch (FffsException e) {
      assertThat(e.code()).isIn(ErrorCode.HISTORY_EXPIRED, ErrorCode.NOT_FOUND);
      return e.code().name();
    }
  }
}
