package io.fffs.minicluster.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockKeysProto;
import io.fffs.common.security.BlockAccessMode;
import io.fffs.common.security.BlockTokenIssuer;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.permission.Caller;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A writer whose token the DataNodes no longer accept (the NameNode replaced every key, as one upgraded from a
 * release that kept no keys does) asks for fresh tokens and sends again what was not applied: the write completes
 * with every byte once. So it does wherever in the replicated pipeline the refusal comes: when only one DataNode has
 * dropped the key — the primary or the follower, each in turn on the same pipeline — it gets exactly what it did
 * not apply again and stays a member; a follower that refuses to end the pipeline at close is ended with the fresh
 * token, so that it serves the present. The same through a chain pipeline: the primary is sent again what it
 * refused, and a follower that refused is brought up to the primary's log and stays. An hsync refused with the fresh
 * tokens too fails the stream for good. Heartbeats are slowed so that the test alone decides which DataNode knows
 * which keys.
 */
class RefusedTokenWriterTest {
  private static final int BLOCK = 256 * 1024;

  @TempDir
  static Path base;
  static MiniFffsCluster cluster;
  static FreezeFrameFileSystem fs;
  /** A client of the same cluster that writes replicated blocks as a chain. */
  static FreezeFrameFileSystem chainFs;
  static DataTransferClient raw;

