package io.fffs.bench.jmh;

import io.fffs.common.time.ClockSkewException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Throughput of {@link HybridLogicalClock#tick()} and {@link HybridLogicalClock#receive(HlcTimestamp)} with one
 * and two threads on one shared clock. Baselines in the same run: a read of the system physical clock (every tick
 * makes one) and an {@link AtomicLong} increment (the cheapest shared counter), so results read as ratios.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HlcBenchmark {
  private HybridLogicalClock clock;
  private PhysicalClock physical;
  private final AtomicLong counter = new AtomicLong();
  private HlcTimestamp remote;

  @Setup
  public void setUp() {
    physical = PhysicalClock.system();
    clock = new HybridLogicalClock(physical, 250_000);
    // A peer message at the local time: the common case on a healthy cluster.
    remote = HlcTimestamp.of(physical.currentTimeMicros(), 3);
  }

  @Benchmark
  @Threads(1)
  public long baselinePhysicalClock1() {
    return physical.currentTimeMicros();
  }

  @Benchmark
  @Threads(1)
  public long baselineAtomicIncrement1() {
    return counter.incrementAndGet();
  }

  @Benchmark
  @Threads(2)
  public long baselineAtomicIncrement2() {
    return counter.incrementAndGet();
  }

  @Benchmark
  @Threads(1)
  public HlcTimestamp tick1() {
    return clock.tick();
  }

  @Benchmark
  @Threads(2)
  public HlcTimestamp tick2() {
    return clock.tick();
  }

  @Benchmark
  @Threads(1)
  public HlcTimestamp receive1() throws ClockSkewException {
    return clock.receive(remote);
  }

  @Benchmark
  @Threads(2)
  public HlcTimestamp receive2() throws ClockSkewException {
    return clock.receive(remote);
  }
}
