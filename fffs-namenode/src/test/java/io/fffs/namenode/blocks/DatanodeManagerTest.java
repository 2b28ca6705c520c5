package io.fffs.namenode.blocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.time.HlcTimestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DatanodeManagerTest {
  private static final long DEAD_NANOS = 10_000_000_000L;
  private static final long MAX_OFFSET_MICROS = 250_000;

  private final AtomicLong nanos = new AtomicLong(1_000);
  private final DatanodeManager datanodes = new DatanodeManager(nanos::get, DEAD_NANOS, MAX_OFFSET_MICROS);

  private static DatanodeIdProto id(String uuid, String host) {
    return DatanodeIdProto.newBuilder().setDatanodeUuid(uuid).setHost(host).setDataPort(50010).setIpcPort(0)
        .build();
  }

  private DatanodeDescriptor register(String uuid) {
    return datanodes.register(id(uuid, "host-" + uuid), 1L << 30, 0);
  }

  private DatanodeDescriptor heartbeat(String uuid, long offsetMicros, String skewError) {
    return datanodes.heartbeat(uuid, offsetMicros, 1L << 30, 0, 0, HlcTimestamp.ZERO, skewError);
  }

  @Test
  void aDataNodeIsLiveUntilTheDeadIntervalPassesWithoutAHeartbeat() {
    DatanodeDescriptor dn = register("dn-1");
    datanodes.placed(7, "dn-1");
    nanos.addAndGet(DEAD_NANOS);
    assertThat(datanodes.isLive(dn)).as("exactly the dead interval").isTrue();
    assertThat(datanodes.locations(7)).containsExactly(dn.id());
    nanos.incrementAndGet();
    assertThat(datanodes.isLive(dn)).isFalse();
    assertThat(datanodes.liveCount()).isZero();
    assertThat(datanodes.locations(7)).as("a dead DataNode serves no reads").isEmpty();

    assertThat(heartbeat("dn-1", 0, null)).isSameAs(dn);
    assertThat(datanodes.isLive(dn)).isTrue();
    assertThat(datanodes.locations(7)).containsExactly(dn.id());
  }

  @Test
  void aHeartbeatFromAnUnknownDataNodeAsksItToRegister() {
    assertThat(heartbeat("stranger", 0, null)).isNull();
    assertThat(datanodes.datanodes()).isEmpty();
  }

  @Test
  void registeringAgainKeepsOneDescriptorWithTheNewAddress() {
    DatanodeDescriptor first = register("dn-1");
    DatanodeDescriptor again = datanodes.register(id("dn-1", "new-host"), 2L << 30, 0);
    assertThat(again).isSameAs(first);
    assertThat(datanodes.datanodes()).hasSize(1);
    assertThat(again.address()).isEqualTo("new-host:50010");
    assertThat(again.capacityBytes()).isEqualTo(2L << 30);
  }

  @Test
  void newBlocksGoRoundRobinOverLiveHealthyDataNodesOnly() throws FffsException {
    register("dn-b");
    register("dn-a");
    register("dn-c");
    List<String> chosen = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      chosen.add(datanodes.chooseTarget().uuid());
    }
    assertThat(chosen).containsExactly("dn-a", "dn-b", "dn-c", "dn-a");

    heartbeat("dn-b", MAX_OFFSET_MICROS + 1, null);  // its clock is too far off
    nanos.addAndGet(DEAD_NANOS / 2);
    heartbeat("dn-b", MAX_OFFSET_MICROS + 1, null);
    heartbeat("dn-c", 0, null);
    nanos.addAndGet(DEAD_NANOS / 2 + 1);  // dn-a, silent since it registered, is dead now
    for (int i = 0; i < 3; i++) {
      assertThat(datanodes.chooseTarget().uuid()).isEqualTo("dn-c");
    }
  }

  @Test
  void aClockOutOfRangeMakesADataNodeUnhealthyUntilItIsBack() {
    register("dn-1");
    DatanodeDescriptor dn = heartbeat("dn-1", -(MAX_OFFSET_MICROS + 1), null);
    assertThat(dn.isHealthy()).isFalse();
    assertThat(dn.unhealthyReason()).startsWith("clock is 250.001 ms behind the NameNode's, more than the max offset"
        + " 250 ms; fix NTP/PTP on host-dn-1");
    assertThatThrownBy(datanodes::chooseTarget).isInstanceOfSatisfying(FffsException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.NO_DATANODE);
      assertThat(e.detail()).contains("host-dn-1:50010: clock is 250.001 ms behind");
    });
    assertThat(heartbeat("dn-1", MAX_OFFSET_MICROS, null).isHealthy()).as("exactly the max offset").isTrue();
    assertThat(heartbeat("dn-1", 0, "HLC too far ahead").unhealthyReason()).isEqualTo("HLC too far ahead");
  }

  @Test
  void anUnhealthyDataNodesReplicasAreReadLastEvenByAReaderOnItsHost() {
    for (String n : List.of("1", "2", "3")) {
      datanodes.register(id("dn-" + n, "10.0.0." + n), 1L << 30, 0);
    }
    datanodes.placed(7, List.of("dn-1", "dn-2", "dn-3"));
    assertThat(datanodes.locations(7, false)).extracting(DatanodeIdProto::getDatanodeUuid)
        .as("rotated by the block id").containsExactly("dn-2", "dn-3", "dn-1");
    heartbeat("dn-2", MAX_OFFSET_MICROS + 1, null);  // its clock runs ahead beyond the max offset
    List<DatanodeIdProto> located = datanodes.locations(7, false);
    assertThat(located).extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("dn-3", "dn-1", "dn-2");
    assertThat(datanodes.nearestFirst(located, "10.0.0.2")).extracting(DatanodeIdProto::getDatanodeUuid)
        .containsExactly("dn-3", "dn-1", "dn-2");
    assertThat(datanodes.nearestFirst(located, "10.0.0.1")).extracting(DatanodeIdProto::getDatanodeUuid)
        .containsExactly("dn-1", "dn-3", "dn-2");
    assertThat(datanodes.locations(7, true)).as("a writer's pipeline order is the placement's")
        .extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("dn-1", "dn-2", "dn-3");

    heartbeat("dn-2", 0, null);
    assertThat(datanodes.locations(7, false)).extracting(DatanodeIdProto::getDatanodeUuid)
        .as("healthy again").containsExactly("dn-2", "dn-3", "dn-1");
  }

  @Test
  void withNoDataNodeTheRefusalSaysNoneRegistered() {
    assertThatThrownBy(datanodes::chooseTarget).isInstanceOfSatisfying(FffsException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.NO_DATANODE);
      assertThat(e.detail()).endsWith("(none has registered)");
    });
  }

  @Test
  void aReportThatArrivesAfterANewerOneDoesNotBringBackItsOlderLength() throws FffsException {
    register("dn-1");
    datanodes.placed(8, "dn-1");
    datanodes.blocksReceived("dn-1", new long[] {8}, new long[] {1000}, new long[] {20});
    datanodes.forgetReportedLength(8);  // the file was cut in this block
    datanodes.blocksReceived("dn-1", new long[] {8}, new long[] {777}, new long[] {30});
    datanodes.blocksReceived("dn-1", new long[] {8}, new long[] {1000}, new long[] {20});  // sent before the cut
    assertThat(datanodes.reportedLength(8)).isEqualTo(777);
  }

  @Test
  void reportedBlocksAreLocatedCountedAndTheirLengthsKeptUntilForgotten() throws FffsException {
    List<Long> heard = new ArrayList<>();
    datanodes.onBlockReported(heard::add);
    DatanodeDescriptor dn = register("dn-1");
    datanodes.blockReport("dn-1", new long[] {3, 4}, new long[] {100, 200}, HlcTimestamp.of(5, 0));
    datanodes.blocksReceived("dn-1", new long[] {5}, new long[] {50});

    assertThat(heard).containsExactly(3L, 4L, 5L);
    assertThat(dn.blockCount()).isEqualTo(2);
    assertThat(dn.durableHlc()).isEqualTo(HlcTimestamp.of(5, 0));
    assertThat(datanodes.locations(4)).containsExactly(dn.id());
    assertThat(datanodes.reportedLength(4)).isEqualTo(200);
    datanodes.forgetReportedLength(4);
    assertThat(datanodes.reportedLength(4)).isEqualTo(-1);
    assertThat(datanodes.reportedLength(6)).as("never reported").isEqualTo(-1);
    assertThat(datanodes.locations(6)).isEmpty();
  }

  @Test
  void reportsFromAnUnregisteredDataNodeAreRefused() {
    assertThatThrownBy(() -> datanodes.blocksReceived("stranger", new long[] {1}, new long[] {1}))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
    assertThat(datanodes.locations(1)).isEmpty();
  }
}
