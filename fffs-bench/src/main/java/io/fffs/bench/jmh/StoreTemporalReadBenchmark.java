package io.fffs.bench.jmh;

import io.fffs.common.time.ManualPhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.ReadView;
import io.fffs.datanode.store.WriteOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Reading a whole block as of past states (paper §7.4, Figure 11; issue 4, goal: every state ≥ 90% of the latest
 * state's read rate). {@code overwrites} random 32 KiB overwrites of a {@code blockMiB} block (4 KiB pages,
 * persistence off, so every one of the ~{@code overwrites} × 9 page versions stays in memory): by default 16,000
 * of a 16 MiB block, scaled down from the paper's 500,000 of a 64 MiB block, which {@code -p overwrites=500000 -p
 * blockMiB=64} runs (an arena of ~17.3 GiB; each trial writes it anew). The 500 states are evenly spaced system
 * times, one every {@code overwrites}/500 writes; {@code state} picks one of them (0 = the oldest), {@code latest}
 * reads the latest state, and {@code all} cycles through all 500, one per invocation. Each invocation resolves the
 * state and copies the block out; the result is milliseconds per block read.
 *
 * <p>{@code pairs} measures every state against the latest in the same moment: each invocation reads the next
 * state and the latest twice (A, B), in 4 MiB pieces in rotating order, and the trial ends with each state's
 * ratio (latest time over its own, over all measured invocations) and a control (A over B, the same bytes: what it
 * shows below 0.90 is noise); its JMH score is the time of the three reads of the block. To reach all 500 states
 * the measurement must cover 500 invocations: at full scale (~30 ms an invocation) {@code -i 3 -r 10s}.
 *
 * <p>{@code rounds} reads the latest no more often than any past state ({@link StateRounds}): each invocation is
 * one round, every past state and the latest twice (A, B) read whole once each in a shuffled order, and the trial
 * ends with each state's ratio (the latest's median time over A's and B's reads, over its own) and the control
 * A/B. Each measured iteration runs at least one round (~5 s at full scale), so {@code -wi 1 -w 1s -i 8 -r 1s}
 * measures about 8.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StoreTemporalReadBenchmark {
  static final int WRITE_BYTES = 32 << 10;
  static final int STATES = 500;
  static final long START_MICROS = 1_763_719_200_000_000L;
  static final long STEP_MICROS = 10;
  static final int PAIR_PIECE = 4 << 20;

  @Param({"latest", "0", "125", "250", "375", "499", "all", "pairs", "rounds"})
  public String state;

  @Param({"16"})
  public int blockMiB;

  @Param({"16000"})
  public int overwrites;

  private StoreBenchSupport support;
  private ByteBuffer target;
  private int cycle;
  private boolean measuring;
  private final long[][] pairNanos = new long[3][STATES];
  private final StateRounds rounds = new StateRounds(STATES);

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    ManualPhysicalClock clock = new ManualPhysicalClock(START_MICROS);
    int blockBytes = blockMiB << 20;
    long capacity = blockBytes + (long) overwrites * (WRITE_BYTES + 4096) + (16L << 20);
    support = new StoreBenchSupport(capacity, 4096, false, clock);
    Random random = new Random(42);
    byte[] bytes = new byte[1 << 20];
    random.nextBytes(bytes);
    WriteOptions options = WriteOptions.defaults().withBlockSize(blockBytes);
    for (int offset = 0; offset < blockBytes; offset += bytes.length) {
      support.store.write(1, offset, ByteBuffer.wrap(bytes), options);
    }
    for (int i = 0; i < overwrites; i++) {
      clock.advance(STEP_MICROS);
      int offset = random.nextInt(blockBytes - WRITE_BYTES + 1);
      support.store.write(1, offset, ByteBuffer.wrap(bytes, random.nextInt(bytes.length - WRITE_BYTES),
          WRITE_BYTES), options);
    }
    clock.advance(1_000_000);
    target = ByteBuffer.allocateDirect(blockBytes);
  }

  @Setup(Level.Iteration)
  public void iteration(IterationParams params) {
    measuring = params.getType() == IterationType.MEASUREMENT;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    support.close();
    if (state.equals("pairs")) {
      printPairs();
    } else if (state.equals("rounds")) {
      System.out.printf(Locale.ROOT, "%n%s (%d MiB block, %d overwrites)%n", rounds.summary(0.9, target.capacity()),
          blockMiB, overwrites);
    }
  }

  /** Per state: latest over state and latest A over latest B, as read-time ratios (1.0 = as fast as the latest). */
  private void printPairs() {
    double[] ratio = new double[STATES];
    double[] control = new double[STATES];
    int measured = 0;
    for (int k = 0; k < STATES; k++) {
      if (pairNanos[0][k] > 0) {
        ratio[measured] = (pairNanos[1][k] + pairNanos[2][k]) / 2.0 / pairNanos[0][k];
        control[measured] = pairNanos[2][k] / (double) pairNanos[1][k];
        measured++;
      }
    }
    if (measured == 0) {
      System.out.println("\npairs: no state was measured; give the measurement more time (-r)");
      return;
    }
    double[] r = Arrays.copyOf(ratio, measured);
    double[] c = Arrays.copyOf(control, measured);
    Arrays.sort(r);
    Arrays.sort(c);
    System.out.printf(Locale.ROOT, "%npairs (%d MiB block, %d overwrites): %d of %d states measured; state/latest"
        + " min %.3f, p5 %.3f, median %.3f, %d below 0.90; control latest/latest min %.3f, median %.3f, %d below"
        + " 0.90%n", blockMiB, overwrites, measured, STATES, r[0], r[(int) (0.05 * (measured - 1))],
        r[(measured - 1) / 2], below(r), c[0], c[(measured - 1) / 2], below(c));
  }

  private static long below(double[] ratios) {
    return Arrays.stream(ratios).filter(v -> v < 0.9).count();
  }

  /** System time of past state {@code k}: just after write {@code (k + 1) * overwrites / STATES}. */
  TimeSpec stateTime(int k) {
    return TimeSpec.system(START_MICROS + (long) (k + 1) * (overwrites / STATES) * STEP_MICROS);
  }

  private long readBlock(TimeSpec time) throws IOException {
    target.clear();
    try (ReadView view = support.store.read(1, 0, target.capacity(), time)) {
      view.copyTo(target);
      return view.logIndex();
    }
  }

  /**
   * The next state, latest A and latest B, piece by piece in rotating order, each at a different piece at each step
   * (no read follows a read of the same bytes, which the 32 MiB L3 cache would serve warm); times kept per state
   * when measuring.
   */
  private long readPairs() throws IOException {
    int k = cycle % STATES;
    cycle++;
    int blockBytes = target.capacity();
    int pieces = Math.max(1, blockBytes / PAIR_PIECE); // whole pieces; a block under 4 MiB is one piece
    int length = Math.min(PAIR_PIECE, blockBytes);
    int shift = Math.max(1, pieces / 3);
    TimeSpec[] times = {stateTime(k), TimeSpec.latest(), TimeSpec.latest()};
    long sum = 0;
    for (int step = 0; step < pieces; step++) {
      for (int j = 0; j < 3; j++) {
        int which = (j + step + cycle) % 3;
        int at = (step + which * shift) % pieces;
        long t0 = System.nanoTime();
        target.clear();
        try (ReadView view = support.store.read(1, (long) at * length, length, times[which])) {
          view.copyTo(target);
          sum += view.logIndex();
        }
        if (measuring) {
          pairNanos[which][k] += System.nanoTime() - t0;
        }
      }
    }
    return sum;
  }

  /** One round: every past state and the latest twice, each read whole once, in the round's order. */
  private long readRound() throws IOException {
    int[] order = rounds.order();
    long[] nanos = new long[order.length];
    long sum = 0;
    for (int index : order) {
      long t0 = System.nanoTime();
      sum += readBlock(index >= rounds.latestA() ? TimeSpec.latest() : stateTime(index));
      nanos[index] = System.nanoTime() - t0;
    }
    if (measuring) {
      rounds.record(nanos);
    }
    return sum;
  }

  @Benchmark
  public long read() throws IOException {
    switch (state) {
      case "latest":
        return readBlock(TimeSpec.latest());
      case "all":
        cycle = (cycle + 1) % STATES;
        return readBlock(stateTime(cycle));
      case "pairs":
        return readPairs();
      case "rounds":
        return readRound();
      default:
        return readBlock(stateTime(Integer.parseInt(state)));
    }
  }
}
