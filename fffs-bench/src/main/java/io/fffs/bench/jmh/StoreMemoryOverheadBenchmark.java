package io.fffs.bench.jmh;

import io.fffs.common.time.PhysicalClock;
import io.fffs.datanode.store.MemoryUsage;
import io.fffs.datanode.store.WriteOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * Memory overhead of the multi-log (paper §7.4, Figure 12; issue 4, goal: sequential writes with 4 KiB pages ≤ 0.2%):
 * bytes of arena pages + block logs + page version indexes held per byte written, minus one, in percent — reported
 * as the secondary result {@code overheadPercent}. Scaled down from the paper's 128 MB to {@value #DATA_BYTES} bytes
 * per configuration. {@code seq} appends to a block; {@code random} first fills a block of the same size and then
 * writes {@value #DATA_BYTES} more bytes at random (unaligned) offsets within it, counting only what the random phase
 * adds. The primary result (time of one configuration) is incidental.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(1)
public class StoreMemoryOverheadBenchmark {
  static final int DATA_BYTES = 32 << 20;

  @Param({"512", "1024", "2048", "4096", "8192"})
  public int pageSize;

  @Param({"1024", "4096", "16384", "65536"})
  public int writeSize;

  @Param({"seq", "random"})
  public String pattern;

  private StoreBenchSupport support;
  private ByteBuffer data;

  /** The measured overhead, reported by JMH next to the time. */
  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Overhead {
    public double overheadPercent;
  }

  @Setup(Level.Iteration)
  public void setUp() throws IOException {
    // Random writes of 1 KiB into 8 KiB pages take up to 16x their size in pages.
    long capacity = 2L * DATA_BYTES + (long) DATA_BYTES / writeSize * 2L * pageSize + (8L << 20);
    support = new StoreBenchSupport(capacity, pageSize, false, PhysicalClock.system());
    byte[] bytes = new byte[writeSize];
    new Random(7).nextBytes(bytes);
    data = ByteBuffer.wrap(bytes);
  }

  @TearDown(Level.Iteration)
  public void tearDown() throws IOException {
    support.close();
  }

  @Benchmark
  public void writeAndMeasure(Overhead result) throws IOException {
    WriteOptions options = WriteOptions.defaults().withBlockSize(DATA_BYTES);
    long before = 0;
    if (pattern.equals("random")) {
      for (long offset = 0; offset < DATA_BYTES; offset += writeSize) {
        support.store.write(1, offset, data, options);
      }
      before = held(support.store.memoryUsage());
      Random random = new Random(11);
      for (long written = 0; written < DATA_BYTES; written += writeSize) {
        support.store.write(1, random.nextInt(DATA_BYTES - writeSize + 1), data, options);
      }
    } else {
      for (long offset = 0; offset < DATA_BYTES; offset += writeSize) {
        support.store.write(1, offset, data, options);
      }
    }
    long added = held(support.store.memoryUsage()) - before;
    result.overheadPercent = 100.0 * (added - DATA_BYTES) / DATA_BYTES;
  }

  private static long held(MemoryUsage usage) {
    return usage.residentPageBytes() + usage.logBytes() + usage.indexBytes();
  }
}
