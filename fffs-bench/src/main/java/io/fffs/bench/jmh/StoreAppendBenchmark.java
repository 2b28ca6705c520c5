package io.fffs.bench.jmh;

import io.fffs.common.time.PhysicalClock;
import io.fffs.datanode.store.WriteOptions;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * Sequential append into a pre-touched arena vs a plain memcpy of the same bytes into pre-touched tmpfs memory
 * (issue 4, goal: append ≥ 50% of memcpy). Each invocation writes {@value #ROUND_BYTES} bytes in writes of
 * {@code writeSize} into 64 MiB blocks of a fresh store (persistence off, so only the append path is measured);
 * both results are milliseconds per round, so their ratio is the throughput ratio.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 8)
@Fork(1)
public class StoreAppendBenchmark {
  static final long ROUND_BYTES = 256L << 20;
  static final long BLOCK_BYTES = 64L << 20;

  @Param({"65536", "131072", "1048576"})
  public int writeSize;

  private ByteBuffer source;
  private Path copyFile;
  private RandomAccessFile copyTarget;
  private MappedByteBuffer copyMap;
  private long nextBlock;

  @Setup(Level.Trial)
  public void setUpSource() throws IOException {
    source = ByteBuffer.allocateDirect(writeSize);
    byte[] bytes = new byte[writeSize];
    ThreadLocalRandom.current().nextBytes(bytes);
    source.put(bytes).flip();
    copyFile = Files.createTempFile(Path.of("/dev/shm"), "fffs-bench-memcpy", ".bin");
    copyTarget = new RandomAccessFile(copyFile.toFile(), "rw");
    copyTarget.setLength(ROUND_BYTES);
    copyMap = copyTarget.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, ROUND_BYTES);
    for (int i = 0; i < ROUND_BYTES; i += 4096) {
      copyMap.put(i, (byte) 0);
    }
  }

  /** A fresh, fully pre-touched store per iteration (only the append benchmark uses it). */
  @State(Scope.Thread)
  public static class FreshStore {
    StoreBenchSupport support;

    @Setup(Level.Iteration)
    public void setUp() throws IOException {
      support = new StoreBenchSupport(ROUND_BYTES + (8L << 20), 4096, false, PhysicalClock.system());
    }

    @TearDown(Level.Iteration)
    public void tearDown() throws IOException {
      support.close();
    }
  }

  @TearDown(Level.Trial)
  public void tearDownCopy() throws IOException {
    copyTarget.close();
    Files.deleteIfExists(copyFile);
  }

  @Benchmark
  public long append(FreshStore fresh) throws IOException {
    StoreBenchSupport support = fresh.support;
    long block = nextBlock;
    nextBlock += ROUND_BYTES / BLOCK_BYTES;
    WriteOptions options = WriteOptions.defaults();
    long length = 0;
    for (long done = 0; done < ROUND_BYTES; done += writeSize) {
      long offset = done % BLOCK_BYTES;
      length += support.store.write(block + done / BLOCK_BYTES, offset, source, options).blockLength();
    }
    return length;
  }

  @Benchmark
  public long memcpy() {
    for (int done = 0; done < ROUND_BYTES; done += writeSize) {
      copyMap.put(done, source, 0, writeSize);
    }
    return copyMap.getLong(0);
  }
}
