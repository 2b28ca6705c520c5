package io.fffs.bench.wave;

import io.fffs.client.FffsClientConfigKeys;
import io.fffs.plugins.WaveUserTimeExtractor;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A cell's stream into FFFS: its own client, a file created with the {@code wave} user-time plug-in, latency mode
 * (each record goes out as its own write, so it is its own block-log entry stamped with its own HLC and user time)
 * and an hflush per record so readers see it.
 */
final class FffsSensorSink implements SensorSink {
  private final FileSystem fs;
  private final FSDataOutputStream out;

  private FffsSensorSink(FileSystem fs, FSDataOutputStream out) {
    this.fs = fs;
    this.out = out;
  }

  /** The client configuration of the writers: the plug-in, latency mode, one block per file. */
  static Configuration writerConf(Configuration base, long blockSize) {
    Configuration conf = new Configuration(base);
    conf.set(FffsClientConfigKeys.USERTIME_PLUGIN_KEY, WaveUserTimeExtractor.NAME);
    conf.setBoolean(DataTransferConfigKeys.LATENCY_MODE_KEY, true);
    conf.setLong(FffsClientConfigKeys.BLOCK_SIZE_KEY, blockSize);
    return conf;
  }

  static SensorSink.Factory factory(URI uri, Configuration writerConf, Path dir) {
    return cell -> {
      FileSystem fs = FileSystem.newInstance(uri, writerConf);
      try {
        return new FffsSensorSink(fs, fs.create(WaveFiles.cellFile(dir, cell), false));
      } catch (IOException | RuntimeException e) {
        fs.close();
        throw e;
      }
    };
  }

  @Override
  public void write(byte[] record) throws IOException {
    out.write(record);
    out.hflush();
  }

  @Override
  public void close() throws IOException {
    try {
      out.close();
    } finally {
      fs.close();
    }
  }
}
