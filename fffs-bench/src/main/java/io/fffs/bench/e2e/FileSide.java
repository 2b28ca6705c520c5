package io.fffs.bench.e2e;

import java.io.IOException;

/**
 * One system of the throughput benchmark — its cluster and its clients — in this JVM ({@link LocalFileSide}) or in
 * a JVM of its own ({@link ChildFileSide}). Rates are GB/s (10^9 bytes per second) of one whole-file write or read
 * through the Hadoop {@code FileSystem} API ({@link FileIo}).
 */
interface FileSide extends AutoCloseable {
  String name();

  /**
   * Not measured: JIT warm-up passes ({@link JitWarmUp}), {@code minPasses} to {@code maxPasses} of them until the
   * JIT has settled. A pass writes a scratch file per packet size ({@link JitWarmUp#bytesPerPacket}), in calls of
   * that size through the client that will be measured with it, reads it {@link LocalFileSide#WARM_UP_READS} times
   * and deletes it.
   */
  JitWarmUp.Result warmUp(int[] packets, long passBytes, int minPasses, int maxPasses) throws IOException;

  /** Creates {@code path} and writes {@code total} bytes in {@code packet}-sized calls with that packet size. */
  double write(String path, long total, int packet) throws IOException;

  /**
   * Reads {@code path} ({@code total} bytes) in {@code packet}-sized calls, through the client of that packet size;
   * for FFFS, {@code readBuffer} > 0 also sets {@code fffs.client.read.buffer-size}.
   */
  double read(String path, long total, int packet, int readBuffer) throws IOException;

  /** Bytes the DataNode has persisted so far (FFFS; always 0 for HDFS, which writes through the page cache). */
  long persistedBytes() throws IOException;

  /** Waits until persistence has gone quiet (FFFS; at once for HDFS); the seconds waited. */
  double awaitQuiet() throws IOException;

  @Override
  void close() throws IOException;
}
