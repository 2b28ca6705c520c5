package io.fffs.datanode.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ThrottleTest {
  private static final long SECOND = 1_000_000_000L;

  private final AtomicLong nanos = new AtomicLong(5 * SECOND);

  @Test
  void bytesBeyondTheRateWaitTheirTurnAcrossStreams() {
    Throttle throttle = new Throttle(1_000, nanos::get);
    assertThat(throttle.acquire(1_000)).isZero();
    assertThat(throttle.acquire(500)).as("after the first second's worth").isEqualTo(SECOND);
    assertThat(throttle.acquire(500)).as("another stream queues behind").isEqualTo(SECOND * 3 / 2);
    nanos.addAndGet(2 * SECOND);
    assertThat(throttle.acquire(100)).isZero();
  }

  @Test
  void anIdleSpellBuysAtMostOneSecondOfBurst() {
    Throttle throttle = new Throttle(1_000, nanos::get);
    nanos.addAndGet(60 * SECOND);
    assertThat(throttle.acquire(1_000)).isZero();
    assertThat(throttle.acquire(1_000)).isZero();
    assertThat(throttle.acquire(1_000)).isEqualTo(SECOND);
  }

  @Test
  void zeroMeansUnthrottled() {
    Throttle throttle = new Throttle(0, nanos::get);
    assertThat(throttle.acquire(Long.MAX_VALUE / 2)).isZero();
    assertThat(throttle.acquire(1)).isZero();
  }
}
