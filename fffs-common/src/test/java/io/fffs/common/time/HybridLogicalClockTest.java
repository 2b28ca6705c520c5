package io.fffs.common.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class HybridLogicalClockTest {
  private static final long MAX_OFFSET = 250_000;

  private static HlcTimestamp hlc(long physical, int logical) {
    return HlcTimestamp.of(physical, logical);
  }

  @Test
  void tickFollowsThePhysicalClockAndCountsWhileItStands() {
    ManualPhysicalClock pt = new ManualPhysicalClock(1_000);
    HybridLogicalClock clock = new HybridLogicalClock(pt, MAX_OFFSET);

    assertThat(clock.tick()).isEqualTo(hlc(1_000, 0));
    assertThat(clock.tick()).isEqualTo(hlc(1_000, 1));
    pt.set(1_005);
    assertThat(clock.tick()).isEqualTo(hlc(1_005, 0));
  }

  @Test
  void tickStaysMonotonicWhenThePhysicalClockJumpsBack() {
    ManualPhysicalClock pt = new ManualPhysicalClock(2_000);
    HybridLogicalClock clock = new HybridLogicalClock(pt, MAX_OFFSET);
    clock.tick();
    pt.set(1_500);

    assertThat(clock.tick()).isEqualTo(hlc(2_000, 1));
    assertThat(clock.tick()).isEqualTo(hlc(2_000, 2));
  }

  @Test
  void receiveWhenPhysicalClockIsAheadOfBoth() throws Exception {
    HybridLogicalClock clock = new HybridLogicalClock(new ManualPhysicalClock(500), MAX_OFFSET);
    clock.observe(hlc(300, 4));
    assertThat(clock.receive(hlc(400, 9))).isEqualTo(hlc(500, 0));
  }

  @Test
  void receiveWhenRemoteIsAhead() throws Exception {
    HybridLogicalClock clock = new HybridLogicalClock(new ManualPhysicalClock(100), MAX_OFFSET);
    clock.observe(hlc(150, 8));
    assertThat(clock.receive(hlc(200, 3))).isEqualTo(hlc(200, 4));
  }

  @Test
  void receiveWhenLocalIsAhead() throws Exception {
    HybridLogicalClock clock = new HybridLogicalClock(new ManualPhysicalClock(100), MAX_OFFSET);
    clock.observe(hlc(300, 2));
    assertThat(clock.receive(hlc(200, 9))).isEqualTo(hlc(300, 3));
  }

  @Test
  void receiveWhenLocalAndRemoteShareThePhysicalPartTakesTheLargerLogical() throws Exception {
    HybridLogicalClock clock = new HybridLogicalClock(new ManualPhysicalClock(100), MAX_OFFSET);
    clock.observe(hlc(300, 2));
    assertThat(clock.receive(hlc(300, 6))).isEqualTo(hlc(300, 7));
    assertThat(clock.receive(hlc(300, 1))).isEqualTo(hlc(300, 8));
  }

  @Test
  void receiveWhenPhysicalEqualsTheLargerOfBothCountsOnFromIt() throws Exception {
    HybridLogicalClock clock = new HybridLogicalClock(new ManualPhysicalClock(300), MAX_OFFSET);
    clock.observe(hlc(250, 5));
    assertThat(clock.receive(hlc(300, 4))).isEqualTo(hlc(300, 5));
  }

  /**
   * Paper Figure 4: the client asks the NameNode to add a block (RTC 101 there), then writes to a DataNode whose
   * RTC reads 100, then sends two packets while the DataNode's RTC moves to 102 and 103.
   */
  @Test
  void reproducesThePaperFigure4Exactly() throws Exception {
    ManualPhysicalClock clientRtc = new ManualPhysicalClock(100);
    ManualPhysicalClock nameNodeRtc = new ManualPhysicalClock(101);
    ManualPhysicalClock dataNodeRtc = new ManualPhysicalClock(100);
    HybridLogicalClock client = new HybridLogicalClock(clientRtc, MAX_OFFSET);
    HybridLogicalClock nameNode = new HybridLogicalClock(nameNodeRtc, MAX_OFFSET);
    HybridLogicalClock dataNode = new HybridLogicalClock(dataNodeRtc, MAX_OFFSET);

    // c1: add block, carrying (0, 0).
    HlcTimestamp addBlock = client.last();
    assertThat(addBlock).isEqualTo(hlc(0, 0));
    HlcTimestamp n1 = nameNode.receive(addBlock);
    HlcTimestamp n2 = nameNode.tick();  // block metadata created
    assertThat(n1).isEqualTo(hlc(101, 0));
    assertThat(n2).isEqualTo(hlc(101, 1));
    HlcTimestamp c2 = client.observe(n2);  // ok (101, 1)
    assertThat(c2).isEqualTo(hlc(101, 1));

    // write block to the DataNode, whose RTC still reads 100.
    HlcTimestamp d1 = dataNode.receive(client.last());
    HlcTimestamp d2 = dataNode.tick();  // block created
    assertThat(d1).isEqualTo(hlc(101, 2));
    assertThat(d2).isEqualTo(hlc(101, 3));
    assertThat(client.observe(d2)).isEqualTo(hlc(101, 3));  // c4

    // packet1 and packet2 both carry (101, 3); the DataNode RTC reads 102 when they arrive.
    dataNodeRtc.set(102);
    HlcTimestamp packet = client.last();
    HlcTimestamp d3 = dataNode.receive(packet);
    HlcTimestamp d4 = dataNode.receive(packet);
    assertThat(d3).isEqualTo(hlc(102, 0));
    assertThat(d4).isEqualTo(hlc(102, 1));

    // RTC 103: the first packet's data is written.
    dataNodeRtc.set(103);
    HlcTimestamp d5 = dataNode.tick();
    assertThat(d5).isEqualTo(hlc(103, 0));
    clientRtc.set(104);
    assertThat(client.observe(d5)).isEqualTo(hlc(103, 0));  // c7 after ack1

    // The logged events n2 < d2 < d5: metadata before the block, the block before its data (causally closed),
    // although the DataNode's RTC was behind the NameNode's when d2 happened.
    assertThat(n2).isLessThan(d2);
    assertThat(d2).isLessThan(d5);
  }

  @Test
  void refusesARemoteFurtherAheadThanTheMaxOffsetAndKeepsItsState() throws Exception {
    ManualPhysicalClock pt = new ManualPhysicalClock(10_000_000);
    HybridLogicalClock clock = new HybridLogicalClock(pt, MAX_OFFSET);
    HlcTimestamp before = clock.tick();

    assertThat(clock.receive(hlc(10_000_000 + MAX_OFFSET, 0)).physicalMicros()).isEqualTo(10_000_000 + MAX_OFFSET);
    HlcTimestamp accepted = clock.last();
    HlcTimestamp tooFar = hlc(10_000_000 + MAX_OFFSET + 1_000_000, 0);
    assertThatThrownBy(() -> clock.receive(tooFar))
        .isInstanceOfSatisfying(ClockSkewException.class, e -> {
          assertThat(e.remote()).isEqualTo(tooFar);
          assertThat(e.localMicros()).isEqualTo(10_000_000);
          assertThat(e.offsetMicros()).isEqualTo(1_250_000);
          assertThat(e.getMessage())
              .startsWith("CLOCK_SKEW: ")
              .contains(tooFar.toString())
              .contains(TimeText.isoMicros(10_000_000))
              .contains("1.25 s ahead")
              .contains("max offset 250 ms");
        });
    assertThat(clock.last()).isEqualTo(accepted).isGreaterThan(before);
  }

  @Test
  void readsIgnoreAFarAheadTimestampInsteadOfFailing() throws Exception {
    ManualPhysicalClock pt = new ManualPhysicalClock(1_000_000);
    HybridLogicalClock clock = new HybridLogicalClock(pt, MAX_OFFSET);
    HlcTimestamp before = clock.tick();
    assertThat(clock.mergeIfWithinOffset(hlc(5_000_000, 0))).isFalse();
    assertThat(clock.last()).isEqualTo(before);
    assertThat(clock.mergeIfWithinOffset(hlc(1_100_000, 4))).isTrue();
    assertThat(clock.last()).isEqualTo(hlc(1_100_000, 4));
  }

  @Test
  void maxOffsetComesFromConfiguration() {
    Configuration conf = new Configuration(false);
    assertThat(new HybridLogicalClock(PhysicalClock.system(), conf).maxOffsetMicros()).isEqualTo(250_000);
    conf.set(TimeConfigKeys.MAX_OFFSET_KEY, "1s");
    assertThat(new HybridLogicalClock(PhysicalClock.system(), conf).maxOffsetMicros()).isEqualTo(1_000_000);
    conf.set(TimeConfigKeys.MAX_OFFSET_KEY, "40");
    assertThat(new HybridLogicalClock(PhysicalClock.system(), conf).maxOffsetMicros()).isEqualTo(40_000);
  }

  @Test
  void logicalOverflowCarriesIntoThePhysicalPart() {
    HybridLogicalClock clock = new HybridLogicalClock(new ManualPhysicalClock(7_000), MAX_OFFSET);
    HlcTimestamp last = null;
    for (int i = 0; i <= HlcTimestamp.MAX_LOGICAL; i++) {
      last = clock.tick();
    }
    assertThat(last).isEqualTo(hlc(7_000, HlcTimestamp.MAX_LOGICAL));
    HlcTimestamp carried = clock.tick();
    assertThat(carried).isEqualTo(hlc(7_001, 0)).isGreaterThan(last);
  }

  @Test
  void nowDoesNotTickButTheNextTickIsLarger() {
    ManualPhysicalClock pt = new ManualPhysicalClock(9_000);
    HybridLogicalClock clock = new HybridLogicalClock(pt, MAX_OFFSET);
    HlcTimestamp stamped = clock.tick();
    assertThat(clock.now()).isEqualTo(stamped);
    assertThat(clock.now()).isEqualTo(stamped);
    pt.set(9_500);
    HlcTimestamp piggybacked = clock.now();
    assertThat(piggybacked).isEqualTo(hlc(9_500, 0));
    pt.set(9_100);
    assertThat(clock.now()).isEqualTo(piggybacked);
    assertThat(clock.tick()).isGreaterThan(piggybacked);
  }

  @Test
  void awaitPastReturnsAtOnceForAPastTime() throws Exception {
    ManualPhysicalClock pt = new ManualPhysicalClock(5_000_000);
    HybridLogicalClock clock = new HybridLogicalClock(pt, MAX_OFFSET);
    clock.observe(hlc(5_100_000, 0));

    // An interrupted thread cannot wait: any sleep inside awaitPast would throw InterruptedException.
    Thread.currentThread().interrupt();
    Throwable pastOfThePhysicalClock = catchThrowable(() -> clock.awaitPast(4_999_999, "/a"));
    // Passed by the clock's own value even when the physical clock lags behind it.
    Throwable pastOfTheHlc = catchThrowable(() -> clock.awaitPast(5_050_000, "/a"));
    boolean neverWaited = Thread.interrupted();
    assertThat(pastOfThePhysicalClock).isNull();
    assertThat(pastOfTheHlc).isNull();
    assertThat(neverWaited).as("interrupt still pending").isTrue();
    assertThat(clock.last()).as("waiting does not tick").isEqualTo(hlc(5_100_000, 0));

    // The probe sees a wait: a time neither clock has passed sleeps, and the pending interrupt ends the sleep.
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> clock.awaitPast(5_200_000, "/a")).isInstanceOf(InterruptedException.class);
    assertThat(Thread.interrupted()).isFalse();
  }

  @Test
  void awaitPastWaitsForANearFutureTimeOnTheRealClock() throws Exception {
    HybridLogicalClock clock = new HybridLogicalClock(PhysicalClock.system(), MAX_OFFSET);
    long target = PhysicalClock.system().currentTimeMicros() + 20_000;
    clock.awaitPast(target, "/a");
    assertThat(PhysicalClock.system().currentTimeMicros()).isGreaterThan(target);
  }

  @Test
  void awaitPastRefusesATimeBeyondTheMaxOffset() {
    ManualPhysicalClock pt = new ManualPhysicalClock(5_000_000);
    HybridLogicalClock clock = new HybridLogicalClock(pt, MAX_OFFSET);
    assertThatThrownBy(() -> clock.awaitPast(8_200_000, "/sensors/cam7"))
        .isInstanceOfSatisfying(io.fffs.common.error.FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(io.fffs.common.error.ErrorCode.TIME_IN_FUTURE);
          assertThat(e.detail()).startsWith("/sensors/cam7 at ").contains("3.2 s ahead of the cluster clock");
        });
  }

  @Test
  void awaitPastRefusesWhenThePhysicalClockDoesNotReachTheTime() {
    // A stopped clock never passes t: the wait is bounded, then TIME_IN_FUTURE.
    HybridLogicalClock clock = new HybridLogicalClock(new ManualPhysicalClock(5_000_000), MAX_OFFSET);
    assertThatThrownBy(() -> clock.awaitPast(5_010_000, "block 7"))
        .isInstanceOf(io.fffs.common.error.FffsException.class)
        .hasMessageContaining("TIME_IN_FUTURE: block 7 at");
  }

  @Test
  void observeKeepsTheMaximumWithoutTicking() {
    HybridLogicalClock client = new HybridLogicalClock(new ManualPhysicalClock(1), MAX_OFFSET);
    assertThat(client.observe(hlc(50, 3))).isEqualTo(hlc(50, 3));
    assertThat(client.observe(hlc(40, 9))).isEqualTo(hlc(50, 3));
    assertThat(client.last()).isEqualTo(hlc(50, 3));
  }

  @Test
  void fourThreadsTickingGetUniqueStrictlyIncreasingStamps() throws Exception {
    HybridLogicalClock clock = new HybridLogicalClock(PhysicalClock.system(), MAX_OFFSET);
    int threads = 4;
    int perThread = 100_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<long[]>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      results.add(pool.submit(() -> {
        long[] stamps = new long[perThread];
        start.await();
        for (int i = 0; i < perThread; i++) {
          stamps[i] = clock.tick().packed();
        }
        return stamps;
      }));
    }
    start.countDown();
    Set<Long> all = new HashSet<>(threads * perThread * 2);
    for (Future<long[]> result : results) {
      long[] stamps = result.get(60, TimeUnit.SECONDS);
      for (int i = 1; i < stamps.length; i++) {
        assertThat(stamps[i]).isGreaterThan(stamps[i - 1]);
      }
      for (long stamp : stamps) {
        all.add(stamp);
      }
    }
    pool.shutdown();
    assertThat(all).hasSize(threads * perThread);
  }

  @Test
  void concurrentReceivesAndTicksNeverGoBackwards() throws Exception {
    ManualPhysicalClock pt = new ManualPhysicalClock(1_000_000);
    HybridLogicalClock clock = new HybridLogicalClock(pt, MAX_OFFSET);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    Future<long[]> receiver = pool.submit(() -> {
      long[] seen = new long[50_000];
      for (int i = 0; i < seen.length; i++) {
        HlcTimestamp remote = hlc(1_000_000 + (i % 200), i % 5);
        seen[i] = clock.receive(remote).packed();
        if (seen[i] <= remote.packed()) {
          throw new AssertionError("receive not above remote at " + i);
        }
      }
      return seen;
    });
    Future<long[]> ticker = pool.submit(() -> {
      long[] seen = new long[50_000];
      for (int i = 0; i < seen.length; i++) {
        if (i % 1000 == 0) {
          pt.advance(1);
        }
        seen[i] = clock.tick().packed();
      }
      return seen;
    });
    Set<Long> all = new HashSet<>();
    for (Future<long[]> f : List.of(receiver, ticker)) {
      long[] seen = f.get(60, TimeUnit.SECONDS);
      for (int i = 1; i < seen.length; i++) {
        assertThat(seen[i]).isGreaterThan(seen[i - 1]);
      }
      for (long s : seen) {
        all.add(s);
      }
    }
    pool.shutdown();
    assertThat(all).hasSize(100_000);
  }
}
