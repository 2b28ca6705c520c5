package io.fffs.minicluster;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.GenericOptionsParser;

/**
 * A writer in a process of its own, for a test to kill: creates {@code fffs.test.writer.path} in
 * {@code fs.defaultFS}, prints {@code READY}, then writes {@link #pattern} bytes in 10,000-byte chunks for ever,
 * hflushing each and printing {@code flushed N} (the bytes hflushed so far) once its hflush returned.
 */
public final class KilledWriterMain {
  private KilledWriterMain() {}

  /** The byte at {@code offset} of the file. */
  static byte pattern(long offset) {
    return (byte) (offset * 31 + (offset >>> 9));
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    new GenericOptionsParser(conf, args);
    FileSystem fs = FileSystem.newInstance(FileSystem.getDefaultUri(conf), conf);
    FSDataOutputStream out = fs.create(new Path(conf.get("fffs.test.writer.path")));
    System.out.println("READY");
    System.out.flush();
    byte[] chunk = new byte[10_000];
    for (long written = 0; ; ) {
      for (int i = 0; i < chunk.length; i++) {
        chunk[i] = pattern(written + i);
      }
      out.write(chunk);
      out.hflush();
      written += chunk.length;
      System.out.println("flushed " + written);
      System.out.flush();
      Thread.sleep(2);
    }
  }
}
