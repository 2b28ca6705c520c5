package io.fffs.bench.wave;

import io.fffs.plugins.WaveRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Locale;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;

/** The experiment's file layout: one file per cell under one directory, a sequence of {@link WaveRecord}s. */
final class WaveFiles {
  private WaveFiles() {}

  static Path cellFile(Path dir, int cell) {
    return new Path(dir, String.format(Locale.ROOT, "cell-%04d", cell));
  }

  /**
   * The last whole record among a file's first {@code length} bytes, or null if there is none. A length that is
   * not a whole number of records (a reader saw half a record) is cut to the last whole one.
   */
  static WaveRecord lastRecord(FSDataInputStream in, long length) throws IOException {
    long whole = length / WaveRecord.BYTES * WaveRecord.BYTES;
    if (whole == 0) {
      return null;
    }
    byte[] bytes = new byte[WaveRecord.BYTES];
    in.readFully(whole - WaveRecord.BYTES, bytes);
    return WaveRecord.valueOf(ByteBuffer.wrap(bytes), 0);
  }
}