  @BeforeAll
  static void start() throws IOException {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", BLOCK);
    conf.setInt("fffs.replication", 2);
    conf.set(DataTransferConfigKeys.WRITE_PIPELINE_KEY, "fan-out");
    conf.set("fffs.datanode.heartbeat.interval", "10m");
    conf.set("fffs.namenode.datanode.dead-interval", "30m");
    // Writes of 60,000-150,000 bytes are several packets each, gathered in the stream's buffer and handed over.
    conf.setInt(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, 64 * 1024);
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(2).build();
    fs = cluster.getFileSystem();
    Configuration chain = cluster.getConfiguration();
    chain.set(DataTransferConfigKeys.WRITE_PIPELINE_KEY, "chain");
    chainFs = (FreezeFrameFileSystem) FileSystem.newInstance(cluster.getURI(), chain);
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
    if (chainFs != null) {
      chainFs.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /** The client that writes by {@code pipeline} ({@code fan-out} or {@code chain}). */
  private static FreezeFrameFileSystem fs(String pipeline) {
    return pipeline.equals("chain") ? chainFs : fs;
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

  /**
   * Both DataNodes hold exactly their part of every block of {@code path} (none missed a resend),
   * read at the present system time: a follower still following (its pipeline not ended) would refuse that time as
   * past its frontier.
   */
  private static void assertEveryReplicaHolds(String path, byte[] data) throws IOException {
    long offset = 0;
    long now = PhysicalClock.system().currentTimeMicros();
    for (LocatedBlockProto block : cluster.getNameNode().namesystem().queries.getBlockLocations(Caller.current(),
        path, TimeSpec.latest(), 0, Long.MAX_VALUE).getBlocksList()) {
      long blockId = block.getBlock().getBlockId();
      int length = (int) Math.min(BLOCK, data.length - offset);
      // Both DataNodes, asked directly: the NameNode's listing follows their reports, which slowed heartbeats delay.
      for (DatanodeIdProto replica : List.of(cluster.getDataNode(0).datanodeId(),
          cluster.getDataNode(1).datanodeId())) {
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

  @ParameterizedTest
  @ValueSource(strings = {"fan-out", "chain"})
  void aWriterWhoseKeyTheDataNodesDroppedGetsFreshTokensAndLosesNoByte(String pipeline) throws Exception {
    byte[] data = new byte[2 * BLOCK + 5000];
    new Random(34).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/refused-" + pipeline);
    try (FSDataOutputStream out = fs(pipeline).create(file)) {
      int signedWith = issuer().currentKeyId();
      out.write(data, 0, 100_000);
      out.hflush();
      replaceKeysEverywhere(signedWith);
      // The open pipeline's token is signed with a key neither DataNode knows now: several packets, then a flush.
      // Written in small calls, so that full packets gather in the stream's buffer and are handed over to be kept
      // (a chain sends them again from there): a buffer reused too early would send wrong bytes.
      for (int at = 100_000; at < 250_000; at += 10_000) {
        out.write(data, at, 10_000);
      }
      out.hflush();
      // On past the block's end: new blocks come with tokens of the new keys.
      out.write(data, 250_000, data.length - 250_000);
    }
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs(pipeline).open(file)) {
      in.readFully(back);
    }
    assertThat(back).isEqualTo(data);
    assertThat(fs(pipeline).getFileStatus(file).getLen()).isEqualTo(data.length);
    assertEveryReplicaHolds(file.toString(), data);
  }

  @ParameterizedTest
  @ValueSource(strings = {"fan-out", "chain"})
  void aSingleReplicaWriterSendsTheRefusedWritesAgain(String pipeline) throws Exception {
    byte[] data = new byte[BLOCK + 40_000];
    new Random(38).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/refused-single-" + pipeline);
    try (FSDataOutputStream out = fs(pipeline).create(file, true, 4096, (short) 1, BLOCK)) {
      int signedWith = issuer().currentKeyId();
      out.write(data, 0, 60_000);
      out.hflush();
      replaceKeysEverywhere(signedWith);
      out.write(data, 60_000, 150_000);  // several packets with the old token, then a flush
      out.hflush();
      out.write(data, 210_000, data.length - 210_000);
    }
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs(pipeline).open(file)) {
      in.readFully(back);
    }
    assertThat(back).isEqualTo(data);
    assertThat(fs(pipeline).getFileStatus(file).getReplication()).isEqualTo((short) 1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"fan-out", "chain"})
  void anHsyncRefusedForItsKeyIsAskedAgainWithFreshTokens(String pipeline) throws Exception {
    byte[] data = new byte[BLOCK + 3000];
    new Random(35).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/refused-sync-" + pipeline);
    try (FSDataOutputStream out = fs(pipeline).create(file)) {
      int signedWith = issuer().currentKeyId();
      out.write(data, 0, 70_000);
      out.hflush();
      replaceKeysEverywhere(signedWith);
      // Nothing is left to send: the SYNC is the first request with the old token.
      out.hsync();
      assertThat(fs(pipeline).getFileStatus(file).getLen()).isEqualTo(70_000);
      out.write(data, 70_000, data.length - 70_000);
      out.hsync();
    }
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs(pipeline).open(file)) {
      in.readFully(back);
    }
    assertThat(back).isEqualTo(data);
  }

  @ParameterizedTest
  @ValueSource(strings = {"fan-out", "chain"})
  void theDataNodeThatAloneRefusesTheTokenPrimaryOrFollowerGetsWhatItMissedAgain(String pipeline) throws Exception {
    byte[] data = new byte[BLOCK - 10_000];  // one block: one pipeline, its primary and follower throughout
    new Random(36).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/refused-by-one-" + pipeline);
    try (FSDataOutputStream out = fs(pipeline).create(file)) {
      out.write(data, 0, 50_000);
      out.hflush();
      int at = 50_000;
      // Each DataNode in turn refuses while the other accepts: one is the pipeline's primary, the other its follower.
      for (int refuser = 0; refuser < 2; refuser++) {
        long refused = replaceKeysOn(refuser);
        out.write(data, at, 70_000);  // two packets, then a flush
        out.hflush();
        at += 70_000;
        assertThat(refusals(refuser)).as("DataNode %d refused the old token", refuser).isGreaterThan(refused);
      }
      // A SYNC, the first request with the old token: refused by one DataNode, then by the other.
      for (int refuser = 0; refuser < 2; refuser++) {
        out.write(data, at, 20_000);
        out.hflush();
        at += 20_000;
        long refused = replaceKeysOn(refuser);
        out.hsync();
        assertThat(refusals(refuser)).as("DataNode %d refused the SYNC", refuser).isGreaterThan(refused);
      }
      out.write(data, at, data.length - at);
    }
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs(pipeline).open(file)) {
      in.readFully(back);
    }
    assertThat(back).isEqualTo(data);
    assertEveryReplicaHolds(file.toString(), data);
  }

  @ParameterizedTest
  @ValueSource(strings = {"fan-out", "chain"})
  void aPipelineEndRefusedAtCloseIsSentAgainWithAFreshToken(String pipeline) throws Exception {
    byte[] data = new byte[100_000];
    new Random(37).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/refused-at-close-" + pipeline);
    long refused;
    try (FSDataOutputStream out = fs(pipeline).create(file)) {
      out.write(data);
      out.hflush();
      // Both DataNodes drop the old key: nothing is left to send, so the follower's REPLICA_END meets it first.
      refused = refusals(0) + refusals(1);
      replaceKeysEverywhere(issuer().currentKeyId());
    }
    assertThat(refusals(0) + refusals(1)).as("a REPLICA_END was refused").isGreaterThan(refused);
    assertThat(fs(pipeline).getFileStatus(file).getLen()).isEqualTo(data.length);
    assertEveryReplicaHolds(file.toString(), data);
  }

  /**
   * Both DataNodes refuse an hsync's token, and the fresh one too (the NameNode signs with keys they have not
   * learnt): the hsync fails with {@code ACCESS_DENIED} saying what to check and how to write on, and the stream
   * stays failed once they know the keys again; what was flushed before is kept, and an append goes on from there.
   */
  @Test
  void anHsyncRefusedWithTheFreshTokensTooFailsTheStreamForGood() throws Exception {
    byte[] data = new byte[100_000];
    new Random(39).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/refused-twice");
    FSDataOutputStream out = fs.create(file);
    FffsException failure;
    try {
      out.write(data, 0, 60_000);
      out.hflush();
      replaceKeysEverywhere(issuer().currentKeyId());
      issuer().replaceAllKeys();  // no DataNode learns these: its next heartbeat is minutes away
      failure = catchThrowableOfType(out::hsync, FffsException.class);
    } finally {
      replaceKeysEverywhere(-1);  // every DataNode knows the NameNode's keys again
    }
    assertThat(failure).as("the hsync failed typed").isNotNull();
    assertThat(failure.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
    assertThat(failure).hasMessageContaining("heartbeats to the active NameNode")
        .hasMessageContaining("open /refused-twice for append");
    assertThatThrownBy(() -> out.write(data, 60_000, 100)).isInstanceOfSatisfying(FffsException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED)).hasMessageContaining("cannot be written on");
    assertThatThrownBy(out::hflush).isInstanceOfSatisfying(FffsException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED));
    assertThatThrownBy(out::close).isInstanceOfSatisfying(FffsException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED));

    try (FSDataOutputStream more = fs.append(file)) {
      more.write(data, 60_000, data.length - 60_000);
    }
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs.open(file)) {
      in.readFully(back);
      assertThat(in.read()).isEqualTo(-1);
    }
    assertThat(back).isEqualTo(data);
  }
}
