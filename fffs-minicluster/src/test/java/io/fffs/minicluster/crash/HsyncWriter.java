package io.fffs.minicluster.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;

/**
 * Appends random chunks to new files, {@code hsync}ing after each and reading the file as of just after the hsync;
 * a file that grows past a few blocks is closed and the next one begun. {@link #synced} holds, per file, the bytes
 * the last acknowledged hsync made durable: a crash may keep more (later unacknowledged writes), never less.
 */
final class HsyncWriter extends Worker {
  private static final int MAX_FILE = 1 << 20;
  final Map<Path, byte[]> synced = new LinkedHashMap<>();
  private final String prefix;

  HsyncWriter(Configuration conf, String prefix, long seed) {
    super(conf, seed);
    this.prefix = prefix;
  }

  @Override
  void work(FreezeFrameFileSystem fs) throws IOException {
    for (int n = 0; !stop; n++) {
      Path path = new Path(prefix + "-" + n);
      FSDataOutputStream out = fs.create(path, true);
      synced.put(path, new byte[0]);  // acknowledged: the create returned
      byte[] content = new byte[0];
      while (!stop && content.length < MAX_FILE) {
        byte[] chunk = new byte[1 + random.nextInt(40_000)];
        random.nextBytes(chunk);
        out.write(chunk);
        content = concat(content, chunk);
        out.hsync();
        synced.put(path, content);
        PastRead read = readPast(fs, path);
        assertThat(read.bytes()).as("%s read at %d right after an hsync", path, read.micros()).isEqualTo(content);
      }
      out.close();
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] joined = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, joined, a.length, b.length);
    return joined;
  }
}
