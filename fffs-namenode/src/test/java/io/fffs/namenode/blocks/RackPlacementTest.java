package io.fffs.namenode.blocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockTransferProto;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.net.TableMapping;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HDFS's default placement over racks from Hadoop's topology settings, and re-replication that respects racks. */
class RackPlacementTest {
  private static final long SECOND = 1_000_000_000L;

  @TempDir
  Path dir;

  private final AtomicLong nanos = new AtomicLong(1_000);
  private final DatanodeManager datanodes = new DatanodeManager(nanos::get, 30 * SECOND, 250_000);
  private final ReplicationMonitor monitor = new ReplicationMonitor(datanodes, nanos::get, 60 * SECOND,
      100 * SECOND, 2, null);

  /** a, b, c on /r1; d, e, f on /r2 (a table, as {@code net.topology.table.file.name} names it). */
  private void sixNodesOnTwoRacks() throws Exception {
    Path table = dir.resolve("topology.table");
    Files.writeString(table, "h-a /r1\nh-b /r1\nh-c /r1\nh-d /r2\nh-e /r2\nh-f /r2\n", StandardCharsets.UTF_8);
    Configuration conf = new Configuration(false);
    conf.setClass(CommonConfigurationKeysPublic.NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL_KEY, TableMapping.class,
        org.apache.hadoop.net.DNSToSwitchMapping.class);
    conf.set(CommonConfigurationKeysPublic.NET_TOPOLOGY_TABLE_MAPPING_FILE_KEY, table.toString());
    datanodes.setTopology(Topology.fromConf(conf));
    for (String uuid : List.of("a", "b", "c", "d", "e", "f")) {
      datanodes.register(DatanodeIdProto.newBuilder().setDatanodeUuid(uuid).setHost("h-" + uuid)
          .setDataPort(50010).setIpcPort(0).build(), 1L << 30, 0);
    }
  }

  private String rack(DatanodeDescriptor d) {
    return d.rack();
  }

  @Test
  void theSecondReplicaGoesToAnotherRackAndTheThirdToTheSecondsRack() throws Exception {
    sixNodesOnTwoRacks();
    assertThat(datanodes.descriptor("a").rack()).isEqualTo("/r1");
    assertThat(datanodes.descriptor("e").rack()).isEqualTo("/r2");
    for (int i = 0; i < 12; i++) {
      List<DatanodeDescriptor> chosen = datanodes.chooseTargets(3);
      assertThat(chosen).hasSize(3);
      assertThat(rack(chosen.get(1))).as("second off the first's rack").isNotEqualTo(rack(chosen.get(0)));
      assertThat(rack(chosen.get(2))).as("third on the second's rack").isEqualTo(rack(chosen.get(1)));
      assertThat(new HashSet<>(chosen)).hasSize(3);
    }
    List<DatanodeDescriptor> four = datanodes.chooseTargets(4);
    assertThat(four.stream().filter(d -> d.rack().equals("/r1")).count()).as("two a rack").isEqualTo(2);
    assertThat(datanodes.chooseTargets(3, "h-e").get(0).uuid()).as("the writer's own DataNode first")
        .isEqualTo("e");
  }

