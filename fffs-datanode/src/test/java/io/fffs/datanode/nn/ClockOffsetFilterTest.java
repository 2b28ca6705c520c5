package io.fffs.datanode.nn;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClockOffsetFilterTest {
  @Test
  void theSampleWithTheSmallestRoundTripWins() {
    ClockOffsetFilter filter = new ClockOffsetFilter();
    assertThat(filter.best()).isNull();
    // First call: 60 ms round trip, the NameNode answered late in it (connection set-up on the way there).
    filter.add(1_000_000, 1_055_000, 1_060_000);
    assertThat(filter.best().offsetMicros()).isEqualTo(-25_000);
    filter.add(2_000_000, 2_000_150, 2_000_300);
    filter.add(3_000_000, 3_004_000, 3_009_000);
    assertThat(filter.best()).isEqualTo(new ClockOffsetFilter.Estimate(0, 300));
    assertThat(filter.best().errorMicros()).isEqualTo(150);
  }

  @Test
  void aStepOfTheClockWinsOnceTheOldSamplesLeaveTheWindow() {
    ClockOffsetFilter filter = new ClockOffsetFilter();
    filter.add(0, 50, 100);
    // The DataNode's clock steps 200 ms ahead; its samples are slower than the one good old sample.
    for (int i = 1; i < ClockOffsetFilter.SAMPLES; i++) {
      filter.add(i * 1_000_000L + 200_000, i * 1_000_000L + 500, i * 1_000_000L + 201_000);
      assertThat(filter.best().offsetMicros()).isEqualTo(0);
    }
    filter.add(9_200_000, 9_000_500, 9_201_000);
    assertThat(filter.best().offsetMicros()).isEqualTo(200_000);
  }
}
