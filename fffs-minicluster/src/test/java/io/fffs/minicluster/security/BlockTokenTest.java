package io.fffs.minicluster.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.data.BlockWriter;

import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockKeyProto;
import io.fffs.common.security.BlockAccessMode;
import io.fffs.common.security.BlockKey;
import io.fffs.common.security.BlockToken;
import io.fffs.common.security.BlockTokenConfigKeys;
import io.fffs.common.security.BlockTokenIssuer;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.RandomFiles;
import io.fffs.namenode.permission.Caller;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Block access tokens end to end: a client that skips the NameNode gets nothing from the data port; tokens that
 * expire during a long read or write are renewed; DataNodes accept tokens of the previous key after a roll.
 */
class BlockTokenTest {
  private static final long LIFETIME_MS = 1_500;

  @TempDir
  static Path base;
  static MiniFffsCluster cluster;
  static FreezeFrameFileSystem fs;
  static DataTransferClient raw;

  @BeforeAll
  static void start() throws IOException {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", 1 << 20);
    conf.setLong(BlockTokenConfigKeys.LIFETIME_KEY, LIFETIME_MS);
    conf.setInt("fffs.client.read.buffer-size", 4096);
    // A sequential read keeps this many bytes asked ahead (requests-in-flight x request-size): small, so that a
    // read paused past the tokens' lifetime still has to ask the DataNode again.
    conf.setInt("fffs.client.read.request-size", 4096);
    // The data port's checks; short-circuit reads are refused the same way (ShortCircuitReadTest).
    conf.setBoolean("fffs.client.read.shortcircuit", false);
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(1).build();
    fs = cluster.getFileSystem();
    raw = DataTransferClients.tcp(conf, new HybridLogicalClock(PhysicalClock.system(), conf));
  }

  @AfterAll
  static void stop() throws IOException {
    if (raw != null) {
      raw.close();
    }
    if (fs != null) {
      fs.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static byte[] write(String path, int length, long seed) throws IOException {
    return RandomFiles.write(fs, path, length, seed);
  }

  private static LocatedBlockProto firstBlock(String path) throws IOException {
    return cluster.getNameNode().namesystem().queries.getBlockLocations(Caller.current(), path, TimeSpec.latest(),
        0, Long.MAX_VALUE).getBlocks(0);
  }

  private static BlockTokenIssuer issuer() {
    return cluster.getNameNode().namesystem().blockTokens;
  }

  /** The NameNode's key that signs now, as a test holding the secret sees it. */
  private static BlockKey currentKey() {
    int id = issuer().currentKeyId();
    for (BlockKeyProto key : issuer().exportKeys().getKeysList()) {
      if (key.getKeyId() == id) {
        return BlockKey.fromProto(key);
      }
    }
    throw new AssertionError("no current key");
  }

  private static byte[] read(DatanodeIdProto dn, long blockId, BlockToken token, int length) throws IOException {
    ByteBuffer dst = ByteBuffer.allocate(length);
    raw.read(dn, blockId, token, 0, dst, TimeSpec.latest());
    return Arrays.copyOf(dst.array(), dst.position());
  }

  private static void assertDenied(ThrowingCall call, String... fragments) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(FffsException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      for (String fragment : fragments) {
        assertThat(e.detail()).contains(fragment);
      }
    });
  }

  @FunctionalInterface
  interface ThrowingCall {
    void run() throws Exception;
  }

  @Test
  void aClientThatSkipsTheNameNodeIsRefusedAndGetsNoData() throws Exception {
    byte[] data = write("/raw-a", 10_000, 1);
    write("/raw-b", 100, 2);
    LocatedBlockProto a = firstBlock("/raw-a");
    LocatedBlockProto b = firstBlock("/raw-b");
    long blockA = a.getBlock().getBlockId();
    DatanodeIdProto dn = a.getLocations(0);
    BlockToken readA = issuer().issue(blockA, BlockAccessMode.READ, "bob");
    BlockToken readB = issuer().issue(b.getBlock().getBlockId(), BlockAccessMode.READ, "bob");

    // With the NameNode's token: the data.
    assertThat(read(dn, blockA, readA, data.length)).isEqualTo(data);

    // No token, for every operation.
    assertDenied(() -> read(dn, blockA, null, data.length),
        "READ of block " + blockA + " refused: the request carries no block access token");
    assertDenied(() -> raw.blockInfo(dn, blockA, null, TimeSpec.latest()), "BLOCK_INFO of block " + blockA);
    assertDenied(() -> raw.blockLog(dn, blockA, null, 0, 0, 10), "BLOCK_LOG of block " + blockA);
    assertThat(raw.blockLog(dn, blockA, readA, 0, 0, 10).getEntriesCount()).as("with the token").isPositive();
    assertDenied(() -> raw.blockChecksum(dn, blockA, null, 100, TimeSpec.latest()), "BLOCK_CHECKSUM of block "
        + blockA);
    assertThat(raw.blockChecksum(dn, blockA, readA, data.length, TimeSpec.latest()).getCrcs()).as("with the token")
        .isEqualTo((data.length + 511) / 512);
    assertDenied(() -> raw.sync(dn, List.of(blockA), List.of()), "SYNC of block " + blockA);
    assertDenied(() -> raw.truncate(dn, blockA, null, 0), "TRUNCATE of block " + blockA);
    // Forged: the fields changed, the MAC kept.
    BlockToken forged = readA.tamperedWith(blockA, BlockAccessMode.READ, "mallory", readA.expiryMillis() + 3_600_000);
    assertDenied(() -> read(dn, blockA, forged, data.length), "has a bad signature");
    // Signed with a key the NameNode never had.
    BlockToken ownKey = BlockToken.sign(new BlockKey(7, new byte[32], Long.MAX_VALUE), blockA,
        BlockAccessMode.READ, "mallory", Long.MAX_VALUE);
    assertDenied(() -> read(dn, blockA, ownKey, data.length), "signed with key 7, which this DataNode does not know");
    // Expired (signed with the real key, so only the time is wrong).
    BlockToken expired = BlockToken.sign(currentKey(), blockA, BlockAccessMode.READ, "bob",
        System.currentTimeMillis() - 1_000);
    assertDenied(() -> read(dn, blockA, expired, data.length), "READ token of bob expired at");
    // Another block's token.
    assertDenied(() -> read(dn, blockA, readB, data.length),
        "its token is for block " + b.getBlock().getBlockId() + ", not this one");
    // A READ token used to write, sync or truncate.
    try (BlockWriter writer = raw.openWriter(dn, blockA, readA, new WriteOptions(1 << 20, null))) {
      writer.write(0, ByteBuffer.wrap(new byte[100]));
      assertDenied(writer::flush, "WRITE of block " + blockA, "grants READ, not WRITE");
    } catch (FffsException e) {
      assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED);  // close() reports the same failure
    }
    assertDenied(() -> raw.sync(dn, List.of(blockA), List.of(readA)), "grants READ, not WRITE");
    assertDenied(() -> raw.truncate(dn, blockA, readA, 0), "grants READ, not WRITE");

