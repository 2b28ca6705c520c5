package io.fffs.bench.wave;

import java.io.Closeable;
import java.io.IOException;

/** Where one sensor stream's records go: one cell's file, written by that stream's own client. */
interface SensorSink extends Closeable {
  /** Stores one record; returns once a new reader of the file can see it. */
  void write(byte[] record) throws IOException;

  /** Opens the sink of one cell (each gets its own client). */
  @FunctionalInterface
  interface Factory {
    SensorSink open(int cell) throws IOException;
  }
}
