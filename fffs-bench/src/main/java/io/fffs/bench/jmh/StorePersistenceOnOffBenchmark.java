package io.fffs.bench.jmh;

import io.fffs.common.time.PhysicalClock;
import io.fffs.datanode.store.WriteOptions;
import io.fffs.protocol.frame.ChunkChecksums;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
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
 * Persistence on vs off measured side by side (issue 4, goal: on ≥ 90% of off while the data fits in memory).
 * {@link StorePersistenceBenchmark} runs every iteration of one mode before any of the other, so whatever this
 * machine does over those minutes lands in the ratio. Here each invocation is one triple of rounds, each the same
 * {@value StorePersistenceBenchmark#ROUND_BYTES} bytes appended to a fresh, pre-touched store:
 * <ul>
 *   <li>{@code on}: persistence on;
 *   <li>{@code off}: persistence off;
 *   <li>{@code bare}: persistence off, while a {@link BareDiskWriter} writes the store's arena to disk as fast as the
 *       disk takes it, in the same way ({@code mode}) and batch size, with no FFFS code: the least any persistence
 *       costs a writer on this machine.
 * </ul>
 * The three run in an order that goes through all six from triple to triple. Only the appends are timed; the
 * persistent store's backlog is drained (untimed) before the next round starts, so it never slows another round.
 *
 * <p>The result is printed, not scored: each triple's append rates and ratios as it runs, and at the end the
 * medians over the measured triples (warm-up triples left out): on/off, which the goal is judged by; bare/off, this
 * machine's floor for that ratio; and on/bare, what FFFS's persistence costs beyond that floor. JMH's score, the
 * time of a whole triple including the stores' start-up, is only there because JMH needs one.
 *
 * <p>{@code mode} is how the 'on' store writes its segment files and the bare writer its file ({@code direct}:
 * O_DIRECT; {@code page-cache}: through the page cache). Each write carries its CRC32C per 512-byte chunk, as the
 * data server's writes do.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 20)
@Fork(1)
public class StorePersistenceOnOffBenchmark {
  /** The three kinds of round. */
  enum Round { ON, OFF, BARE }

  /** The order of the rounds in successive triples: all six, so that no round owns a place. */
  private static final Round[][] ORDERS = {
      {Round.ON, Round.OFF, Round.BARE}, {Round.OFF, Round.BARE, Round.ON}, {Round.BARE, Round.ON, Round.OFF},
      {Round.ON, Round.BARE, Round.OFF}, {Round.OFF, Round.ON, Round.BARE}, {Round.BARE, Round.OFF, Round.ON}};

  @Param({"direct", "page-cache"})
  public String mode;

  @Param({"131072", "1048576"})
  public int writeSize;

  private ByteBuffer source;
  private WriteOptions options;
  private int triples;
  private boolean measuring;
  private final List<double[]> measured = new ArrayList<>();

  @Setup(Level.Trial)
  public void setUp() {
    byte[] bytes = new byte[writeSize];
    ThreadLocalRandom.current().nextBytes(bytes);
    source = ByteBuffer.allocateDirect(writeSize).put(bytes).flip();
    options = WriteOptions.defaults().withChunkCrcs(ChunkChecksums.of(source));
  }

  @Setup(Level.Iteration)
  public void startIteration(IterationParams iteration) {
    measuring = iteration.getType() == IterationType.MEASUREMENT;
  }

  @Benchmark
  public void triple() throws IOException {
    Round[] order = ORDERS[triples++ % ORDERS.length];
    double[] rate = new double[Round.values().length];
    for (Round round : order) {
      rate[round.ordinal()] = round(round);
    }
    double on = rate[Round.ON.ordinal()];
    double off = rate[Round.OFF.ordinal()];
    double bare = rate[Round.BARE.ordinal()];
    System.out.printf(Locale.ROOT, "%n  triple %d (%s, %s, %s): on %.3f, off %.3f, bare %.3f GB/s;"
        + " on/off %.3f, bare/off %.3f, on/bare %.3f%n", triples, order[0], order[1], order[2], on, off, bare,
        on / off, bare / off, on / bare);
    if (measuring) {
      measured.add(new double[] {on / off, bare / off, on / bare, on, off, bare});
    }
  }

  /** Prints the medians of the measured triples, which the goal is judged by. */
  @TearDown(Level.Trial)
  public void report() {
    if (!measured.isEmpty()) {
      System.out.printf(Locale.ROOT, "%n  %s, %d-byte writes, %d triples: on/off median %.3f (min %.3f, max %.3f);"
          + " bare/off %.3f; on/bare %.3f; append medians on %.3f, off %.3f, bare %.3f GB/s%n", mode, writeSize,
          measured.size(), median(0), measured.stream().mapToDouble(triple -> triple[0]).min().getAsDouble(),
          measured.stream().mapToDouble(triple -> triple[0]).max().getAsDouble(), median(1), median(2), median(3),
          median(4), median(5));
    }
  }

  private double median(int column) {
    double[] sorted = measured.stream().mapToDouble(triple -> triple[column]).sorted().toArray();
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  /**
   * Appends one round to a fresh store and returns the append rate in GB/s; drains the backlog (or stops the bare
   * writer) untimed.
   */
  private double round(Round round) throws IOException {
    boolean direct = !mode.equals("page-cache");
    try (StoreBenchSupport support = new StoreBenchSupport(StorePersistenceBenchmark.ROUND_BYTES + (8L << 20), 4096,
        round == Round.ON, PhysicalClock.system(), direct ? "true" : "false")) {
      BareDiskWriter bare = round == Round.BARE ? new BareDiskWriter(support.dataDir, support.mapArena(), direct)
          : null;
      try {
        long start = System.nanoTime();
        StorePersistenceBenchmark.appendRound(support.store, source, options);
        long elapsed = System.nanoTime() - start;
        if (bare != null) {
          bare.stop();
        }
        if (round == Round.ON) {
          StorePersistenceBenchmark.syncRound(support.store);
        }
        return (double) StorePersistenceBenchmark.ROUND_BYTES / elapsed;
      } finally {
        if (bare != null) {
          bare.close();
        }
      }
    }
  }
}
