package io.fffs.minicluster;

import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Waiting out another writer's lease in tests. */
public final class Leases {
  private Leases() {}

  /**
   * Opens {@code file} for append once its writer's lease has lapsed: refused with {@code LEASE_CONFLICT} until then,
   * 30 s at most; any other failure is thrown at once.
   */
  public static FSDataOutputStream appendOnceTheLeaseLapses(FileSystem fs, Path file) throws Exception {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      try {
        return fs.append(file);
      } catch (IOException e) {
        if (!String.valueOf(e.getMessage()).contains("LEASE_CONFLICT") || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
  }
}
