package io.fffs.bench.jmh;

import io.fffs.common.time.ManualPhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.ReadView;
import io.fffs.datanode.store.WriteOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
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

/**
 * Reading a whole block as of past states (paper §7.4, Figure 11; issue 4, goal: every state ≥ 90% of the latest
 * state's read rate). Scaled down from the paper's 500,000 random 32 KiB overwrites of a 64 MiB block to
 * {@value #OVERWRITES} overwrites of a {@value #BLOCK_BYTES}-byte block (4 KiB pages, persistence off, so all
 * ~{@value #OVERWRITES} × 9 page versions stay in memory). The 500 states are evenly spaced system times, one every
 * {@value #OVERWRITES}/500 writes; {@code state} picks one of them (0 = the oldest), {@code latest} reads the latest
 * state, and {@code all} cycles through all 500, one per invocation. Each invocation resolves the state and copies the block out; the result
 * is milliseconds per block read.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StoreTemporalReadBenchmark {
  static final int BLOCK_BYTES = 16 << 20;
  static final int OVERWRITES = 16_000;
  static final int WRITE_BYTES = 32 << 10;
  static final int STATES = 500;
  static final long START_MICROS = 1_763_719_200_000_000L;
  static final long STEP_MICROS = 10;

  @Param({"latest", "0", "125", "250", "375", "499", "all"})
  public String state;

  private StoreBenchSupport support;
  private ByteBuffer target;
  private int cycle;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    ManualPhysicalClock clock = new ManualPhysicalClock(START_MICROS);
    long capacity = BLOCK_BYTES + (long) OVERWRITES * (WRITE_BYTES + 4096) + (16L << 20);
    support = new StoreBenchSupport(capacity, 4096, false, clock);
    Random random = new Random(42);
    byte[] bytes = new byte[1 << 20];
    random.nextBytes(bytes);
    WriteOptions options = WriteOptions.defaults().withBlockSize(BLOCK_BYTES);
    for (int offset = 0; offset < BLOCK_BYTES; offset += bytes.length) {
      support.store.write(1, offset, ByteBuffer.wrap(bytes), options);
    }
    for (int i = 0; i < OVERWRITES; i++) {
      clock.advance(STEP_MICROS);
      int offset = random.nextInt(BLOCK_BYTES - WRITE_BYTES + 1);
      support.store.write(1, offset, ByteBuffer.wrap(bytes, random.nextInt(bytes.length - WRITE_BYTES),
          WRITE_BYTES), options);
    }
    clock.advance(1_000_000);
    target = ByteBuffer.allocateDirect(BLOCK_BYTES);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    support.close();
  }

  /** System time of past state {@code k}: just after write {@code (k + 1) * OVERWRITES / STATES}. */
  static TimeSpec stateTime(int k) {
    return TimeSpec.system(START_MICROS + (long) (k + 1) * (OVERWRITES / STATES) * STEP_MICROS);
  }

  private long readBlock(TimeSpec time) throws IOException {
    target.clear();
    try (ReadView view = support.store.read(1, 0, BLOCK_BYTES, time)) {
      view.copyTo(target);
      return view.logIndex();
    }
  }

  @Benchmark
  public long read() throws IOException {
    switch (state) {
      case "latest":
        return readBlock(TimeSpec.latest());
      case "all":
        cycle = (cycle + 1) % STATES;
        return readBlock(stateTime(cycle));
      default:
        return readBlock(stateTime(Integer.parseInt(state)));
    }
  }
}
