package io.fffs.namenode.blocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.time.HlcTimestamp;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Where replicas go ({@code chooseTargets}) and which of them are listed for reads (current replicas). */
class ReplicaPlacementTest {
  private static final long DEAD_NANOS = 10_000_000_000L;
  private static final long MAX_OFFSET_MICROS = 250_000;

  private final AtomicLong nanos = new AtomicLong(1_000);
  private final DatanodeManager datanodes = new DatanodeManager(nanos::get, DEAD_NANOS, MAX_OFFSET_MICROS);

  private DatanodeDescriptor register(String uuid, long offsetMicros) {
    return datanodes.register(DatanodeIdProto.newBuilder().setDatanodeUuid(uuid).setHost("host-" + uuid)
        .setDataPort(50010).setIpcPort(0).build(), 1L << 30, offsetMicros);
  }

  private void heartbeat(String uuid, long offsetMicros) {
    datanodes.heartbeat(uuid, offsetMicros, 1L << 30, 0, 0, HlcTimestamp.ZERO, null);
  }

  private static List<String> uuids(List<DatanodeDescriptor> chosen) {
    return chosen.stream().map(DatanodeDescriptor::uuid).toList();
  }

  private List<String> located(long blockId, boolean pipelineOrder) {
    return datanodes.locations(blockId, pipelineOrder).stream().map(DatanodeIdProto::getDatanodeUuid).toList();
  }

  @Test
  void targetsAreDistinctCappedAndThePrimaryGoesRoundRobin() throws FffsException {
    register("dn-a", 0);
    register("dn-b", 0);
    register("dn-c", 0);
    assertThat(uuids(datanodes.chooseTargets(3))).containsExactly("dn-a", "dn-b", "dn-c");
    assertThat(uuids(datanodes.chooseTargets(3))).containsExactly("dn-b", "dn-c", "dn-a");
    assertThat(uuids(datanodes.chooseTargets(5))).as("capped by the DataNodes there are")
        .containsExactly("dn-c", "dn-a", "dn-b");
    assertThat(uuids(datanodes.chooseTargets(1))).containsExactly("dn-a");
  }

  @Test
  void deadUnhealthyAndFarClockedDataNodesAreSkipped() throws FffsException {
    register("dn-a", 0);
    register("dn-b", 0);
    register("dn-c", 0);
    register("dn-d", 0);
    nanos.addAndGet(DEAD_NANOS / 2);
    heartbeat("dn-a", -200_000);
    heartbeat("dn-b", MAX_OFFSET_MICROS + 1);  // unhealthy
    heartbeat("dn-d", 200_000);                // healthy, but 400 ms from dn-a: no follower of it
    nanos.addAndGet(DEAD_NANOS / 2 + 1);       // dn-c is dead
    assertThat(uuids(datanodes.chooseTargets(3))).as("dn-a primary: dn-d's clock is too far from it")
        .containsExactly("dn-a");
    assertThat(uuids(datanodes.chooseTargets(3))).containsExactly("dn-d");
  }

  @Test
  void anOlderReplicaIsHiddenEvenWhenTheNewerOneIsDead() throws FffsException {
    register("dn-a", 0);
    register("dn-b", 0);
    register("dn-c", 0);
    datanodes.placed(7, List.of("dn-b", "dn-c", "dn-a"));
    assertThat(located(7, true)).as("placed, not yet reported: all listed, primary first")
        .containsExactly("dn-b", "dn-c", "dn-a");
    datanodes.blocksReceived("dn-b", new long[] {7}, new long[] {300}, new long[] {900});
    assertThat(located(7, true)).as("one has reported: the others may hold nothing").containsExactly("dn-b");
    datanodes.blocksReceived("dn-c", new long[] {7}, new long[] {300}, new long[] {900});
    datanodes.blocksReceived("dn-a", new long[] {7}, new long[] {100}, new long[] {500});
    assertThat(located(7, true)).containsExactly("dn-b", "dn-c");
    assertThat(datanodes.staleReplicas(7)).isEqualTo(1);
    assertThat(datanodes.reportedLength(7)).as("the newest replica's").isEqualTo(300);
    assertThat(located(7, false)).as("a closed block is rotated by its id").containsExactly("dn-c", "dn-b");

    nanos.addAndGet(DEAD_NANOS / 2);
    heartbeat("dn-a", 0);
    nanos.addAndGet(DEAD_NANOS / 2 + 1);  // dn-b and dn-c are dead
    assertThat(located(7, true)).as("dn-a misses entries the dead replicas have").isEmpty();
    assertThat(datanodes.currentReplicas(7)).isZero();
    assertThat(datanodes.staleReplicas(7)).isEqualTo(1);
  }

  @Test
  void aLateReportOfAnOlderEntryDoesNotMakeAReplicaLookStale() throws FffsException {
    register("dn-a", 0);
    register("dn-b", 0);
    datanodes.placed(9, List.of("dn-a", "dn-b"));
    datanodes.blocksReceived("dn-a", new long[] {9}, new long[] {10}, new long[] {800});
    datanodes.blocksReceived("dn-b", new long[] {9}, new long[] {10}, new long[] {800});
    datanodes.blockReport("dn-b", new long[] {9}, new long[] {5}, new long[] {700}, HlcTimestamp.ZERO);
    assertThat(located(9, true)).containsExactly("dn-a", "dn-b");
  }
}
