package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.FsckReport;
import io.fffs.client.tools.AdminCommand;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeAdminStateProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckReplicaStateProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.blocks.AdminState;
import io.fffs.namenode.blocks.DatanodeManager;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/fffs admin -decommission HOST:PORT} with real DataNodes: the DataNode keeps serving reads, takes no new
 * block, its replicas are copied with their whole history to DataNodes in service, and it is then shown
 * decommissioned in the admin report and in fsck; {@code -recommission} puts it back.
 */
class DecommissionTest {
  @TempDir
  Path base;

  @Test
  void aDecommissionedDataNodesReplicasAreCopiedWithTheirHistoryAndItKeepsServingReads() throws Exception {
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, ReReplicationTest.conf(3), 4);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      Random random = new Random(41);
      long[] window = ReReplicationTest.writeHistory(fs, random);
      LocatedBlocksProto before = replicas.awaitListed(ReReplicationTest.FILE, 3);
      String victim = before.getBlocks(0).getLocations(0).getDatanodeUuid();
      List<ReReplicationTest.PastRead> reads = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        reads.add(ReReplicationTest.readEverywhere(replicas, window, random));
      }
      DatanodeManager datanodes = cluster.getNameNode().namesystem().datanodes();
      String address = datanodes.descriptor(victim).address();
      Configuration client = new Configuration(cluster.getConfiguration());
      client.set("fs.defaultFS", cluster.getURI().toString());

      assertThat(admin(client, "-decommission", address)).contains("Decommissioning " + address);
      org.apache.hadoop.fs.Path fresh = new org.apache.hadoop.fs.Path("/decommission/fresh");
      try (FSDataOutputStream out = fs.create(fresh, true)) {
        out.write(new byte[300 * 1024]);
      }
      for (LocatedBlockProto block : replicas.awaitListed(fresh.toString(), 3).getBlocksList()) {
        assertThat(block.getLocationsList()).extracting(DatanodeIdProto::getDatanodeUuid)
            .as("no new block on a decommissioning DataNode").doesNotContain(victim);
      }

      ReReplicationTest.awaitTrue(() -> datanodes.descriptor(victim).adminState() == AdminState.DECOMMISSIONED,
          "DataNode " + address + " decommissioned");
      assertThat(admin(client, "-report")).contains("Name: " + address)
          .contains("Decommission Status : Decommissioned");
      FsckReport fsck = fs.fsck(new org.apache.hadoop.fs.Path("/"));
      assertThat(fsck.healthy()).isTrue();
      assertThat(fsck.underReplicatedBlocks()).isZero();
      assertThat(fsck.decommissionedReplicas()).as("every block the victim held").isEqualTo(before.getBlocksList()
          .stream().filter(b -> b.getLocationsList().stream().anyMatch(l -> l.getDatanodeUuid().equals(victim)))
          .count());
      assertThat(fsck.render(true, true, true)).contains("DECOMMISSIONED").contains("Decommissioned replicas:");

      LocatedBlocksProto after = replicas.blocks(ReReplicationTest.FILE, TimeSpec.latest());
      for (LocatedBlockProto block : after.getBlocksList()) {
        List<DatanodeIdProto> locations = block.getLocationsList();
        long inService = locations.stream().filter(l -> !l.getDatanodeUuid().equals(victim)).count();
        assertThat(inService).as("block %d: three replicas in service", block.getBlock().getBlockId())
            .isEqualTo(3);
        if (locations.stream().anyMatch(l -> l.getDatanodeUuid().equals(victim))) {
          assertThat(locations.get(locations.size() - 1).getDatanodeUuid()).as("read last").isEqualTo(victim);
        }
        replicas.assertSameLogs(block);
      }
      for (ReReplicationTest.PastRead read : reads) {
        LocatedBlockProto block = replicas.blocks(ReReplicationTest.FILE, read.time()).getBlocks(read.block());
        for (DatanodeIdProto replica : after.getBlocks(read.block()).getLocationsList()) {
          Replicas.Answer answer = replicas.read(block, replica, read.offset(), read.length(), read.time());
          assertThat(answer.bytes()).as("block %d at %s from %s", read.block(), read.time(),
              replica.getDatanodeUuid()).isEqualTo(read.answer().bytes());
          assertThat(answer.resolvedHlc()).isEqualTo(read.answer().resolvedHlc());
        }
      }

      assertThat(admin(client, "-recommission", address)).contains("Recommissioned " + address);
      assertThat(datanodes.descriptor(victim).adminState()).isEqualTo(AdminState.NORMAL);
      LocatedBlocksProto back = replicas.awaitListed(ReReplicationTest.FILE, 3);
      assertThat(fs.fsck(new org.apache.hadoop.fs.Path(ReReplicationTest.FILE)).files().get(0).getBlocksList())
          .allSatisfy(b -> assertThat(b.getReplicasList()).filteredOn(r -> r.getState()
              == FsckReplicaStateProto.FSCK_CURRENT).allMatch(r -> r.getAdminState()
              == DatanodeAdminStateProto.DN_NORMAL));
      assertThat(back.getBlocksCount()).isEqualTo(after.getBlocksCount());
    }
  }

  private static String admin(Configuration conf, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = AdminCommand.run(conf, args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).as("admin %s: %s", String.join(" ", args), err.toString(StandardCharsets.UTF_8)).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }
}
