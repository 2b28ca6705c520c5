package io.fffs.minicluster.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a DataNode's segment scrubber finds reaches the NameNode's /status with the next heartbeats. */
class ScrubberStatusTest {
  @TempDir
  Path base;

  private static String status(MiniFffsCluster cluster) throws Exception {
    try (InputStream in = new URL(cluster.getHttpURI() + "/status").openStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String awaitStatus(MiniFffsCluster cluster, java.util.function.Predicate<String> done)
      throws Exception {
    String status = status(cluster);
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!done.test(status) && System.nanoTime() < deadline) {
      Thread.sleep(50);
      status = status(cluster);
    }
    return status;
  }

  @Test
  void damageFoundByTheScrubberShowsInStatus() throws Exception {
    Configuration conf = new Configuration();
    conf.set("fffs.datanode.scrubber.bytes-per-second", "1g");
    conf.set("fffs.datanode.scrubber.interval", "100ms");
    conf.set("fffs.datanode.heartbeat.interval", "100ms");
    conf.set("fffs.datanode.segment.file.size", "64k");
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).build();
        FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path("/scrub/f"), true)) {
        for (int i = 0; i < 8; i++) {
          out.write(new byte[100_000]);
          out.hsync();
        }
      }
      String clean = awaitStatus(cluster, s -> !s.contains("\"scrubBytesVerified\":0,"));
      assertThat(clean).contains("\"scrubCorruptions\":0").doesNotContain("\"scrubBytesVerified\":0,");

      List<Path> segments = new ArrayList<>();
      try (DirectoryStream<Path> files = Files.newDirectoryStream(base.resolve("dn-0").resolve("data"),
          "seg-*.log")) {
        files.forEach(segments::add);
      }
      segments.sort(null);
      Path victim = segments.get(0);
      try (RandomAccessFile file = new RandomAccessFile(victim.toFile(), "rw")) {
        long at = file.length() / 2;
        file.seek(at);
        int b = file.read();
        file.seek(at);
        file.write(b ^ 0xff);
      }
      String damaged = awaitStatus(cluster, s -> s.contains("\"scrubCorruptions\":1"));
      assertThat(damaged).contains("\"scrubCorruptions\":1").contains("CORRUPT: segment file " + victim);
    }
  }
}
