package io.fffs.common.time;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TimeTextTest {
  @Test
  void durationsInTheUnitAPersonWouldUse() {
    assertThat(TimeText.duration(17)).isEqualTo("17 µs");
    assertThat(TimeText.duration(250_000)).isEqualTo("250 ms");
    assertThat(TimeText.duration(1_500)).isEqualTo("1.5 ms");
    assertThat(TimeText.duration(3_200_000)).isEqualTo("3.2 s");
    assertThat(TimeText.duration(-2_000_000)).isEqualTo("-2 s");
  }

  @Test
  void isoWithMicros() {
    assertThat(TimeText.isoMicros(1_763_719_200_000_250L)).isEqualTo("2025-11-21T10:00:00.000250Z");
  }

  @Test
  void physicalClockOffset() {
    ManualPhysicalClock base = new ManualPhysicalClock(1_000);
    PhysicalClock ahead = base.offsetBy(1_000_000);
    assertThat(ahead.currentTimeMicros()).isEqualTo(1_001_000);
    base.advance(5);
    assertThat(ahead.currentTimeMicros()).isEqualTo(1_001_005);
    long before = System.currentTimeMillis() * 1000;
    long system = PhysicalClock.system().currentTimeMicros();
    assertThat(system).isBetween(before - 1_000_000, before + 1_000_000);
  }
}
