package io.fffs.minicluster;

import java.io.IOException;
import java.util.Random;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Test files of seeded random bytes. */
public final class RandomFiles {
  private RandomFiles() {}

  /** (Over)writes {@code path} with {@code length} random bytes from {@code seed}; returns them. */
  public static byte[] write(FileSystem fs, String path, int length, long seed) throws IOException {
    byte[] data = new byte[length];
    new Random(seed).nextBytes(data);
    try (FSDataOutputStream out = fs.create(new Path(path), true)) {
      out.write(data);
    }
    return data;
  }
}
