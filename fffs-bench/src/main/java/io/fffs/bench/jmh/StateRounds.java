package io.fffs.bench.jmh;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * The {@code rounds} estimator of {@link StoreTemporalReadBenchmark}: in every round each of the past states and the
 * latest state twice (A and B) is read once, in an order shuffled anew each round, so the latest is read no more
 * often than any past state and whatever the caches hold favours none of them. A state's ratio is the latest's
 * median read time (A's and B's reads together, twice as many as a past state has) over its own median read time,
 * over the measured rounds; the control is A over B, the same state read in two places of every round, so how far
 * it strays from 1 is the noise of one state's median.
 */
final class StateRounds {
  private final int states;
  private final Random random = new Random(7);
  private final List<long[]> measured = new ArrayList<>();

  StateRounds(int states) {
    this.states = states;
  }

  /** Index of the latest read A in a round's order and times; B is the one after it. */
  int latestA() {
    return states;
  }

  /**
   * A new round's reading order: each past state (0 … states − 1) and the latest as A and as B once, shuffled, with A
   * and B never next to each other (the second would find the first's last bytes cached).
   */
  int[] order() {
    int[] order = new int[states + 2];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    do {
      for (int i = order.length - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    } while (adjacent(order, states, states + 1));
    return order;
  }

  private static boolean adjacent(int[] order, int a, int b) {
    for (int i = 1; i < order.length; i++) {
      if (order[i - 1] == a && order[i] == b || order[i - 1] == b && order[i] == a) {
        return true;
      }
    }
    return false;
  }

  /** Keeps a measured round's read times, indexed as in {@link #order()} (past states, then A, then B). */
  void record(long[] nanos) {
    measured.add(nanos.clone());
  }

  int rounds() {
    return measured.size();
  }

  /** Median read time of entries {@code indexes} (each read once a round) over the measured rounds. */
  double medianNanos(int... indexes) {
    double[] times = new double[measured.size() * indexes.length];
    for (int r = 0; r < measured.size(); r++) {
      for (int i = 0; i < indexes.length; i++) {
        times[r * indexes.length + i] = measured.get(r)[indexes[i]];
      }
    }
    Arrays.sort(times);
    int n = times.length;
    return n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  }

  /** Median read time of the latest state, over its reads as A and as B. */
  double latestNanos() {
    return medianNanos(states, states + 1);
  }

  /** Each past state's rate over the latest's (the latest's median time over the state's). */
  double[] ratios() {
    double latest = latestNanos();
    double[] ratios = new double[states];
    for (int k = 0; k < states; k++) {
      ratios[k] = latest / medianNanos(k);
    }
    return ratios;
  }

  /** A over B: the same state read twice, as a ratio of rates. */
  double control() {
    return medianNanos(states) / medianNanos(states + 1);
  }

  /** One line: the rounds, the ratios' spread and how many fall below {@code goal}, the control, the worst states. */
  String summary(double goal, long blockBytes) {
    if (measured.isEmpty()) {
      return "rounds: no round was measured; give the measurement at least one iteration";
    }
    double[] ratios = ratios();
    Integer[] worst = new Integer[states];
    for (int k = 0; k < states; k++) {
      worst[k] = k;
    }
    Arrays.sort(worst, (x, y) -> Double.compare(ratios[x], ratios[y]));
    double[] sorted = ratios.clone();
    Arrays.sort(sorted);
    long below = Arrays.stream(sorted).filter(v -> v < goal).count();
    StringBuilder lowest = new StringBuilder();
    for (int i = 0; i < Math.min(5, states); i++) {
      lowest.append(String.format(Locale.ROOT, "%s%d: %.3f", i == 0 ? "" : ", ", worst[i], ratios[worst[i]]));
    }
    return String.format(Locale.ROOT, "rounds: %d measured rounds of %d states + latest A, B; latest %.2f ms"
        + " (%.2f GB/s); state/latest min %.3f, p5 %.3f, median %.3f, max %.3f, %d below %.2f; control A/B %.3f;"
        + " lowest %s", measured.size(), states, latestNanos() / 1e6, blockBytes / latestNanos(),
        sorted[0], sorted[(int) (0.05 * (states - 1))], sorted[(states - 1) / 2], sorted[states - 1], below, goal,
        control(), lowest);
  }
}
