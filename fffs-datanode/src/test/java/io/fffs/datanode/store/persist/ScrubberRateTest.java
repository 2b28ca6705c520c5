package io.fffs.datanode.store.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ScrubberRateTest {
  @Test
  void bytesAreDueAtTheRate() {
    assertEquals(1_000_000_000L, Scrubber.dueNanos(100L << 20, 100L << 20));
    assertEquals(488_281L, Scrubber.dueNanos(512, 1L << 20));
  }

  @Test
  void passesOverManyGigabytesStayThrottled() {
    // 20 GiB at 100 MiB/s: 204.8 s. bytes * 1e9 as a long overflows past 9.2 GB and came out negative.
    long due = Scrubber.dueNanos(20L << 30, 100L << 20);
    assertEquals(204_800_000_000L, due, 1_000);
    // A whole 1 TiB data directory at 1 GB/s.
    assertEquals(1_099_511_627_776L, Scrubber.dueNanos(1L << 40, 1_000_000_000L), 1_000);
  }
}
