package io.fffs.bench.jmh;

import io.fffs.common.time.PhysicalClock;
import io.fffs.datanode.store.MultiLogBlockStore;
import io.fffs.datanode.store.WriteOptions;
import io.fffs.protocol.frame.ChunkChecksums;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
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

/**
 * Append throughput with persistence on vs off while the data fits in memory (paper §7.3, Figure 9; issue 4, goal:
 * on ≥ 90% of off). Each invocation appends {@value #ROUND_BYTES} bytes in writes of {@code writeSize} to a fresh,
 * pre-touched store whose arena holds all of it; with persistence on, the persistence thread writes the same bytes
 * to segment files on the local disk (temporary directory) at the same time, and the writer never waits for it. The
 * backlog is drained after the measurement (in the iteration's tear-down). Milliseconds per round.
 *
 * <p>{@code appendUntilDurable} also waits, inside the measurement, until every block is durable ({@code sync}):
 * the rate at which data reaches the disk, which the persistence thread's cost decides as much as the disk.
 *
 * <p>{@code mode}: {@code off} (persistence disabled), {@code direct} (segment files written with O_DIRECT) or
 * {@code page-cache} (written through the page cache, {@code fffs.datanode.persistence.direct-io=false}).
 *
 * <p>{@code chunkCrcs}: {@code given} hands each write its CRC32C per 512-byte chunk, as the data server does with
 * the checksums it checked on arrival (computed once here, outside the measurement), so persistence derives the
 * page CRCs from them; {@code none} writes bare bytes, and persistence checksums every page it writes.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 8)
@Fork(1)
public class StorePersistenceBenchmark {
  static final long ROUND_BYTES = 256L << 20;
  static final long BLOCK_BYTES = 64L << 20;

  @Param({"direct", "page-cache", "off"})
  public String mode;

  @Param({"131072", "1048576"})
  public int writeSize;

  @Param({"given", "none"})
  public String chunkCrcs;

  private StoreBenchSupport support;
  private ByteBuffer source;
  private WriteOptions options;

  @Setup(Level.Iteration)
  public void setUp() throws IOException {
    support = new StoreBenchSupport(ROUND_BYTES + (8L << 20), 4096, !mode.equals("off"), PhysicalClock.system(),
        mode.equals("page-cache") ? "false" : "true");
    byte[] bytes = new byte[writeSize];
    ThreadLocalRandom.current().nextBytes(bytes);
    source = ByteBuffer.allocateDirect(writeSize).put(bytes).flip();
    options = chunkCrcs.equals("given") ? WriteOptions.defaults().withChunkCrcs(ChunkChecksums.of(source))
        : WriteOptions.defaults();
  }

  @TearDown(Level.Iteration)
  public void tearDown() throws IOException {
    support.close();
  }

  @Benchmark
  public long append() throws IOException {
    return appendRound(support.store, source, options);
  }

  @Benchmark
  public long appendUntilDurable() throws IOException {
    long length = append();
    if (!mode.equals("off")) {
      syncRound(support.store);
    }
    return length;
  }

  /** Appends {@value #ROUND_BYTES} bytes as writes of {@code source} to blocks of {@value #BLOCK_BYTES} bytes. */
  static long appendRound(MultiLogBlockStore store, ByteBuffer source, WriteOptions options) throws IOException {
    int writeSize = source.remaining();
    long length = 0;
    for (long done = 0; done < ROUND_BYTES; done += writeSize) {
      length += store.write(done / BLOCK_BYTES, done % BLOCK_BYTES, source, options).blockLength();
    }
    return length;
  }

  /** Returns once every block {@link #appendRound} wrote is durable. */
  static void syncRound(MultiLogBlockStore store) throws IOException {
    List<Long> blocks = new ArrayList<>();
    for (long block = 0; block * BLOCK_BYTES < ROUND_BYTES; block++) {
      blocks.add(block);
    }
    store.sync(blocks);
  }
}
