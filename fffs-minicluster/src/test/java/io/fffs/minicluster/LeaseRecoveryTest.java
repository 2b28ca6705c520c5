package io.fffs.minicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FreezeFrameFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer that hflushed and then went silent: another client takes the file over after the soft limit, and the
 * recovered file keeps every hflushed byte (hflush does not call the NameNode; recovery takes the length the
 * DataNode reports).
 */
class LeaseRecoveryTest {
  @TempDir
  Path base;

  @Test
  void recoveryKeepsWhatTheSilentWriterHflushed() throws Exception {
    Configuration conf = new Configuration();
    conf.set("fffs.namenode.lease.soft-limit", "5s");  // the first append below must come within it
    conf.set("fffs.client.lease.renew-interval", "1h");  // the first writer will not renew: it is "gone"
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).build()) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/lease/f");
      byte[] flushed = new byte[300_000];
      Arrays.fill(flushed, (byte) 7);
      FreezeFrameFileSystem gone = cluster.getFileSystem();
      FSDataOutputStream out = gone.create(file, true);
      out.write(flushed);
      out.hflush();

      try (FreezeFrameFileSystem other = cluster.getFileSystem()) {
        assertThatThrownBy(() -> other.append(file)).isInstanceOf(IOException.class)
            .hasMessageContaining("LEASE_CONFLICT");
        try (FSDataOutputStream append = Leases.appendOnceTheLeaseLapses(other, file)) {
          append.write(new byte[] {1, 2, 3});
        }
        try (FSDataInputStream in = other.open(file)) {
          byte[] all = in.readAllBytes();
          assertThat(all).hasSize(flushed.length + 3);
          assertThat(Arrays.copyOf(all, flushed.length)).isEqualTo(flushed);
        }
      }
      // The first writer lost its lease and its file was closed and appended to meanwhile: its close must not
      // report success (as in HDFS, where it is a LeaseExpiredException).
      assertThatThrownBy(out::close).isInstanceOf(IOException.class).hasMessageContaining("LEASE_CONFLICT");
      gone.close();
    }
  }
}
