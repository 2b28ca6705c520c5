package io.fffs.namenode.blocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeAdminStateProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockTransferProto;
import io.fffs.common.time.HlcTimestamp;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A decommissioning DataNode: no new blocks, read last, its replicas copied to DataNodes in service, then done. */
class DecommissionTest {
  private static final long SECOND = 1_000_000_000L;

  private final AtomicLong nanos = new AtomicLong(1_000);
  private final DatanodeManager datanodes = new DatanodeManager(nanos::get, 30 * SECOND, 250_000);
  private final ReplicationMonitor monitor = new ReplicationMonitor(datanodes, nanos::get, 60 * SECOND,
      100 * SECOND, 2, null);

  private void register(String... uuids) throws Exception {
    for (String uuid : uuids) {
      datanodes.register(id(uuid), 1L << 30, 0);
      datanodes.blockReport(uuid, new long[0], new long[0], new long[0], HlcTimestamp.ZERO);
    }
  }

  private static DatanodeIdProto id(String uuid) {
    return DatanodeIdProto.newBuilder().setDatanodeUuid(uuid).setHost("127.0.0.1").setDataPort(port(uuid))
        .setIpcPort(0).build();
  }

  private static int port(String uuid) {
    return 50_000 + uuid.charAt(0);
  }

  private static String address(String uuid) {
    return "127.0.0.1:" + port(uuid);
  }

  private void report(long blockId, long lastEntry, String... uuids) throws Exception {
    for (String uuid : uuids) {
      datanodes.blocksReceived(uuid, new long[] {blockId}, new long[] {100}, new long[] {lastEntry});
    }
  }

  private void scanTwice(List<ReplicationMonitor.Want> wants, List<Long> open) {
    monitor.scan(wants, open);
    monitor.scan(wants, open);
  }

  @Test
  void aDecommissioningDataNodesBlocksAreCopiedElsewhereThenItIsDecommissioned() throws Exception {
    register("a", "b", "c", "d");
    datanodes.placed(7, List.of("a", "b", "c"));
    report(7, 500, "a", "b", "c");
    List<ReplicationMonitor.Want> wants = List.of(new ReplicationMonitor.Want(7, 3));
    scanTwice(wants, List.of());

    assertThat(datanodes.decommission(List.of(address("a")), false)).containsExactly(address("a"));
    assertThat(datanodes.descriptor("a").adminState()).isEqualTo(AdminState.DECOMMISSIONING);
    for (int i = 0; i < 8; i++) {
      assertThat(datanodes.chooseTargets(3)).extracting(DatanodeDescriptor::uuid).doesNotContain("a");
    }
    assertThat(datanodes.locations(7, false)).extracting(DatanodeIdProto::getDatanodeUuid)
        .as("still served, read last").hasSize(3).last().isEqualTo("a");
    assertThat(datanodes.fsckReplicas(7)).filteredOn(r -> r.getDatanode().getDatanodeUuid().equals("a"))
        .extracting(r -> r.getAdminState()).containsExactly(DatanodeAdminStateProto.DN_DECOMMISSIONING);

    scanTwice(wants, List.of());
    List<BlockTransferProto> copies = List.of("a", "b", "c").stream().flatMap(u -> monitor.takeTransfers(u)
        .stream()).toList();
    assertThat(copies).hasSize(1);
    assertThat(copies.get(0).getTargetsList()).extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("d");
    assertThat(datanodes.descriptor("a").decommissionBlocksLeft()).isEqualTo(1);
    assertThat(datanodes.descriptor("a").adminState()).isEqualTo(AdminState.DECOMMISSIONING);

    report(7, 500, "d");
    scanTwice(wants, List.of());
    assertThat(datanodes.descriptor("a").adminState()).isEqualTo(AdminState.DECOMMISSIONED);
    assertThat(datanodes.descriptor("a").decommissionBlocksLeft()).isZero();
    assertThat(monitor.takeDrops("a")).as("its replica is kept, not counted").isEmpty();
    assertThat(datanodes.locations(7, false)).extracting(DatanodeIdProto::getDatanodeUuid).hasSize(4).last()
        .isEqualTo("a");
    assertThat(monitor.counts().underReplicated()).isZero();

    datanodes.decommission(List.of(address("a")), true);
    assertThat(datanodes.descriptor("a").adminState()).isEqualTo(AdminState.NORMAL);
    scanTwice(wants, List.of());
    assertThat(List.of("a", "b", "c", "d").stream().mapToInt(u -> monitor.takeDrops(u).size()).sum())
        .as("recommissioned: one replica too many, dropped").isEqualTo(1);
  }

  @Test
  void aBlockStillBeingWrittenKeepsItDecommissioning() throws Exception {
    register("a", "b", "c");
    datanodes.placed(9, List.of("a", "b"));
    datanodes.decommission(List.of(address("b")), false);
    scanTwice(List.of(), List.of(9L));
    assertThat(datanodes.descriptor("b").adminState()).isEqualTo(AdminState.DECOMMISSIONING);
    assertThat(datanodes.descriptor("b").decommissionBlocksLeft()).isEqualTo(1);
    assertThat(datanodes.descriptor("a").adminState()).isEqualTo(AdminState.NORMAL);
  }

  @Test
  void withTooFewDataNodesInServiceEveryOneOfThemHoldingTheBlockIsEnough() throws Exception {
    register("a", "b", "c");
    datanodes.placed(5, List.of("a", "b", "c"));
    report(5, 40, "a", "b", "c");
    datanodes.decommission(List.of(address("c")), false);
    scanTwice(List.of(new ReplicationMonitor.Want(5, 3)), List.of());
    assertThat(datanodes.descriptor("c").adminState()).as("a and b, all there is in service, hold it")
        .isEqualTo(AdminState.DECOMMISSIONED);
  }

  @Test
  void theListSurvivesARestartAndAppliesWhenTheDataNodeRegisters(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("decommissioned-datanodes");
    datanodes.setDecommissions(new Decommissions(file));
    datanodes.decommission(List.of(address("a")), false);

    DatanodeManager restarted = new DatanodeManager(nanos::get, 30 * SECOND, 250_000);
    restarted.setDecommissions(new Decommissions(file));
    restarted.register(id("a"), 1L << 30, 0);
    restarted.register(id("b"), 1L << 30, 0);
    assertThat(restarted.descriptor("a").adminState()).isEqualTo(AdminState.DECOMMISSIONING);
    assertThat(restarted.descriptor("b").adminState()).isEqualTo(AdminState.NORMAL);
    ReplicationMonitor fresh = new ReplicationMonitor(restarted, nanos::get, 60 * SECOND, 100 * SECOND, 2, null);
    fresh.scan(List.of());
    assertThat(restarted.descriptor("a").adminState()).as("no block report yet: what it holds is unknown")
        .isEqualTo(AdminState.DECOMMISSIONING);
    restarted.blockReport("a", new long[0], new long[0], new long[0], HlcTimestamp.ZERO);
    fresh.scan(List.of());
    assertThat(restarted.descriptor("a").adminState()).isEqualTo(AdminState.DECOMMISSIONED);

    restarted.decommission(List.of("localhost:" + port('a' + "")), true);
    assertThat(new Decommissions(file).list()).as("recommissioned by another name of the same address").isEmpty();
  }
}
