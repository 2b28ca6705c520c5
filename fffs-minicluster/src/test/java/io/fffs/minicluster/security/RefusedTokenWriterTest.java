package io.fffs.minicluster.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.security.BlockAccessMode;
import io.fffs.common.security.BlockTokenIssuer;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.permission.Caller;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer whose token the DataNodes no longer accept (the NameNode replaced every key, as one upgraded from a
 * release that kept no keys does) asks for fresh tokens and sends again what was not applied: the write completes
 * with every byte once.
 */
class RefusedTokenWriterTest {
  private static final int BLOCK = 256 * 1024;

  @TempDir
  static Path base;
  static MiniFffsCluster cluster;
  static FreezeFrameFileSystem fs;
  static DataTransferClient raw;

  @BeforeAll
  static void start() throws IOException {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", BLOCK);
    conf.setInt("fffs.replication", 2);
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(2).build();
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

  private static BlockTokenIssuer issuer() {
    return cluster.getNameNode().namesystem().blockTokens;
  }

  /** Replaces the NameNode's keys and waits until every DataNode has only the new ones. */
  private static void replaceKeysEverywhere(int old) throws Exception {
    issuer().replaceAllKeys();
    Set<Integer> fresh = new TreeSet<>();
    issuer().exportKeys().getKeysList().forEach(key -> fresh.add(key.getKeyId()));
    assertThat(fresh).doesNotContain(old);
    for (int i = 0; i < 2; i++) {
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (!cluster.getDataNode(i).blockKeys().keyIds().equals(fresh) && System.nanoTime() < deadline) {
        cluster.getDataNode(i).triggerHeartbeat();
        Thread.sleep(20);
      }
      assertThat(cluster.getDataNode(i).blockKeys().keyIds()).isEqualTo(fresh);
    }
  }

  /** Every replica of every block of {@code path} holds exactly its part of {@code data}: none missed a resend. */
  private static void assertEveryReplicaHolds(String path, byte[] data) throws IOException {
    long offset = 0;
    for (LocatedBlockProto block : cluster.getNameNode().namesystem().queries.getBlockLocations(Caller.current(),
        path, TimeSpec.latest(), 0, Long.MAX_VALUE).getBlocksList()) {
      long blockId = block.getBlock().getBlockId();
      int length = (int) Math.min(BLOCK, data.length - offset);
      assertThat(block.getLocationsCount()).isEqualTo(2);
      for (DatanodeIdProto replica : block.getLocationsList()) {
        ByteBuffer dst = ByteBuffer.allocate(length + 1);
        raw.read(replica, blockId, issuer().issue(blockId, BlockAccessMode.READ, "test"), 0, dst,
            TimeSpec.latest());
        assertThat(Arrays.copyOf(dst.array(), dst.position()))
            .isEqualTo(Arrays.copyOfRange(data, (int) offset, (int) offset + length));
      }
      offset += length;
    }
    assertThat(offset).isEqualTo(data.length);
  }

  @Test
  void aWriterWhoseKeyTheDataNodesDroppedGetsFreshTokensAndLosesNoByte() throws Exception {
    byte[] data = new byte[2 * BLOCK + 5000];
    new Random(34).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/refused");
    try (FSDataOutputStream out = fs.create(file)) {
      int signedWith = issuer().currentKeyId();
      out.write(data, 0, 100_000);
      out.hflush();
      replaceKeysEverywhere(signedWith);
      // The open pipeline's token is signed with a key neither DataNode knows now: several packets, then a flush.
      out.write(data, 100_000, 150_000);
      out.hflush();
      // On past the block's end: new blocks come with tokens of the new keys.
      out.write(data, 250_000, data.length - 250_000);
    }
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs.open(file)) {
      in.readFully(back);
    }
    assertThat(back).isEqualTo(data);
    assertThat(fs.getFileStatus(file).getLen()).isEqualTo(data.length);
    assertEveryReplicaHolds("/refused", data);
  }

  @Test
  void anHsyncRefusedForItsKeyIsAskedAgainWithFreshTokens() throws Exception {
    byte[] data = new byte[BLOCK + 3000];
    new Random(35).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/refused-sync");
    try (FSDataOutputStream out = fs.create(file)) {
      int signedWith = issuer().currentKeyId();
      out.write(data, 0, 70_000);
      out.hflush();
      replaceKeysEverywhere(signedWith);
      // Nothing is left to send: the SYNC is the first request with the old token.
      out.hsync();
      assertThat(fs.getFileStatus(file).getLen()).isEqualTo(70_000);
      out.write(data, 70_000, data.length - 70_000);
      out.hsync();
    }
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs.open(file)) {
      in.readFully(back);
    }
    assertThat(back).isEqualTo(data);
  }
}
