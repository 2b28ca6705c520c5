package io.fffs.minicluster.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockKeysProto;
import io.fffs.common.security.BlockAccessMode;
import io.fffs.common.security.BlockTokenIssuer;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.DataNode;
import io.fffs.minicluster.MiniFffsCluster;
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
 * A refused token anywhere in a replicated write pipeline is met with a fresh one, on a real cluster of two
 * DataNodes: when only one of them has dropped the key — the primary or the follower, each in turn on the same
 * pipeline — it gets exactly what it did not apply again and stays a member; a SYNC refused by one is asked again;
 * a follower that refuses to end the pipeline at close is ended with the fresh token, so that it serves the present.
 * Heartbeats are slowed so that the test alone decides which DataNode knows which keys.
 */
class RefusedTokenPipelineTest {
  private static final int BLOCK = 1 << 20;

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
    conf.set("fffs.datanode.heartbeat.interval", "10m");
    conf.set("fffs.namenode.datanode.dead-interval", "30m");
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

  /**
   * The NameNode replaces its keys; DataNode {@code refuser} learns only the new ones, the other keeps the old ones
   * too (as one whose heartbeat has not come yet would). Returns the refuser's refusals so far.
   */
  private static long replaceKeysOn(int refuser) throws IOException {
    BlockKeysProto before = issuer().exportKeys();
    issuer().replaceAllKeys();
    BlockKeysProto after = issuer().exportKeys();
    cluster.getDataNode(refuser).blockKeys().update(after);
    cluster.getDataNode(1 - refuser).blockKeys().update(after.toBuilder().addAllKeys(before.getKeysList()).build());
    return refusals(refuser);
  }

  private static long refusals(int datanode) {
    return cluster.getDataNode(datanode).serverStats().accessDenied.sum();
  }

  @Test
  void theDataNodeThatAloneRefusesTheTokenPrimaryOrFollowerGetsWhatItMissedAgain() throws Exception {
    byte[] data = new byte[600_000];
    new Random(36).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/refused-by-one");
    int at = 0;
    try (FSDataOutputStream out = fs.create(file)) {
      out.write(data, 0, 50_000);
      out.hflush();
      at = 50_000;
      // Each DataNode in turn refuses while the other accepts: one is the pipeline's primary, the other its follower.
      for (int refuser = 0; refuser < 2; refuser++) {
        long refused = replaceKeysOn(refuser);
        out.write(data, at, 120_000);  // several packets, then a flush
        out.hflush();
        at += 120_000;
        assertThat(refusals(refuser)).as("DataNode %d refused the old token", refuser).isGreaterThan(refused);
      }
      // A SYNC, the first request with the old token: refused by one DataNode, then by the other.
      for (int refuser = 0; refuser < 2; refuser++) {
        out.write(data, at, 60_000);
        out.hflush();
        at += 60_000;
        long refused = replaceKeysOn(refuser);
        out.hsync();
        assertThat(refusals(refuser)).as("DataNode %d refused the SYNC", refuser).isGreaterThan(refused);
      }
      out.write(data, at, data.length - at);
    }
    assertThat(read(file)).isEqualTo(data);
    assertEveryReplicaHoldsAtPresent("/refused-by-one", data);
  }

  @Test
  void aPipelineEndRefusedAtCloseIsSentAgainWithAFreshToken() throws Exception {
    byte[] data = new byte[300_000];
    new Random(37).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/refused-at-close");
    long[] refused = new long[2];
    try (FSDataOutputStream out = fs.create(file)) {
      out.write(data);
      out.hflush();
      // Both DataNodes drop the old key: nothing is left to send, so the follower's REPLICA_END meets it first.
      BlockKeysProto before = issuer().exportKeys();
      issuer().replaceAllKeys();
      for (int i = 0; i < 2; i++) {
        refused[i] = refusals(i);
        cluster.getDataNode(i).blockKeys().update(issuer().exportKeys());
      }
      assertThat(issuer().exportKeys().getKeysList()).doesNotContainAnyElementsOf(before.getKeysList());
    }
    assertThat(refusals(0) + refusals(1)).as("a REPLICA_END was refused").isGreaterThan(refused[0] + refused[1]);
    assertThat(fs.getFileStatus(file).getLen()).isEqualTo(data.length);
    assertThat(read(file)).isEqualTo(data);
    assertEveryReplicaHoldsAtPresent("/refused-at-close", data);
  }

  private static byte[] read(org.apache.hadoop.fs.Path file) throws IOException {
    try (FSDataInputStream in = fs.open(file)) {
      return in.readAllBytes();
    }
  }

  /**
   * Both replicas of every block hold exactly their part of {@code data}, read at the present system time: a
   * follower still following (its pipeline not ended) would refuse that time as past its frontier.
   */
  private static void assertEveryReplicaHoldsAtPresent(String path, byte[] data) throws IOException {
    long offset = 0;
    long now = PhysicalClock.system().currentTimeMicros();
    List<LocatedBlockProto> blocks = cluster.getNameNode().namesystem().queries.getBlockLocations(Caller.current(),
        path, TimeSpec.latest(), 0, Long.MAX_VALUE).getBlocksList();
    for (LocatedBlockProto block : blocks) {
      long blockId = block.getBlock().getBlockId();
      int length = (int) Math.min(BLOCK, data.length - offset);
      assertThat(block.getLocationsList()).extracting(DatanodeIdProto::getDatanodeUuid)
          .as("both DataNodes stayed in the pipeline").containsExactlyInAnyOrder(uuid(0), uuid(1));
      for (DatanodeIdProto replica : block.getLocationsList()) {
        ByteBuffer dst = ByteBuffer.allocate(length + 1);
        raw.read(replica, blockId, issuer().issue(blockId, BlockAccessMode.READ, "test"), 0, dst,
            TimeSpec.system(now));
        assertThat(Arrays.copyOf(dst.array(), dst.position())).as("block %d on %s", blockId, replica.getHost())
            .isEqualTo(Arrays.copyOfRange(data, (int) offset, (int) offset + length));
      }
      offset += length;
    }
    assertThat(offset).isEqualTo(data.length);
  }

  private static String uuid(int datanode) {
    DataNode node = cluster.getDataNode(datanode);
    return node.uuid();
  }
}
