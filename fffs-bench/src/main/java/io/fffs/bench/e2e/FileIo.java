package io.fffs.bench.e2e;

import io.fffs.datanode.store.StoreStats;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.util.Random;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Timed whole-file writes and reads through the Hadoop {@code FileSystem} API, the same code for every system. */
public final class FileIo {
  private FileIo() {}

  /** Incompressible bytes, the same for every system. */
  public static byte[] randomBytes(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  /** Creates {@code path} and writes {@code total} bytes in {@code write}-sized calls, then closes it. GB/s. */
  public static double write(FileSystem fs, Path path, long total, byte[] write) throws IOException {
    long start = System.nanoTime();
    try (FSDataOutputStream out = fs.create(path, true)) {
      for (long n = 0; n < total; n += write.length) {
        out.write(write, 0, (int) Math.min(write.length, total - n));
      }
    }
    return total / (double) (System.nanoTime() - start);
  }

  /** Reads {@code in} to its end in {@code buffer}-sized calls and closes it; checks the length. GB/s. */
  static double readAll(FSDataInputStream in, long expected, byte[] buffer, long startNanos) throws IOException {
    long n = 0;
    try (in) {
      for (int r; (r = in.read(buffer, 0, buffer.length)) > 0; ) {
        n += r;
      }
    }
    long nanos = System.nanoTime() - startNanos;
    if (n != expected) {
      throw new IOException("read " + n + " bytes, expected " + expected);
    }
    return n / (double) nanos;
  }

  public static double read(FileSystem fs, Path path, long expected, byte[] buffer) throws IOException {
    long start = System.nanoTime();
    return readAll(fs.open(path), expected, buffer, start);
  }

  /**
   * Warms the JIT up on both paths of one system (write then read {@code bytes} in 64 KiB calls to a scratch file),
   * so that the first measured phase of a run does not pay for compilation. Not measured.
   */
  public static void warmUp(FileSystem fs, long bytes) throws IOException {
    Path path = new Path("/warm-up/" + System.nanoTime());
    byte[] data = randomBytes(64 << 10, 9);
    write(fs, path, bytes, data);
    read(fs, path, bytes, data);
    read(fs, path, bytes, data);
  }

  /**
   * Waits until the FFFS DataNode's persistence thread has gone quiet (no bytes persisted for 300 ms, at most 60 s),
   * so that its disk writes of one phase do not run into the next. Returns the seconds waited.
   */
  static double awaitPersistenceQuiet(MiniFffsCluster cluster) throws IOException {
    StoreStats stats = cluster.getDataNode(0).store().stats();
    long start = System.nanoTime();
    long last = -1;
    long quietSince = System.nanoTime();
    while (System.nanoTime() - start < 60_000_000_000L) {
      long persisted = stats.bytesPersisted.sum();
      if (persisted != last) {
        last = persisted;
        quietSince = System.nanoTime();
      } else if (System.nanoTime() - quietSince > 300_000_000L) {
        break;
      }
      Clusters.sleep(20);
    }
    return (System.nanoTime() - start) / 1e9;
  }
}
