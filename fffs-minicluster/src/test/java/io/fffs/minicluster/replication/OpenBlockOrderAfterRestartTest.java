package io.fffs.minicluster.replication;

import static io.fffs.minicluster.replication.StaleReplicaReadTest.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.DataNode;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.NameNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The order of an open file's last-block locations after a NameNode restart, when the restarted NameNode learns the
 * replicas from reports alone, in the order they come: the followers report first, the primary last. The DataNodes'
 * reports say where each replica stands in the write pipeline, so the primary (which stamps the block and knows its
 * newest entries) is listed first again. Heartbeats are slowed so that the test alone decides when each DataNode
 * registers.
 */
class OpenBlockOrderAfterRestartTest {
  @TempDir
  Path base;

  @Test
  void thePrimaryIsListedFirstAgainThoughTheFollowersReportedFirst() throws Exception {
    Configuration conf = ReplicatedHistoryTest.conf(3);
    conf.set("fffs.datanode.heartbeat.interval", "10m");
    conf.set("fffs.namenode.datanode.dead-interval", "30m");
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/replicated/open.bin");
      byte[] content = new byte[50_000];
      new Random(373).nextBytes(content);
      FSDataOutputStream out = fs.create(file, true);
      out.write(content);
      out.hsync();  // the file stays open: the followers follow the primary's stamps
      List<String> placed = uuids(replicas.awaitListed(file.toUri().getPath(), 3).getBlocks(0).getLocationsList());
      long blockId = replicas.blocks(file.toUri().getPath(), TimeSpec.latest()).getBlocks(0).getBlock().getBlockId();

      NameNode before = cluster.getNameNode();
      CompletableFuture<Void> restarted = CompletableFuture.runAsync(() -> {
        try {
          cluster.restartNameNode();  // returns once every DataNode registered again
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      // The last follower reports first, then the first follower, then the primary.
      List<String> reported = new ArrayList<>();
      for (int i = placed.size() - 1; i >= 0; i--) {
        DataNode dataNode = dataNode(cluster, placed.get(i));
        reported.add(0, placed.get(i));
        List<String> wanted = List.copyOf(reported);
        await("the restarted NameNode lists " + wanted, () -> {
          NameNode now = cluster.getNameNode();
          dataNode.triggerHeartbeat();
          return now != before && listed(now, blockId).size() == wanted.size();
        });
      }
      restarted.get(60, TimeUnit.SECONDS);
      assertThat(listed(cluster.getNameNode(), blockId)).as("the primary first, the followers after it")
          .startsWith(placed.get(0)).containsExactlyInAnyOrderElementsOf(placed);
      out.close();
    }
  }

  private static List<String> listed(NameNode namenode, long blockId) {
    return uuids(namenode.namesystem().datanodes().locations(blockId));
  }

  private static List<String> uuids(List<DatanodeIdProto> ids) {
    return ids.stream().map(DatanodeIdProto::getDatanodeUuid).toList();
  }

  private static DataNode dataNode(MiniFffsCluster cluster, String uuid) {
    for (int i = 0; i < cluster.getNumDataNodes(); i++) {
      if (cluster.getDataNode(i).uuid().equals(uuid)) {
        return cluster.getDataNode(i);
      }
    }
    throw new AssertionError("no DataNode " + uuid);
  }
}
