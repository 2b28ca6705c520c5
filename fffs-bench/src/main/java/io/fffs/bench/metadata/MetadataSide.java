package io.fffs.bench.metadata;

import io.fffs.bench.metadata.ThroughputRunner.Measurement;
import java.io.IOException;

/**
 * One contender of the metadata benchmark: a cluster and its clients, either in this JVM ({@link LocalSide}) or in
 * a JVM of its own ({@link ChildSide}), which is how a NameNode and its clients run in practice and keeps the
 * other system's threads, heap and compiled code out of the measurement.
 */
interface MetadataSide extends AutoCloseable {

  /** What a measurement runs; {@link #STAT_PAST} only on FFFS. */
  enum Measured {
    CREATE, MKDIRS, STAT, STAT_PAST, LIST
  }

  /** "FFFS", "HDFS", "FFFS-HA" or "HDFS-HA". */
  String name();

  /**
   * Creates the 1,000-file listing directory; on FFFS then takes the past time; then gives every listing file a
   * newer state (new times), so that a lookup at the past time has to reach behind it; on FFFS checks that it does.
   */
  void prepare() throws IOException;

  /** Runs {@code op} on {@code threads} clients for {@code nanos}. */
  Measurement run(Measured op, int threads, long nanos) throws IOException;

  /**
   * HA sides: stops the leading NameNode and returns the milliseconds from then to the first file created and
   * closed through the new leader.
   */
  long failoverMillis() throws IOException;

  @Override
  void close() throws IOException;
}
