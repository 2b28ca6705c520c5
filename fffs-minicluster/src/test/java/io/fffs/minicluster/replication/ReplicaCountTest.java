package io.fffs.minicluster.replication;

import static io.fffs.minicluster.replication.ReplicatedHistoryTest.cluster;
import static io.fffs.minicluster.replication.ReplicatedHistoryTest.conf;
import static io.fffs.minicluster.replication.ReplicatedHistoryTest.settle;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.BlockSummary;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.fs.NamespaceQueries.ReplicationSummary;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How many replicas a block gets and keeps: a follower lost mid-write is dropped and later not listed, replication
 * is capped by the DataNodes there are and reported, replication 1 uses one DataNode, and a truncate cuts every
 * replica at one stamp.
 */
class ReplicaCountTest {
  private static final int BLOCK = 256 * 1024;

  @TempDir
  Path base;

  private static ReplicationSummary awaitSummary(MiniFffsCluster cluster, Predicate<ReplicationSummary> wanted)
      throws Exception {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (true) {
      ReplicationSummary summary = cluster.getNameNode().namesystem().queries.replicationSummary();
      if (wanted.test(summary)) {
        return summary;
      }
      assertThat(System.nanoTime()).as("replication counts as expected: %s", summary).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private static int indexOf(MiniFffsCluster cluster, String uuid) {
    for (int i = 0; i < cluster.getNumDataNodes(); i++) {
      if (cluster.getDataNode(i) != null && cluster.getDataNode(i).uuid().equals(uuid)) {
        return i;
      }
    }
    throw new AssertionError("no DataNode " + uuid);
  }

  @Test
  void aFollowerLostMidWriteIsDroppedAndNotListedLater() throws Exception {
    try (MiniFffsCluster cluster = cluster(base, conf(3), 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/replicated/lost.bin");
      byte[] content = new byte[BLOCK / 2];
      new Random(32).nextBytes(content);
      int lost;
      try (FSDataOutputStream out = fs.create(file, true)) {
        out.write(content, 0, 1000);
        out.hflush();
        LocatedBlockProto block = replicas.blocks(file.toString(), TimeSpec.latest()).getBlocks(0);
        lost = indexOf(cluster, block.getLocations(1).getDatanodeUuid());  // a follower: the primary is first
        cluster.stopDataNode(lost);
        out.write(content, 1000, content.length - 1000);
        out.hflush();
        out.hsync();
      }
      try (FSDataInputStream in = fs.open(file)) {
        assertThat(in.readAllBytes()).isEqualTo(content);
      }
      cluster.restartDataNode(lost);  // its report carries its older last entry
      ReplicationSummary summary = awaitSummary(cluster, s -> s.staleReplicas() == 1);
      assertThat(summary.underReplicatedBlocks()).isEqualTo(1);
      LocatedBlocksProto blocks = replicas.blocks(file.toString(), TimeSpec.latest());
      assertThat(blocks.getBlocks(0).getLocationsList()).hasSize(2).extracting(DatanodeIdProto::getDatanodeUuid)
          .doesNotContain(cluster.getDataNode(lost).uuid());
      replicas.assertSameLogs(blocks.getBlocks(0));
    }
  }

  @Test
  void replicationIsCappedByTheDataNodesThereAreAndReported() throws Exception {
    try (MiniFffsCluster cluster = cluster(base, conf(3), 2);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/replicated/capped.bin");
      try (FSDataOutputStream out = fs.create(file, true)) {
        out.write(new byte[BLOCK + 10]);
      }
      assertThat(fs.getFileStatus(file).getReplication()).as("the target").isEqualTo((short) 3);
      replicas.awaitListed(file.toString(), 2);
      for (org.apache.hadoop.fs.BlockLocation location : fs.getFileBlockLocations(fs.getFileStatus(file), 0,
          BLOCK + 10)) {
        assertThat(location.getNames()).hasSize(2);
      }
      awaitSummary(cluster, s -> s.underReplicatedBlocks() == 2);
      try (InputStream in = new URL(cluster.getHttpURI() + "/status").openStream()) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).contains("\"underReplicatedBlocks\":2",
            "\"missingBlocks\":0", "\"staleReplicas\":0");
      }
    }
  }

  @Test
  void replicationOneUsesOneDataNodeAndTheDefaultIsThree() throws Exception {
    try (MiniFffsCluster cluster = cluster(base, conf(1), 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/replicated/one.bin");
      try (FSDataOutputStream out = fs.create(file, true)) {
        out.write(new byte[10_000]);
      }
      LocatedBlockProto block = replicas.awaitListed(file.toString(), 1).getBlocks(0);
      int holders = 0;
      for (int i = 0; i < cluster.getNumDataNodes(); i++) {
        for (BlockSummary held : cluster.getDataNode(i).store().blockReport()) {
          holders += held.blockId() == block.getBlock().getBlockId() ? 1 : 0;
        }
      }
      assertThat(holders).isEqualTo(1);

      try (org.apache.hadoop.fs.FileSystem byDefault = org.apache.hadoop.fs.FileSystem.newInstance(
          cluster.getURI(), new Configuration())) {
        assertThat(byDefault.getDefaultReplication(file)).isEqualTo((short) 3);
      }
      Configuration hadoopTool = new Configuration();
      hadoopTool.setInt("dfs.replication", 2);
      try (org.apache.hadoop.fs.FileSystem byDfs = org.apache.hadoop.fs.FileSystem.newInstance(cluster.getURI(),
          hadoopTool)) {
        assertThat(byDfs.getDefaultReplication(file)).as("what Hadoop tools set").isEqualTo((short) 2);
      }
    }
  }

  @Test
  void truncateCutsEveryReplicaAtOneStamp() throws Exception {
    // A replica whose report of the cut comes late looks stale when the rewrite opens its pipeline and is left
    // out; the replication monitor then brings it back with the whole history (scans every second here).
    try (MiniFffsCluster cluster = cluster(base, ReReplicationTest.conf(3), 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/replicated/cut.bin");
      byte[] content = new byte[2 * BLOCK + 5000];
      new Random(33).nextBytes(content);
      try (FSDataOutputStream out = fs.create(file, true)) {
        out.write(content);
      }
      long before = settle(fs);
      fs.truncate(file, BLOCK + 777);
      try (FffsDataOutputStream out = fs.openForWrite(file)) {
        out.seek(BLOCK + 777);
        out.write(content, 0, 100);  // the writer after the cut opens the block's pipeline anew
      }
      byte[] expected = Arrays.copyOf(content, BLOCK + 877);
      System.arraycopy(content, 0, expected, BLOCK + 777, 100);
      try (FSDataInputStream in = fs.open(file)) {
        byte[] read = in.readAllBytes();
        assertThat(read.length).as("length read").isEqualTo(expected.length);
        assertThat(Arrays.mismatch(read, expected)).as("first byte that differs").isEqualTo(-1);
      }
      try (FSDataInputStream in = fs.open(file, TimeSpec.system(before))) {
        assertThat(in.readAllBytes()).as("before the cut").isEqualTo(content);
      }
      // A truncate after the file was reopened: the cut carries the file's writer epoch, which the reopen raised
      // on every replica, so the DataNodes do not take it for a superseded writer.
      fs.truncate(file, BLOCK + 800);
      try (FSDataInputStream in = fs.open(file)) {
        assertThat(in.readAllBytes()).as("after the second cut").isEqualTo(Arrays.copyOf(expected, BLOCK + 800));
      }
      LocatedBlocksProto blocks = replicas.awaitListed(file.toString(), 3);
      for (LocatedBlockProto block : blocks.getBlocksList()) {
        replicas.assertSameLogs(block);
      }
    }
  }

  @Test
  void aTruncateAndARewriteReachReplicasWhoseReportsAreLate() throws Exception {
    // Two DataNodes report written blocks 5 s late. The writer's close tells the NameNode that its whole pipeline
    // holds the block's last entry, so all three are listed at once; the cut must reach all three (else the two
    // keep the bytes past it and, listed again while the cut's own report is late, serve them), and so must a
    // writer that reopens the file while their reports of the cut are late.
    MiniFffsCluster.Builder builder = MiniFffsCluster.builder().baseDir(base).conf(conf(3)).numDataNodes(3)
        .memoryCapacity(64L << 20);
    builder.dataNodeConf(1, "fffs.datanode.block-received.delay", "5s");
    builder.dataNodeConf(2, "fffs.datanode.block-received.delay", "5s");
    try (MiniFffsCluster cluster = builder.build();
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/replicated/late.bin");
      try (FSDataOutputStream out = fs.create(file, true)) {
        out.write(new byte[1000]);
      }
      LocatedBlocksProto blocks = replicas.awaitListed(file.toString(), 3);
      long blockId = blocks.getBlocks(0).getBlock().getBlockId();

      fs.truncate(file, 400);
      io.fffs.datanode.store.BlockInfo cut = cluster.getDataNode(0).store().info(blockId, TimeSpec.latest());
      assertThat(cut.length()).isEqualTo(400);
      for (int i = 1; i < 3; i++) {
        assertThat(cluster.getDataNode(i).store().info(blockId, TimeSpec.latest())).as("DataNode %d", i)
            .isEqualTo(cut);
      }

      // A writer reopening the file right away writes to all three as well, not only to the one listed.
      try (FffsDataOutputStream out = fs.openForWrite(file)) {
        out.seek(400);
        out.write(new byte[] {7, 7, 7});
      }
      io.fffs.datanode.store.BlockInfo rewritten = cluster.getDataNode(0).store().info(blockId, TimeSpec.latest());
      assertThat(rewritten.length()).isEqualTo(403);
      for (int i = 1; i < 3; i++) {
        assertThat(cluster.getDataNode(i).store().info(blockId, TimeSpec.latest())).as("DataNode %d", i)
            .isEqualTo(rewritten);
      }
    }
  }
}
