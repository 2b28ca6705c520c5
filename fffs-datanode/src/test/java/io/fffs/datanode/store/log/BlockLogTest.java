package io.fffs.datanode.store.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.time.HlcTimestamp;
import org.junit.jupiter.api.Test;

class BlockLogTest {
  private static long hlc(long micros, int logical) {
    return HlcTimestamp.of(micros, logical).packed();
  }

  private static int append(BlockLog log, long hlc, long userTime) {
    return log.append(BlockOp.WRITE, userTime, hlc, 0, 1, 1, BlockLog.NONE, BlockLog.NONE);
  }

  @Test
  void aSystemTimeIncludesEveryLogicalTickOfItsMicrosecond() {
    BlockLog log = new BlockLog();
    append(log, hlc(100, 0), 0);
    append(log, hlc(100, 1), 0);
    append(log, hlc(100, 2), 0);
    append(log, hlc(105, 0), 0);

    assertThat(log.indexAtSystemTime(99)).isEqualTo(-1);
    assertThat(log.indexAtSystemTime(100)).isEqualTo(2);
    assertThat(log.indexAtSystemTime(104)).isEqualTo(2);
    assertThat(log.indexAtSystemTime(105)).isEqualTo(3);
    assertThat(log.indexAtSystemTime(Long.MAX_VALUE >>> 11)).isEqualTo(3);
  }

  @Test
  void userTimesAreLookedUpOnceTheyAppearAndCostNothingBefore() {
    BlockLog log = new BlockLog();
    append(log, hlc(1, 0), 0);
    long withoutUserTimes = log.memoryBytes();
    assertThat(log.indexAtUserTime(0)).as("no user times: every state is at user time 0").isEqualTo(0);

    append(log, hlc(2, 0), 50);
    append(log, hlc(3, 0), 50);
    append(log, hlc(4, 0), 70);

    assertThat(log.memoryBytes()).isGreaterThan(withoutUserTimes);
    assertThat(log.indexAtUserTime(0)).isEqualTo(0);
    assertThat(log.indexAtUserTime(49)).isEqualTo(0);
    assertThat(log.indexAtUserTime(50)).isEqualTo(2);
    assertThat(log.indexAtUserTime(69)).isEqualTo(2);
    assertThat(log.indexAtUserTime(Long.MAX_VALUE)).isEqualTo(3);
    assertThat(log.userTime(0)).isZero();
    assertThat(log.userTime(3)).isEqualTo(70);
  }

  @Test
  void theLogRefusesAnHlcThatDoesNotMoveForward() {
    BlockLog log = new BlockLog();
    append(log, hlc(10, 0), 0);
    assertThatThrownBy(() -> append(log, hlc(10, 0), 0)).isInstanceOf(IllegalStateException.class);
    assertThat(log.count()).isEqualTo(1);
  }

  @Test
  void aDeleteEndsExistenceButKeepsTheEntries() {
    BlockLog log = new BlockLog();
    log.append(BlockOp.CREATE, 0, hlc(1, 0), 0, 0, 0, BlockLog.NONE, BlockLog.NONE);
    log.append(BlockOp.DELETE, 0, hlc(2, 0), 0, 0, 0, BlockLog.NONE, BlockLog.NONE);

    assertThat(log.existsAfter(-1)).isFalse();
    assertThat(log.existsAfter(0)).isTrue();
    assertThat(log.existsAfter(1)).isFalse();
    assertThat(log.op(1)).isEqualTo(BlockOp.DELETE);
  }
}
