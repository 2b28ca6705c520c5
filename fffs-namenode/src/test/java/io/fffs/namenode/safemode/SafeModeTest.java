package io.fffs.namenode.safemode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class SafeModeTest {
  private static final long TIMEOUT_NANOS = 30_000_000_000L;

  private final AtomicLong nanos = new AtomicLong(5_000);

  private SafeMode safeMode(int blocks, float threshold) {
    Set<Long> expected = new HashSet<>();
    LongStream.rangeClosed(1, blocks).forEach(expected::add);
    return new SafeMode(expected, threshold, TIMEOUT_NANOS, nanos::get);
  }

  @Test
  void aNamespaceWithoutBlocksStartsOutOfSafeMode() {
    SafeMode safeMode = safeMode(0, 0.999f);
    assertThat(safeMode.isOn()).isFalse();
    assertThat(safeMode.describe()).isEqualTo("off");
  }

  @Test
  void safeModeEndsWhenTheThresholdOfExpectedBlocksIsReported() {
    SafeMode safeMode = safeMode(4, 0.75f);
    safeMode.reported(1);
    safeMode.reported(1);  // the same block twice counts once
    safeMode.reported(99);  // a block the namespace does not refer to does not count
    assertThat(safeMode.isOn()).isTrue();
    assertThat(safeMode.describe()).isEqualTo("on: 1 of 4 blocks reported");
    safeMode.reported(2);
    assertThat(safeMode.isOn()).as("2 of 4 is below 75%").isTrue();
    safeMode.reported(3);
    assertThat(safeMode.isOn()).isFalse();
  }

  @Test
  void theThresholdRoundsUpToWholeBlocks() {
    SafeMode safeMode = safeMode(1_000, 0.999f);
    for (long block = 1; block <= 998; block++) {
      safeMode.reported(block);
    }
    assertThat(safeMode.isOn()).as("998 of 1000").isTrue();
    safeMode.reported(999);
    assertThat(safeMode.isOn()).as("999 of 1000 is 99.9%").isFalse();

    SafeMode half = safeMode(3, 0.5f);
    half.reported(1);
    assertThat(half.isOn()).as("1 of 3: half of 3 blocks needs 2").isTrue();
    half.reported(2);
    assertThat(half.isOn()).isFalse();
  }

  @Test
  void safeModeEndsAtTheTimeoutAndNotBefore() {
    SafeMode safeMode = safeMode(2, 0.999f);
    nanos.addAndGet(TIMEOUT_NANOS - 1);
    assertThat(safeMode.isOn()).isTrue();
    nanos.incrementAndGet();
    assertThat(safeMode.isOn()).isFalse();
  }

  @Test
  void aChangeIsRefusedWithTheTypedErrorWhileOnAndAllowedAfter() throws FffsException {
    SafeMode safeMode = safeMode(4, 0.75f);
    safeMode.reported(4);
    assertThatThrownBy(() -> safeMode.checkOff("mkdirs /a")).isInstanceOfSatisfying(FffsException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.SAFE_MODE);
      assertThat(e.detail()).startsWith("the NameNode is in safe mode and refuses mkdirs /a: 1 of 4 blocks"
          + " reported so far; it leaves when 75.0% are reported or after 30 s");
    });
    safeMode.leave("admin");
    safeMode.checkOff("mkdirs /a");
    assertThat(safeMode.isOn()).isFalse();
    safeMode.reported(1);  // reports after leaving change nothing
    assertThat(safeMode.describe()).isEqualTo("off");
    assertThatCode(() -> safeMode.checkOff("mkdirs /b")).doesNotThrowAnyException();
  }

  @Test
  void aNewLeadersSafeModeRefusesWithTheCodeClientsRetry() {
    SafeMode safeMode = new SafeMode(Set.of(1L, 2L), 0.999f, TIMEOUT_NANOS, nanos::get, true);
    assertThatThrownBy(() -> safeMode.checkOff("addBlock /a")).isInstanceOfSatisfying(FffsException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.LEADER_STARTING);
      assertThat(e.detail()).startsWith("the NameNode took the lead and waits for the DataNodes' block reports; it"
          + " refuses addBlock /a: 0 of 2 blocks reported so far");
    });
    safeMode.enter("admin");  // entered by an administrator: not a failover's pause, so not retried
    assertThatThrownBy(() -> safeMode.checkOff("addBlock /a")).isInstanceOfSatisfying(FffsException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.SAFE_MODE));
  }
}
