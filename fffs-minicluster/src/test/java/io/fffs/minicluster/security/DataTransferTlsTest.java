package io.fffs.minicluster.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.security.BlockAccessMode;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.RandomFiles;
import io.fffs.minicluster.TlsKeys;
import io.fffs.namenode.permission.Caller;
import io.fffs.protocol.DataTransferTls;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fffs.data.transfer.protection=privacy}: the data port runs TLS with the DataNode's certificate; a client
 * that trusts it writes and reads as usual, a client that speaks plain TCP gets nothing, and one that does not trust
 * the certificate neither.
 */
class DataTransferTlsTest {
  private static final String PASSWORD = "store-password";

  @TempDir
  static Path base;
  static MiniFffsCluster cluster;
  static Configuration tls;

  @BeforeAll
  static void start() throws Exception {
    tls = new Configuration();
    tls.setLong("fffs.blocksize", 1 << 20);
    tls.set("fffs.transport", "tcp");
    tls.set(DataTransferTls.PROTECTION_KEY, "privacy");
    TlsKeys.create(base, PASSWORD, tls);
    // An arena smaller than the data: some reads come from segment files (copied into buffers for TLS).
    cluster = MiniFffsCluster.builder().baseDir(base.resolve("cluster")).conf(tls).numDataNodes(1)
        .memoryCapacity(4L << 20).build();
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aClientThatTrustsTheDataNodeWritesAndReadsOverTls() throws Exception {
    try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      byte[][] written = new byte[3][];
      for (int i = 0; i < written.length; i++) {
        written[i] = RandomFiles.write(fs, "/tls-" + i, 3 << 20, 7 + i);  // three blocks each
      }
      for (int i = 0; i < written.length; i++) {
        try (InputStream in = fs.open(new org.apache.hadoop.fs.Path("/tls-" + i))) {
          assertThat(in.readAllBytes()).isEqualTo(written[i]);
        }
      }
      // 9 MiB read back whole through a 4 MiB arena: some of it came from segment files.
      assertThat(cluster.getDataNode(0).store().memoryUsage().residentPageBytes()).isLessThan(9L << 20);
    }
  }

  @Test
  void aPlainClientAndOneThatDoesNotTrustTheCertificateGetNothing() throws Exception {
    try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      RandomFiles.write(fs, "/tls-only", 10_000, 8);
    }
    LocatedBlockProto block = cluster.getNameNode().namesystem().queries.getBlockLocations(Caller.current(),
        "/tls-only", TimeSpec.latest(), 0, Long.MAX_VALUE).getBlocks(0);
    BlockToken read = cluster.getNameNode().namesystem().blockTokens.issue(block.getBlock().getBlockId(),
        BlockAccessMode.READ, "test");

    Configuration plain = new Configuration(tls);
    plain.set(DataTransferTls.PROTECTION_KEY, "authentication");
    plain.setTimeDuration("fffs.client.response.timeout", 5, TimeUnit.SECONDS);
    assertRefused(plain, block, read);

    Configuration untrusting = new Configuration(tls);
    untrusting.set(DataTransferTls.TRUSTSTORE_KEY, Paths.get(System.getProperty("java.home"), "lib", "security",
        "cacerts").toString());
    untrusting.set(DataTransferTls.TRUSTSTORE_PASSWORD_KEY, "changeit");
    assertRefused(untrusting, block, read);
  }

  private static void assertRefused(Configuration conf, LocatedBlockProto block, BlockToken token)
      throws IOException {
    try (DataTransferClient client = DataTransferClients.tcp(conf,
        new HybridLogicalClock(PhysicalClock.system(), conf))) {
      ByteBuffer into = ByteBuffer.allocate(10_000);
      assertThatThrownBy(() -> client.read(block.getLocations(0), block.getBlock().getBlockId(), token, 0, into,
          TimeSpec.latest())).isInstanceOf(IOException.class);
      assertThat(into.position()).isZero();
    }
  }
}
