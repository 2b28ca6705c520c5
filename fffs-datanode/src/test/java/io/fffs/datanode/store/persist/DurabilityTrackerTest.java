package io.fffs.datanode.store.persist;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.ManualPhysicalClock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class DurabilityTrackerTest {
  private static final long START_MICROS = 1_763_719_200_000_000L;

  private static DurabilityTracker tracker(boolean persistent) {
    return new DurabilityTracker(new HybridLogicalClock(new ManualPhysicalClock(START_MICROS), 250_000),
        persistent);
  }

  @Test
  void theFrontierStopsJustBelowTheOldestEntryNotYetOnDisk() {
    DurabilityTracker tracker = tracker(true);
    long a = tracker.stamp();
    long b = tracker.stamp();
    long c = tracker.stamp();
    assertThat(tracker.frontier().packed()).isEqualTo(a - 1);
    tracker.durable(b);
    tracker.durable(c);
    assertThat(tracker.frontier().packed()).isEqualTo(a - 1);
    tracker.durable(b);  // told twice: nothing changes
    tracker.durable(c + 12_345);  // never stamped: nothing changes
    assertThat(tracker.frontier().packed()).isEqualTo(a - 1);
    tracker.durable(a);
    assertThat(tracker.frontier().packed()).isEqualTo(c);
    assertThat(tracker.pendingForTest()).isZero();
  }

  @Test
  void anEntryAtAForeignStampIsTrackedUnderAnAscendingLocalKey() {
    DurabilityTracker tracker = tracker(true);
    long own = tracker.stamp();
    long key = tracker.stampReplica();  // the entry itself keeps a foreign HLC, possibly below own
    assertThat(key).isGreaterThan(own);
    long after = tracker.stamp();
    assertThat(after).isGreaterThan(key);
    tracker.durable(own);
    tracker.durable(after);
    assertThat(tracker.frontier().packed()).as("everything applied before the replica's entry").isEqualTo(key - 1);
    tracker.durable(key);
    assertThat(tracker.frontier().packed()).isEqualTo(after);
  }

  @Test
  void manyEntriesMadeDurableInAnyOrderKeepTheFrontierExact() {
    DurabilityTracker tracker = tracker(true);
    Random random = new Random(7);
    TreeSet<Long> pending = new TreeSet<>();
    List<Long> stamped = new ArrayList<>();
    long last = 0;
    // Far more entries than the first arrays hold, with backlogs that make them grow and later compact.
    for (int round = 0; round < 40; round++) {
      int stamps = random.nextInt(3000);
      for (int i = 0; i < stamps; i++) {
        last = tracker.stamp();
        pending.add(last);
        stamped.add(last);
      }
      Collections.shuffle(stamped, random);
      int done = random.nextInt(stamped.size() + 1);
      for (long hlc : stamped.subList(0, done)) {
        tracker.durable(hlc);
        pending.remove(hlc);
      }
      stamped.subList(0, done).clear();
      long expected = pending.isEmpty() ? last : pending.first() - 1;
      assertThat(tracker.frontier().packed()).as("round %d", round).isEqualTo(expected);
      assertThat(tracker.pendingForTest()).isEqualTo(pending.size());
    }
  }

  @Test
  void withoutPersistenceNothingIsPendingAndRecoverySeedsTheFrontier() {
    DurabilityTracker tracker = tracker(false);
    tracker.stamp();
    assertThat(tracker.pendingForTest()).isZero();
    assertThat(tracker.frontier()).isEqualTo(HlcTimestamp.valueOf(0));
    DurabilityTracker recovered = tracker(true);
    long onDisk = HlcTimestamp.of(START_MICROS + 5_000_000, 3).packed();
    recovered.recovered(onDisk);
    assertThat(recovered.frontier().packed()).isEqualTo(onDisk);
    assertThat(recovered.stamp()).isGreaterThan(onDisk);
  }
}