  @Test
  void aScriptMapsHostsToRacks() throws Exception {
    Path script = dir.resolve("topology.sh");
    Files.writeString(script, "#!/bin/sh\nfor h in \"$@\"; do case $h in h-x) echo /left;; *) echo /right;; esac;"
        + " done\n", StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    Configuration conf = new Configuration(false);
    conf.set(CommonConfigurationKeysPublic.NET_TOPOLOGY_SCRIPT_FILE_NAME_KEY, script.toString());
    Topology topology = Topology.fromConf(conf);
    assertThat(topology.rackOf("h-x")).isEqualTo("/left");
    assertThat(topology.rackOf("h-y")).isEqualTo("/right");
    assertThat(Topology.fromConf(new Configuration(false)).rackOf("h-x")).isEqualTo("/default-rack");
  }

  @Test
  void aCopyOfABlockOnOneRackGoesToAnother() throws Exception {
    sixNodesOnTwoRacks();
    datanodes.placed(3, List.of("a", "b"));
    report(3, "a", "b");
    List<ReplicationMonitor.Want> wants = List.of(new ReplicationMonitor.Want(3, 3));
    monitor.scan(wants);
    monitor.scan(wants);
    BlockTransferProto copy = transfer();
    assertThat(copy.getTargetsList()).extracting(DatanodeIdProto::getDatanodeUuid).hasSize(1)
        .allMatch(uuid -> Set.of("d", "e", "f").contains(uuid));
  }

  @Test
  void aBlockWhoseReplicasShareARackIsSpreadThenTheCrowdedRackGivesOneUp() throws Exception {
    sixNodesOnTwoRacks();
    datanodes.placed(5, List.of("a", "b", "c"));
    report(5, "a", "b", "c");
    assertThat(datanodes.misReplicated(5)).isTrue();
    List<ReplicationMonitor.Want> wants = List.of(new ReplicationMonitor.Want(5, 3));
    monitor.scan(wants);
    monitor.scan(wants);
    assertThat(monitor.misReplicatedBlocks()).isEqualTo(1);
    BlockTransferProto copy = transfer();
    String target = copy.getTargets(0).getDatanodeUuid();
    assertThat(datanodes.descriptor(target).rack()).isEqualTo("/r2");

    report(5, target);
    assertThat(datanodes.misReplicated(5)).isFalse();
    monitor.scan(wants);
    monitor.scan(wants);
    List<String> dropped = List.of("a", "b", "c", target).stream().filter(u -> !monitor.takeDrops(u).isEmpty())
        .toList();
    assertThat(dropped).as("one of the crowded rack, never the only replica on /r2").hasSize(1)
        .allMatch(uuid -> Set.of("a", "b", "c").contains(uuid));
  }

  @Test
  void aReaderGetsItsOwnHostThenItsRackThenTheRestWithDecommissioningOnesLast() throws Exception {
    sixNodesOnTwoRacks();
    List<DatanodeIdProto> ids = List.of("a", "d", "b", "e").stream().map(u -> datanodes.descriptor(u).id())
        .toList();
    assertThat(datanodes.nearestFirst(ids, "h-e")).extracting(DatanodeIdProto::getDatanodeUuid)
        .containsExactly("e", "d", "a", "b");
    assertThat(datanodes.nearestFirst(ids, "h-c")).extracting(DatanodeIdProto::getDatanodeUuid)
        .as("c's rack: a and b").containsExactly("a", "b", "d", "e");
    datanodes.decommission(List.of("h-a:50010"), false);
    assertThat(datanodes.nearestFirst(ids, "h-c")).extracting(DatanodeIdProto::getDatanodeUuid)
        .containsExactly("b", "d", "e", "a");
    assertThat(datanodes.nearestFirst(ids, null)).isEqualTo(ids);
  }

  @Test
  void extrasAreDroppedSoThatTheRestStayOnTwoRacks() {
    assertThat(BlockPlacement.extras(List.of("a", "b", "d", "c"), List.of("/r1", "/r1", "/r2", "/r1"), 1))
        .containsExactly("c");
    assertThat(BlockPlacement.extras(List.of("a", "b", "c", "d"), List.of("/r1", "/r1", "/r1", "/r2"), 1))
        .as("the last placed is the only one on /r2").containsExactly("c");
    assertThat(BlockPlacement.extras(List.of("a", "b", "c"), List.of("/r1", "/r1", "/r1"), 1))
        .containsExactly("c");
  }

  private void report(long blockId, String... uuids) throws Exception {
    for (String uuid : uuids) {
      datanodes.blocksReceived(uuid, new long[] {blockId}, new long[] {100}, new long[] {700});
    }
  }

  private BlockTransferProto transfer() {
    List<BlockTransferProto> all = List.of("a", "b", "c", "d", "e", "f").stream()
        .flatMap(u -> monitor.takeTransfers(u).stream()).toList();
    assertThat(all).hasSize(1);
    return all.get(0);
  }
}
