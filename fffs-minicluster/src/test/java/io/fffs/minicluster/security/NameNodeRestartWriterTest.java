package io.fffs.minicluster.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.security.BlockTokenIssuer;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A NameNode restart does not fail writers in flight: the block-token keys are logged, so the restarted NameNode
 * signs with the same keys and the DataNodes go on accepting the tokens the writers hold.
 */
class NameNodeRestartWriterTest {
  private static final int BLOCK = 256 * 1024;

  @TempDir
  static Path base;
  static MiniFffsCluster cluster;
  static FreezeFrameFileSystem fs;

  @BeforeAll
  static void start() throws IOException {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", BLOCK);
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(2).build();
    fs = cluster.getFileSystem();
  }

  @AfterAll
  static void stop() throws IOException {
    if (fs != null) {
      fs.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static BlockTokenIssuer issuer() {
    return cluster.getNameNode().namesystem().blockTokens;
  }

  /**
   * Restarts the NameNode, then lets a query (which the client retries) replace the client's pooled IPC connection
   * to the stopped one: retrying a change such as addBlock on a broken connection needs a retry cache, which is not
   * what this test is about.
   */
  private static void restartNameNode() throws IOException {
    cluster.restartNameNode();
    fs.getFileStatus(new org.apache.hadoop.fs.Path("/"));
  }

  @Test
  void aWriteInFlightCompletesAcrossNameNodeRestartsWithItsBytesIntact() throws Exception {
    byte[] data = new byte[3 * BLOCK + 1000];
    new Random(34).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/in-flight");
    int keyBefore = issuer().currentKeyId();
    try (FSDataOutputStream out = fs.create(file)) {
      out.write(data, 0, 100_000);
      out.hsync();
      restartNameNode();
      // Same block, with the token from before the restart; then past the block's end (a new block, a new token).
      out.write(data, 100_000, BLOCK);
      out.hsync();
      assertThat(issuer().currentKeyId()).isEqualTo(keyBefore);
      // A roll, logged, then another restart: the rolled key is the one that signs after it.
      issuer().roll();
      int rolled = issuer().currentKeyId();
      assertThat(rolled).isNotEqualTo(keyBefore);
      restartNameNode();
      assertThat(issuer().currentKeyId()).isEqualTo(rolled);
      out.write(data, 100_000 + BLOCK, data.length - 100_000 - BLOCK);
    }
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs.open(file)) {
      in.readFully(back);
    }
    assertThat(back).isEqualTo(data);
    assertThat(fs.getFileStatus(file).getLen()).isEqualTo(data.length);
  }
}
