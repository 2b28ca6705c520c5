package io.fffs.minicluster.replication;

import static io.fffs.minicluster.replication.ReplicatedHistoryTest.settle;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.DataNode;
import io.fffs.namenode.NameNode;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.protocol.DataTransferConfigKeys;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A past read at a time beyond a follower's frontier, while the NameNode lists only that follower: right after a
 * NameNode restart, before the primary has registered again. The follower refuses ({@code REPLICA_STALE}: it cannot
 * know what the primary stamped since its last entry); the reader asks the NameNode for the block's replicas again
 * and reads the right bytes from the primary once it has reported. Heartbeats are slowed so that the test alone
 * decides when each DataNode registers.
 */
class StaleReplicaReadTest {
  @TempDir
  Path base;

  @Test
  void aPastReadRefusedByTheOnlyListedReplicaIsAnsweredByOneListedLater() throws Exception {
    Configuration conf = ReplicatedHistoryTest.conf(2);
    conf.set(DataTransferConfigKeys.WRITE_PIPELINE_KEY, "fan-out");  // the follower's frontier: the last entry
    conf.set("fffs.datanode.heartbeat.interval", "10m");
    conf.set("fffs.namenode.datanode.dead-interval", "30m");
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 2);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/replicated/open.bin");
      byte[] content = new byte[70_000];
      new Random(34).nextBytes(content);
      FSDataOutputStream out = fs.create(file, true);
      out.write(content);
      out.hsync();  // the file stays open: the follower follows, its frontier at the hsync'd entry
      long at = settle(fs);
      LocatedBlockProto block = replicas.blocks(file.toUri().getPath(), TimeSpec.latest()).getBlocks(0);
      assertThat(block.getLocationsCount()).as("both replicas, the primary first").isEqualTo(2);
      DataNode primary = dataNode(cluster, block.getLocations(0));
      DataNode follower = dataNode(cluster, block.getLocations(1));

      NameNode before = cluster.getNameNode();
      CompletableFuture<Void> restarted = CompletableFuture.runAsync(() -> {
        try {
          cluster.restartNameNode();  // returns once both DataNodes registered again
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      long blockId = block.getBlock().getBlockId();
      awaitListed(cluster, before, blockId, follower, List.of(follower.uuid()));

      long refusedBefore = follower.serverStats().queriesRefused.sum();
      CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> {
        try (FileSystem reader = FileSystem.newInstance(cluster.getURI(), cluster.getConfiguration());
            FSDataInputStream in = ((FreezeFrameFileSystem) reader).open(file, TimeSpec.system(at))) {
          return in.readAllBytes();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      await("the follower refused the time past its frontier", () -> read.isDone()
          || follower.serverStats().queriesRefused.sum() > refusedBefore);
      primary.triggerHeartbeat();
      assertThat(read.get(60, TimeUnit.SECONDS)).as("%s as of the hsync", file).isEqualTo(content);
      restarted.get(60, TimeUnit.SECONDS);
      out.close();
    }
  }

  private static DataNode dataNode(MiniFffsCluster cluster, DatanodeIdProto id) {
    for (int i = 0; i < cluster.getNumDataNodes(); i++) {
      if (cluster.getDataNode(i).uuid().equals(id.getDatanodeUuid())) {
        return cluster.getDataNode(i);
      }
    }
    throw new AssertionError("no DataNode " + id);
  }

  /**
   * Makes {@code dataNode} register with the NameNode that replaced {@code before}; returns once that one lists
   * exactly {@code uuids} for the block.
   */
  private static void awaitListed(MiniFffsCluster cluster, NameNode before, long blockId, DataNode dataNode,
      List<String> uuids) throws InterruptedException {
    await("the restarted NameNode lists " + uuids, () -> {
      NameNode now = cluster.getNameNode();
      dataNode.triggerHeartbeat();
      return now != before && now.namesystem().datanodes().locations(blockId).stream()
          .map(DatanodeIdProto::getDatanodeUuid).toList().equals(uuids);
    });
  }

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting until %s", what).isLessThan(deadline);
      Thread.sleep(20);
    }
  }
}
