package io.fffs.bench.wave;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A cell's stream into HDFS as the paper wrote it: its own client, and after each record the file is closed and
 * reopened for append, so the NameNode learns the new length (which a snapshot records).
 */
final class HdfsSensorSink implements SensorSink {
  private final FileSystem fs;
  private final Path file;

  private HdfsSensorSink(FileSystem fs, Path file) {
    this.fs = fs;
    this.file = file;
  }

  static SensorSink.Factory factory(URI uri, Configuration conf, Path dir) {
    return cell -> {
      FileSystem fs = FileSystem.newInstance(uri, conf);
      Path file = WaveFiles.cellFile(dir, cell);
      try {
        fs.create(file, false).close();
        return new HdfsSensorSink(fs, file);
      } catch (IOException | RuntimeException e) {
        fs.close();
        throw e;
      }
    };
  }

  @Override
  public void write(byte[] record) throws IOException {
    try (FSDataOutputStream out = fs.append(file)) {
      out.write(record);
    }
  }

  @Override
  public void close() throws IOException {
    fs.close();
  }
}
