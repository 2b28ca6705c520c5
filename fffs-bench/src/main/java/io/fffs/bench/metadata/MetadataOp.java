package io.fffs.bench.metadata;

import java.io.IOException;
import org.apache.hadoop.fs.FileSystem;

/** One metadata operation under test, run by many threads, each on its own {@link FileSystem} client. */
@FunctionalInterface
public interface MetadataOp {

  /**
   * Prepares one thread's share of a measurement before the clock starts (for example its own directory, so the
   * threads' creates never collide) and returns what that thread repeats.
   *
   * @param fs the thread's own client
   * @param thread the thread's index, 0-based
   * @param run a number unique to this warm-up or measurement, so names never repeat across runs
   */
  Action prepare(FileSystem fs, int thread, int run) throws IOException;

  /** The operation proper; {@code i} counts this thread's calls from 0. */
  @FunctionalInterface
  interface Action {
    void run(long i) throws IOException;
  }
}
