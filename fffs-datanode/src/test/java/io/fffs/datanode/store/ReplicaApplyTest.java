package io.fffs.datanode.store;

import static io.fffs.datanode.store.StoreFixture.array;
import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.TimeSpec;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower store (B) applies the entries of a primary store (A) at A's stamps: the same log, index by index; the
 * refusals of entries that do not continue B's log; and which system times B answers while it follows.
 */
class ReplicaApplyTest {
  private static final long BLOCK = 42;
  /** B's clock is this far ahead of A's. */
  private static final long B_AHEAD_MICROS = 100_000;

  @TempDir
  Path dirA;
  @TempDir
  Path dirB;
  StoreFixture a;
  StoreFixture b;

  @BeforeEach
  void open() throws Exception {
    a = new StoreFixture(dirA).open();
    b = new StoreFixture(dirB);
    b.physical.set(StoreFixture.START_MICROS + B_AHEAD_MICROS);
    b.clock = new HybridLogicalClock(b.physical, 5_000);  // a short max offset: refusals come quickly
    b.open();
  }

  @AfterEach
  void close() throws Exception {
    a.close();
    b.close();
  }

  /** A's answer to a write turned into the stamps B applies it at (the frontier: A's clock right after it). */
  private ReplicaStamp stampOf(WriteResult result) {
    return new ReplicaStamp(result.hlc().packed(), result.createHlc(), result.userTime(), result.blockLength(),
        a.clock.now().packed());
  }

  private void writeBoth(long offset, ByteBuffer data) throws FffsException {
    WriteResult onA = a.store.write(BLOCK, offset, data, WriteOptions.defaults());
    b.store.write(BLOCK, offset, data, WriteOptions.defaults().withReplica(stampOf(onA)));
  }

  private void assertSameLogs() throws FffsException {
    int index = 0;
    while (true) {
      BlockInfo onA;
      try {
        onA = a.store.infoAtLogIndex(BLOCK, index);
      } catch (FffsException e) {
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        int end = index;
        assertThatThrownBy(() -> b.store.infoAtLogIndex(BLOCK, end)).as("B has no entry past A's last")
            .isInstanceOf(FffsException.class);
        break;
      }
      BlockInfo onB = b.store.infoAtLogIndex(BLOCK, index);
      assertThat(onB).as("entry %d", index).isEqualTo(onA);
      if (onA.exists() && onA.length() > 0) {
        int length = (int) onA.length();
        try (ReadView viewA = a.store.readAtLogIndex(BLOCK, index, 0, length);
            ReadView viewB = b.store.readAtLogIndex(BLOCK, index, 0, length)) {
          assertThat(viewB.toBytes()).as("bytes of entry %d", index).isEqualTo(viewA.toBytes());
        }
      }
      index++;
    }
    assertThat(b.store.blockReport()).as("the same blocks, lengths and last entries (the standings differ)")
        .extracting(BlockSummary::blockId, BlockSummary::length, BlockSummary::lastHlc)
        .isEqualTo(a.store.blockReport().stream().map(r -> org.assertj.core.groups.Tuple.tuple(r.blockId(),
            r.length(), r.lastHlc())).toList());
  }

  @Test
  void randomWritesAndATruncateAppliedAtThePrimarysStampsGiveTheSameLog() throws Exception {
    b.store.openReplica(BLOCK, ReplicaRole.FOLLOWER);
    Random random = new Random(29);
    long length = 0;
    for (int i = 0; i < 30; i++) {
      a.physical.advance(1 + random.nextInt(50));
      long offset = length == 0 ? 0 : random.nextInt((int) length + 1);
      int count = 1 + random.nextInt(3000);
      writeBoth(offset, bytes(count, i));
      length = Math.max(length, offset + count);
    }
    WriteResult cut = a.store.truncate(BLOCK, length / 2);
    b.store.truncate(BLOCK, length / 2, stampOf(cut));
    writeBoth(length / 2, bytes(700, 99));
    assertSameLogs();

    b.store.sync(List.of(BLOCK));
    b.restart();
    assertSameLogs();
  }

