package io.fffs.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class StateRoundsTest {
  @Test
  void eachRoundReadsEveryStateAndTheLatestTwiceOnceAndNeverATwiceInARow() {
    StateRounds rounds = new StateRounds(6);
    int[] previous = null;
    boolean reshuffled = false;
    for (int r = 0; r < 200; r++) {
      int[] order = rounds.order();
      int[] sorted = order.clone();
      Arrays.sort(sorted);
      assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, sorted);
      for (int i = 1; i < order.length; i++) {
        assertTrue(order[i - 1] + order[i] != 13 || Math.abs(order[i - 1] - order[i]) != 1,
            "A and B next to each other: " + Arrays.toString(order));
      }
      reshuffled |= previous != null && !Arrays.equals(previous, order);
      previous = order;
    }
    assertTrue(reshuffled);
  }

  @Test
  void ratiosAreTheLatestMedianOverEachStatesMedian() {
    StateRounds rounds = new StateRounds(2);
    assertEquals(2, rounds.latestA());
    // state 0, state 1, A, B per round: state 0 reads as fast as A, state 1 takes twice as long
    rounds.record(new long[] {100, 200, 100, 100});
    rounds.record(new long[] {110, 220, 110, 104});
    rounds.record(new long[] {900, 180, 90, 100}); // an outlier the median leaves out
    assertEquals(3, rounds.rounds());
    assertEquals(100, rounds.medianNanos(2));
    assertEquals(100, rounds.latestNanos()); // median of 90, 100, 100, 100, 104, 110
    assertArrayEquals(new double[] {100 / 110.0, 0.5}, rounds.ratios(), 1e-9);
    assertEquals(1.0, rounds.control(), 1e-9);
    String line = rounds.summary(0.9, 1000);
    assertTrue(line.contains("1 below 0.90"), line);
    assertTrue(line.contains("lowest 1: 0.500"), line);
  }

  @Test
  void recordKeepsACopy() {
    StateRounds rounds = new StateRounds(1);
    long[] nanos = {10, 20, 30};
    rounds.record(nanos);
    nanos[0] = 40;
    rounds.record(nanos);
    assertEquals(25, rounds.medianNanos(0));
    assertEquals(25, rounds.latestNanos());
    assertEquals(1.0, rounds.ratios()[0], 1e-9);
    assertEquals(20 / 30.0, rounds.control(), 1e-9);
  }

  @Test
  void sayWhenNothingWasMeasured() {
    assertTrue(new StateRounds(3).summary(0.9, 1).startsWith("rounds: no round was measured"));
  }
}
