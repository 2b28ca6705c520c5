package io.fffs.dist;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.io.InputStream;
import org.apache.hadoop.fs.Path;

/** What the cluster tests write and read back: patterned bytes, and a file's contents now or at a past time. */
final class FileContents {
  private FileContents() {}

  /** {@code size} bytes of a pattern that differs with {@code seed}. */
  static byte[] bytes(int size, int seed) {
    byte[] data = new byte[size];
    for (int i = 0; i < size; i++) {
      data[i] = (byte) (seed * 31 + i * 7);
    }
    return data;
  }

  /** The contents of {@code file} at {@code time}, or now when it is null. */
  static byte[] read(FreezeFrameFileSystem fs, Path file, TimeSpec time) throws IOException {
    try (InputStream in = time == null ? fs.open(file) : fs.open(file, time)) {
      return in.readAllBytes();
    }
  }
}
