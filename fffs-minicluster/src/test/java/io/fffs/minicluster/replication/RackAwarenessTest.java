package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.FsckReport;
import io.fffs.client.tools.AdminCommand;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.net.DNSToSwitchMapping;
import org.apache.hadoop.net.TableMapping;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rack awareness with real DataNodes on four loopback hosts and Hadoop's table mapping (127.0.0.1-2 on /rack-a,
 * 127.0.0.3-4 on /rack-b): a block's first replica on the writer's host, the second on the other rack, the third
 * beside the second; a copy made for a raised replication goes to the rack its block is not on.
 */
class RackAwarenessTest {
  @TempDir
  Path base;

  @Test
  void replicasFollowHdfsRackRulesWhenWrittenAndWhenCopied() throws Exception {
    Path table = base.resolve("racks.table");
    Files.writeString(table, "127.0.0.1 /rack-a\n127.0.0.2 /rack-a\n127.0.0.3 /rack-b\n127.0.0.4 /rack-b\n",
        StandardCharsets.UTF_8);
    Configuration conf = ReReplicationTest.conf(3);
    conf.setClass(CommonConfigurationKeysPublic.NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL_KEY, TableMapping.class,
        DNSToSwitchMapping.class);
    conf.set(CommonConfigurationKeysPublic.NET_TOPOLOGY_TABLE_MAPPING_FILE_KEY, table.toString());
    MiniFffsCluster.Builder builder = MiniFffsCluster.builder().baseDir(base.resolve("cluster")).conf(conf)
        .numDataNodes(4).memoryCapacity(64L << 20);
    for (int i = 0; i < 4; i++) {
      builder.dataNodeHost(i, "127.0.0." + (i + 1));
    }
    try (MiniFffsCluster cluster = builder.build();
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      Map<String, String> rackOf = Map.of(cluster.getDataNode(0).uuid(), "/rack-a",
          cluster.getDataNode(1).uuid(), "/rack-a", cluster.getDataNode(2).uuid(), "/rack-b",
          cluster.getDataNode(3).uuid(), "/rack-b");
      String local = cluster.getDataNode(0).uuid();

      org.apache.hadoop.fs.Path three = new org.apache.hadoop.fs.Path("/racks/three");
      try (FSDataOutputStream out = fs.create(three, true)) {
        out.write(new byte[700 * 1024]);
      }
      for (LocatedBlockProto block : replicas.awaitListed(three.toString(), 3).getBlocksList()) {
        Set<String> uuids = block.getLocationsList().stream().map(DatanodeIdProto::getDatanodeUuid)
            .collect(Collectors.toSet());
        assertThat(uuids).as("the writer's DataNode (127.0.0.1) and both of the other rack")
            .containsExactlyInAnyOrder(local, cluster.getDataNode(2).uuid(), cluster.getDataNode(3).uuid());
      }

      org.apache.hadoop.fs.Path one = new org.apache.hadoop.fs.Path("/racks/one");
      try (FSDataOutputStream out = fs.create(one, true, 4096, (short) 1, 256 * 1024)) {
        out.write(new byte[600 * 1024]);
      }
      for (LocatedBlockProto block : replicas.awaitListed(one.toString(), 1).getBlocksList()) {
        assertThat(block.getLocations(0).getDatanodeUuid()).as("on the writer's host").isEqualTo(local);
      }
      fs.setReplication(one, (short) 2);
      for (LocatedBlockProto block : replicas.awaitListed(one.toString(), 2).getBlocksList()) {
        assertThat(block.getLocationsList()).extracting(l -> rackOf.get(l.getDatanodeUuid()))
            .as("the copy on the rack the block was not on").containsExactlyInAnyOrder("/rack-a", "/rack-b");
      }

      FsckReport fsck = fs.fsck(new org.apache.hadoop.fs.Path("/racks"));
      assertThat(fsck.misReplicatedBlocks()).isZero();
      assertThat(fsck.render(true, true, true)).contains("/rack-a").contains("/rack-b")
          .contains("Mis-replicated blocks:\t0");
      Configuration client = new Configuration(cluster.getConfiguration());
      client.set("fs.defaultFS", cluster.getURI().toString());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      assertThat(AdminCommand.run(client, new String[] {"-printTopology"},
          new PrintStream(out, true, StandardCharsets.UTF_8), System.err)).isZero();
      assertThat(out.toString(StandardCharsets.UTF_8)).contains("Rack: /rack-a\n   127.0.0.1:")
          .contains("Rack: /rack-b\n   127.0.0.3:");
    }
  }
}