    // Nothing was changed: the block still holds exactly the data, through the file system too.
    assertThat(read(dn, blockA, readA, data.length + 10)).isEqualTo(data);
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/raw-a"))) {
      in.readFully(0, back);
    }
    assertThat(back).isEqualTo(data);
    assertThat(fs.getFileChecksum(new org.apache.hadoop.fs.Path("/raw-a")).getAlgorithmName())
        .as("the file system's own checksum, with the NameNode's tokens").isEqualTo("MD5-of-0MD5-of-512CRC32C");
    assertThat(cluster.getDataNode(0).serverStats().accessDenied.sum()).isGreaterThanOrEqualTo(13);
  }

  @Test
  void longReadsAndWritesOutliveTheirTokens() throws Exception {
    byte[] data = new byte[64 * 1024];
    new Random(3).nextBytes(data);
    try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path("/long"))) {
      for (int i = 0; i < 8; i++) {
        out.write(data, i * 8192, 8192);
        out.hsync();  // each piece goes out with the token it has then; some are past their half-life
        Thread.sleep(LIFETIME_MS / 3);
      }
    }
    long deniedBefore = cluster.getDataNode(0).serverStats().accessDenied.sum();
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/long"))) {
      in.readFully(back, 0, 4096);
      Thread.sleep(LIFETIME_MS + 500);  // the stream's tokens are expired now
      in.readFully(back, 4096, data.length - 4096);
    }
    assertThat(back).isEqualTo(data);
    // The DataNode did refuse the expired token once; the stream asked the NameNode again and went on.
    assertThat(cluster.getDataNode(0).serverStats().accessDenied.sum()).isGreaterThan(deniedBefore);
  }

  @Test
  void writesAfterAnHsyncThatRenewedTheTokensUseTheNewOnes() throws Exception {
    byte[] data = new byte[16 * 1024];
    new Random(5).nextBytes(data);
    try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path("/renewed"))) {
      out.write(data, 0, 8192);
      out.hflush();
      // Past the first token's half-life, the hsync renews the tokens with nothing to send. The next write comes
      // after the first token has expired but before the new one is due for renewal: only the new token works.
      Thread.sleep(LIFETIME_MS * 9 / 10);
      out.hsync();
      Thread.sleep(LIFETIME_MS * 3 / 10);
      out.write(data, 8192, 8192);
      out.hsync();
    }
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/renewed"))) {
      in.readFully(back);
    }
    assertThat(back).isEqualTo(data);
  }

  @Test
  void dataNodesAcceptTokensOfThePreviousKeyAfterARoll() throws Exception {
    byte[] data = write("/roll", 5_000, 4);
    LocatedBlockProto block = firstBlock("/roll");
    long blockId = block.getBlock().getBlockId();
    DatanodeIdProto dn = block.getLocations(0);
    BlockToken old = issuer().issue(blockId, BlockAccessMode.READ, "bob");
    issuer().roll();
    BlockToken fresh = issuer().issue(blockId, BlockAccessMode.READ, "bob");
    assertThat(fresh.keyId()).isNotEqualTo(old.keyId());
    // The new current key was distributed as the "next" key before the roll: it works at once.
    assertThat(read(dn, blockId, fresh, data.length)).isEqualTo(data);
    // After the next heartbeat the DataNode's set is the rolled one; the previous key still verifies.
    java.util.Set<Integer> rolled = new java.util.TreeSet<>();
    issuer().exportKeys().getKeysList().forEach(k -> rolled.add(k.getKeyId()));
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!cluster.getDataNode(0).blockKeys().keyIds().equals(rolled) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(cluster.getDataNode(0).blockKeys().keyIds()).isEqualTo(rolled).contains(old.keyId());
    assertThat(read(dn, blockId, old, data.length)).isEqualTo(data);
  }
}