  @Test
  void anEntryThatDoesNotContinueTheLogIsRefusedAndChangesNothing() throws Exception {
    ByteBuffer data = bytes(100, 1);
    WriteResult first = a.store.write(BLOCK, 0, data, WriteOptions.defaults());
    ReplicaStamp good = stampOf(first);
    expectStale(() -> b.store.write(BLOCK, 0, data, WriteOptions.defaults().withReplica(good)),
        "not following");
    b.store.openReplica(BLOCK, ReplicaRole.FOLLOWER);
    expectStale(() -> b.store.write(BLOCK, 0, data, WriteOptions.defaults().withReplica(
        new ReplicaStamp(good.entryHlc(), 0, 0, 100, good.frontierHlc()))), "does not exist here");
    expectStale(() -> b.store.write(BLOCK, 0, data, WriteOptions.defaults().withReplica(
        new ReplicaStamp(good.entryHlc(), good.createHlc(), 0, 99, good.frontierHlc()))), "99 on the primary");
    assertThat(b.store.blockReport()).isEmpty();
    b.store.write(BLOCK, 0, data, WriteOptions.defaults().withReplica(good));

    WriteResult second = a.store.write(BLOCK, 100, data, WriteOptions.defaults());
    ReplicaStamp next = stampOf(second);
    expectStale(() -> b.store.write(BLOCK, 100, data, WriteOptions.defaults().withReplica(
        new ReplicaStamp(next.entryHlc(), next.entryHlc() - 1, 0, 200, next.frontierHlc()))), "already exists");
    expectStale(() -> b.store.write(BLOCK, 100, data, WriteOptions.defaults().withReplica(
        new ReplicaStamp(good.entryHlc(), 0, 0, 200, next.frontierHlc()))), "not above its last entry");
    expectStale(() -> b.store.write(BLOCK, 100, data, WriteOptions.defaults()), "following another DataNode");
    expectStale(() -> b.store.truncate(BLOCK, 10), "following another DataNode");
    assertThat(b.store.blockReport()).extracting(BlockSummary::blockId, BlockSummary::length, BlockSummary::lastHlc)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(BLOCK, 100L, first.hlc()));
    assertThat(b.store.blockReport().get(0).followerFrontier()).as("reported as a follower, at least at the frontier"
        + " the primary sent").isGreaterThanOrEqualTo(good.frontierHlc());
  }

  private static void expectStale(ThrowingCallable call, String why) {
    assertThatThrownBy(call).isInstanceOfSatisfying(FffsException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.REPLICA_STALE);
      assertThat(e.detail()).contains(why);
    });
  }

  @Test
  void aFollowerAnswersSystemTimesUpToItsFrontierThenByItsOwnClockAfterTheEnd() throws Exception {
    HlcTimestamp open = b.store.openReplica(BLOCK, ReplicaRole.FOLLOWER);
    a.clock.observe(open);  // what the client passes on to the primary with its first write
    a.physical.set(open.physicalMicros() + 500);
    WriteResult written = a.store.write(BLOCK, 0, bytes(600, 3), WriteOptions.defaults());
    a.physical.advance(10);  // the frontier is A's clock a little after the entry
    ReplicaStamp stamp = stampOf(written);
    b.store.write(BLOCK, 0, bytes(600, 3), WriteOptions.defaults().withReplica(stamp));
    long frontierMicros = HlcTimestamp.valueOf(stamp.frontierHlc()).physicalMicros();
    assertThat(frontierMicros).isGreaterThan(written.hlc().physicalMicros());
    b.physical.set(frontierMicros + 1_000);  // B's own clock is past every time asked below

    assertThat(b.store.info(BLOCK, TimeSpec.system(frontierMicros - 1)).hlc()).isEqualTo(written.hlc());
    assertThatThrownBy(() -> b.store.info(BLOCK, TimeSpec.system(frontierMicros)))
        .as("B's own clock is past this, but an entry stamped at it may still be on its way")
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.REPLICA_STALE));
    assertThat(b.store.info(BLOCK, TimeSpec.latest()).length()).isEqualTo(600);

    b.store.endReplica(BLOCK, HlcTimestamp.valueOf(stamp.frontierHlc()));
    assertThat(b.store.info(BLOCK, TimeSpec.system(frontierMicros)).hlc()).isEqualTo(written.hlc());
    assertThat(b.clock.last().packed()).isGreaterThanOrEqualTo(stamp.frontierHlc());
  }

  @Test
  void aClosedFilesFollowerIsEndedOnlyAtItsEpochAndLastEntry() throws Exception {
    HlcTimestamp open = b.store.openReplica(BLOCK, ReplicaRole.FOLLOWER, 100);
    a.clock.observe(open);
    a.physical.set(open.physicalMicros() + 500);
    WriteResult written = a.store.write(BLOCK, 0, bytes(300, 7), WriteOptions.defaults());
    a.physical.advance(10);
    ReplicaStamp stamp = stampOf(written);
    b.store.write(BLOCK, 0, bytes(300, 7), WriteOptions.defaults().withReplica(stamp));
    long last = written.hlc().packed();
    long frontierMicros = HlcTimestamp.valueOf(stamp.frontierHlc()).physicalMicros();
    b.physical.set(frontierMicros + 1_000);
    assertThatThrownBy(() -> b.store.info(BLOCK, TimeSpec.system(frontierMicros)))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.REPLICA_STALE));

    assertThat(b.store.endClosedReplica(BLOCK, last - 1, 100)).as("another last entry").isFalse();
    assertThat(b.store.endClosedReplica(BLOCK, last, 99)).as("another pipeline").isFalse();
    assertThat(b.store.endClosedReplica(BLOCK + 1, last, 100)).as("a block not here").isFalse();
    assertThatThrownBy(() -> b.store.info(BLOCK, TimeSpec.system(frontierMicros))).as("still following")
        .isInstanceOf(FffsException.class);

    assertThat(b.store.endClosedReplica(BLOCK, last, 100)).isTrue();
    assertThat(b.store.info(BLOCK, TimeSpec.system(frontierMicros)).hlc()).isEqualTo(written.hlc());
    assertThat(b.store.blockReport().get(0).followerFrontier()).isEqualTo(io.fffs.datanode.store.log.Block
        .NOT_FOLLOWING);
    assertThat(b.store.endClosedReplica(BLOCK, last, 100)).as("ended already").isFalse();

    // A replica left out (STALE) that nonetheless holds the last entry misses nothing either.
    b.store.openReplica(BLOCK, ReplicaRole.STALE, 200);
    assertThatThrownBy(() -> b.store.info(BLOCK, TimeSpec.latest())).isInstanceOf(FffsException.class);
    assertThat(b.store.endClosedReplica(BLOCK, last, 200)).isTrue();
    assertThat(b.store.info(BLOCK, TimeSpec.latest()).length()).isEqualTo(300);
  }

  @Test
  void aPipelineOfALowerEpochIsRefusedOnceANewerOneOpenedTheBlock() throws Exception {
    b.store.openReplica(BLOCK, ReplicaRole.FOLLOWER, 100);
    writeBoth(0, bytes(100, 6));
    b.store.openReplica(BLOCK, ReplicaRole.FOLLOWER, 200);
    int entries = b.store.logEntries(BLOCK).size();
    assertThatThrownBy(() -> b.store.openReplica(BLOCK, ReplicaRole.FOLLOWER, 150))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.REPLICA_STALE));
    assertThatThrownBy(() -> b.store.checkPipelineEpoch(BLOCK, 100))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.REPLICA_STALE));
    b.store.checkPipelineEpoch(BLOCK, 200);
    b.store.checkPipelineEpoch(BLOCK, 0);  // unchecked: replication 1 and older clients
    assertThat(b.store.logEntries(BLOCK)).hasSize(entries);
    b.store.openReplica(BLOCK, ReplicaRole.FOLLOWER, 300);
  }

  @Test
  void aBlocksPipelineEpochSurvivesARestart() throws Exception {
    b.store.openReplica(BLOCK, ReplicaRole.FOLLOWER, 100);
    writeBoth(0, bytes(100, 6));
    b.store.openReplica(BLOCK, ReplicaRole.FOLLOWER, 200);
    b.store.endReplica(BLOCK, a.clock.now());
    b.store.sync(List.of(BLOCK));
    b.restart();
    assertThatThrownBy(() -> b.store.openReplica(BLOCK, ReplicaRole.FOLLOWER, 150))
        .as("the older pipeline's writer is still refused").isInstanceOfSatisfying(FffsException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.REPLICA_STALE));
    assertThatThrownBy(() -> b.store.checkPipelineEpoch(BLOCK, 100)).isInstanceOf(FffsException.class);
    b.store.checkPipelineEpoch(BLOCK, 200);
    b.store.openReplica(BLOCK, ReplicaRole.FOLLOWER, 300);
    b.restart();
    assertThatThrownBy(() -> b.store.checkPipelineEpoch(BLOCK, 200)).as("the newest epoch, after a second restart")
        .isInstanceOf(FffsException.class);
    // A torn record at the tail (a crash while recording an open that was never answered) is ignored.
    b.close();
    java.nio.file.Files.write(b.dataDir.resolve(io.fffs.datanode.store.persist.PipelineEpochFile.NAME),
        new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.APPEND);
    b.open();
    b.store.checkPipelineEpoch(BLOCK, 300);
    assertThatThrownBy(() -> b.store.checkPipelineEpoch(BLOCK, 299)).isInstanceOf(FffsException.class);
  }

  @Test
  void aStaleReplicaAnswersOnlyUpToItsLastEntry() throws Exception {
    b.store.openReplica(BLOCK, ReplicaRole.FOLLOWER);
    WriteResult written = a.store.write(BLOCK, 0, bytes(100, 4), WriteOptions.defaults());
    b.store.write(BLOCK, 0, bytes(100, 4), WriteOptions.defaults().withReplica(stampOf(written)));
    b.store.openReplica(BLOCK, ReplicaRole.STALE);

    long lastMicros = written.hlc().physicalMicros();
    assertThat(b.store.info(BLOCK, TimeSpec.system(lastMicros - 1)).exists()).isFalse();
    assertThatThrownBy(() -> b.store.info(BLOCK, TimeSpec.latest()))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.REPLICA_STALE));
    assertThatThrownBy(() -> b.store.read(BLOCK, 0, 10, TimeSpec.user(1)))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.REPLICA_STALE));
    b.store.openReplica(BLOCK, ReplicaRole.PRIMARY);
    assertThat(b.store.info(BLOCK, TimeSpec.latest()).length()).isEqualTo(100);
  }

  @Test
  void foreignStampsBelowTheFollowersOwnTicksBecomeDurable() throws Exception {
    long own = 7;
    WriteResult mine = b.store.write(own, 0, bytes(100, 5), WriteOptions.defaults());
    b.store.openReplica(BLOCK, ReplicaRole.FOLLOWER);
    WriteResult onA = a.store.write(BLOCK, 0, bytes(100, 6), WriteOptions.defaults());
    assertThat(onA.hlc()).as("B's clock is ahead").isLessThan(mine.hlc());
    b.store.write(BLOCK, 0, bytes(100, 6), WriteOptions.defaults().withReplica(stampOf(onA)));
    b.store.sync(List.of(own, BLOCK));
    assertThat(b.store.durableFrontier()).isGreaterThan(mine.hlc());
    b.restart();
    assertThat(b.store.info(BLOCK, TimeSpec.latest()).hlc()).isEqualTo(onA.hlc());
    try (ReadView view = b.store.read(BLOCK, 0, 100, TimeSpec.latest())) {
      assertThat(view.toBytes()).isEqualTo(array(bytes(100, 6)));
    }
  }
}
