package io.fffs.bench.jmh;

import io.fffs.common.error.FffsException;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.bench.namenode.DeepHistory;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Path resolution at depth 10 where every component has 1,000 versions (state changes) and its name 1,000 history
 * entries: at the latest state (the baseline, same run) and at a time in the middle of the history.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PathResolutionBenchmark {
  private DeepHistory history;
  private long pastLimit;

  @Setup
  public void setUp() {
    history = DeepHistory.build(10, 1000);
    pastLimit = Namespace.limitForMicros(history.middleMicros());
  }

  @Benchmark
  public Inode resolveLatest() throws FffsException {
    return history.namespace().resolve(history.deepPath(), Namespace.LATEST);
  }

  @Benchmark
  public Inode resolvePast() throws FffsException {
    return history.namespace().resolve(history.deepPath(), pastLimit);
  }
}
