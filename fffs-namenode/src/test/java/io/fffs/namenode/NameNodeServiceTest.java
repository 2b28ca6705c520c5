package io.fffs.namenode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.ipc.ClientNamenodeProtocolPB;
import io.fffs.common.ipc.DatanodeProtocolPB;
import io.fffs.common.ipc.RemoteErrors;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.GetFileInfoRequestProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.CommonProtos.TimeKindProto;
import io.fffs.common.proto.CommonProtos.TimeSpecProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockReportRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.HeartbeatRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.HeartbeatResponseProto;
import io.fffs.common.proto.DatanodeProtocolProtos.RegisterDatanodeRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.ReportedBlockProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.ProtobufRpcEngine2;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real NameNode on loopback: Hadoop IPC for clients and DataNodes, HTTP status. */
class NameNodeServiceTest {
  @TempDir
  Path dir;

  private Configuration conf;
  private NameNode nameNode;
  private NamenodeClient client;
  private DatanodeProtocolPB datanodeProxy;
  private final HybridLogicalClock datanodeClock = new HybridLogicalClock(PhysicalClock.system(), 250_000);

  @BeforeEach
  void start() throws Exception {
    conf = new Configuration(false);
    conf.set(NameNodeConfigKeys.NAME_DIR_KEY, dir.resolve("name").toString());
    conf.set(NameNodeConfigKeys.RPC_ADDRESS_KEY, "127.0.0.1:0");
    conf.set(NameNodeConfigKeys.HTTP_ADDRESS_KEY, "127.0.0.1:0");
    conf.set(NameNodeConfigKeys.SAFEMODE_TIMEOUT_KEY, "60s");
    startNameNode();
  }

  private void startNameNode() throws Exception {
    nameNode = NameNode.start(conf, PhysicalClock.system(), System::nanoTime);
    client = NamenodeClient.connect(nameNode.rpcAddress(), conf,
        new HybridLogicalClock(PhysicalClock.system(), 250_000));
    Configuration rpcConf = new Configuration(conf);
    RPC.setProtocolEngine(rpcConf, DatanodeProtocolPB.class, ProtobufRpcEngine2.class);
    datanodeProxy = RPC.getProxy(DatanodeProtocolPB.class, RPC.getProtocolVersion(DatanodeProtocolPB.class),
        nameNode.rpcAddress(), rpcConf);
  }

  @AfterEach
  void stop() throws Exception {
    stopNameNode();
  }

  private void stopNameNode() throws Exception {
    client.close();
    RPC.stopProxy(datanodeProxy);
    nameNode.close();
  }

  private void registerDatanode(String uuid, long clockOffsetMicros) throws Exception {
    long physical = PhysicalClock.system().currentTimeMicros() + clockOffsetMicros;
    datanodeProxy.registerDatanode(null, RegisterDatanodeRequestProto.newBuilder()
        .setHlc(HlcTimestamp.of(physical, 0).toProto())
        .setId(DatanodeIdProto.newBuilder().setDatanodeUuid(uuid).setHost("127.0.0.1").setDataPort(40000)
            .setIpcPort(0).setTransport("tcp"))
        .setCapacityBytes(1L << 30)
        .setPhysicalMicros(physical)
        .build());
  }

  private HeartbeatResponseProto heartbeat(String uuid, long clockOffsetMicros) throws Exception {
    return heartbeat(uuid, clockOffsetMicros, 200);
  }

  private HeartbeatResponseProto heartbeat(String uuid, long clockOffsetMicros, long roundTripMicros)
      throws Exception {
    return heartbeat(uuid, clockOffsetMicros, clockOffsetMicros, roundTripMicros);
  }

  /**
   * A heartbeat from a DataNode whose clock is {@code clockOffsetMicros} off and that measured {@code measured}
   * ({@link Long#MIN_VALUE}: sent no measurement).
   */
  private HeartbeatResponseProto heartbeat(String uuid, long clockOffsetMicros, long measured, long roundTripMicros)
      throws Exception {
    long physical = PhysicalClock.system().currentTimeMicros() + clockOffsetMicros;
    HeartbeatRequestProto.Builder request = HeartbeatRequestProto.newBuilder()
        .setHlc(HlcTimestamp.of(physical, 0).toProto()).setDatanodeUuid(uuid).setPhysicalMicros(physical)
        .setCapacityBytes(1L << 30).setMemoryUsedBytes(4096).setBlockCount(0)
        .setDurableHlc(datanodeClock.now().toProto());
    if (measured != Long.MIN_VALUE) {
      request.setMeasuredOffsetMicros(measured).setRoundTripMicros(roundTripMicros);
    }
    return datanodeProxy.heartbeat(null, request.build());
  }

  private String http(String path) throws Exception {
    URL url = new URL(nameNode.httpUri() + path);
    HttpURLConnection connection = (HttpURLConnection) url.openConnection();
    assertThat(connection.getResponseCode()).as(path).isEqualTo(200);
    try (InputStream in = connection.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void clientWritesNamespaceAndReadsThePastOverIpc() throws Exception {
    registerDatanode("dn-a", 0);
    FileStatusProto created = client.create("/logs/day1", 0644, "c1", false, true, 1, 1 << 20, null);
    LocatedBlockProto block = client.addBlock("/logs/day1", created.getInodeId(), "c1", null);
    assertThat(block.getLocations(0).getDatanodeUuid()).isEqualTo("dn-a");
    client.complete("/logs/day1", created.getInodeId(), "c1",
        BlockProto.newBuilder().setBlockId(block.getBlock().getBlockId()).setNumBytes(42).build());
    HlcTimestamp afterWrite = client.currentTime();
    Thread.sleep(2);
    assertThat(client.delete("/logs/day1", false)).isTrue();

    assertThat(client.getFileInfo("/logs/day1", TimeSpec.latest())).isNull();
    FileStatusProto past = client.getFileInfo("/logs/day1", TimeSpec.system(afterWrite.physicalMicros()));
    assertThat(past.getLength()).isEqualTo(42);
    // The client carries the NameNode's HLC: it saw at least the stamp of the delete.
    assertThat(client.clock().last()).isGreaterThan(HlcTimestamp.fromProto(past.getVersionHlc()));
  }

  @Test
  void typedErrorsReachTheClient() throws Exception {
    assertThatThrownBy(() -> client.getFileInfo("/", TimeSpec.system(PhysicalClock.system().currentTimeMicros()
        + 10_000_000))).isInstanceOfSatisfying(FffsException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.TIME_IN_FUTURE));
    assertThatThrownBy(() -> client.create("relative", 0644, "c", false, true, 1, 1 << 20, null))
        .isInstanceOfSatisfying(FffsException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    client.create("/x", 0644, "c", false, true, 1, 1 << 20, null);
    assertThatThrownBy(() -> client.create("/x", 0644, "c", false, true, 1, 1 << 20, null))
        .isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_EXISTS);
          assertThat(e.getMessage()).isEqualTo("ALREADY_EXISTS: /x already exists; create it with overwrite to"
              + " replace it (its history stays readable)");
        });
    assertThatThrownBy(() -> client.addBlock("/x", 999_999, "c", null))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
  }

  @Test
  void aRequestWithADamagedTimeOrClockIsATypedRefusal() throws Exception {
    Configuration rpcConf = new Configuration(conf);
    RPC.setProtocolEngine(rpcConf, ClientNamenodeProtocolPB.class, ProtobufRpcEngine2.class);
    ClientNamenodeProtocolPB raw = RPC.getProxy(ClientNamenodeProtocolPB.class,
        RPC.getProtocolVersion(ClientNamenodeProtocolPB.class), nameNode.rpcAddress(), rpcConf);
    try {
      GetFileInfoRequestProto beforeTheEpoch = GetFileInfoRequestProto.newBuilder().setHlc(HlcTimestamp.ZERO.toProto())
          .setSrc("/").setTime(TimeSpecProto.newBuilder().setKind(TimeKindProto.SYSTEM).setMicros(-1)).build();
      assertThat(refusal(() -> raw.getFileInfo(null, beforeTheEpoch))).isEqualTo(ErrorCode.MALFORMED_TIME);
      GetFileInfoRequestProto damagedClock = GetFileInfoRequestProto.newBuilder()
          .setHlc(HlcProto.newBuilder().setPacked(-1)).setSrc("/").setTime(TimeSpec.latest().toProto()).build();
      assertThat(refusal(() -> raw.getFileInfo(null, damagedClock))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    } finally {
      RPC.stopProxy(raw);
    }
  }

  /** The code of the typed error a raw IPC call failed with. */
  private static ErrorCode refusal(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
    Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(call);
    assertThat(thrown).isInstanceOf(ServiceException.class);
    IOException failure = RemoteErrors.unwrap((ServiceException) thrown);
    assertThat(failure).as("a typed FFFS error, not %s", failure).isInstanceOf(FffsException.class);
    return ((FffsException) failure).code();
  }

  @Test
  void skewedDatanodeIsToldAndTakesNoBlocks() throws Exception {
    registerDatanode("dn-skewed", 2_000_000);
    HeartbeatResponseProto response = heartbeat("dn-skewed", 2_000_000);
    assertThat(response.getHealthy()).isFalse();
    assertThat(response.getUnhealthyReason()).contains("ahead");
    assertThat(response.getClockOffsetMicros()).isBetween(1_900_000L, 2_100_000L);

    FileStatusProto file = client.create("/f", 0644, "c", false, true, 1, 1 << 20, null);
    assertThatThrownBy(() -> client.addBlock("/f", file.getInodeId(), "c", null))
        .isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.NO_DATANODE);
          assertThat(e.detail()).contains("127.0.0.1:40000").contains("ahead");
        });
    // The NameNode's clock was not dragged 2 s into the future by the skewed DataNode.
    assertThat(client.currentTime().physicalMicros())
        .isLessThan(PhysicalClock.system().currentTimeMicros() + 1_000_000);

    String status = http("/status");
    assertThat(status).contains("\"id\":\"dn-skewed\"").contains("\"healthy\":false")
        .contains("\"transport\":\"tcp\"").contains("\"clockOffsetMicros\":");

    heartbeat("dn-skewed", 0);
    assertThat(http("/status")).contains("\"healthy\":true");
    client.addBlock("/f", file.getInodeId(), "c", null);

    HeartbeatResponseProto behind = heartbeat("dn-skewed", -1_000_000);
    assertThat(behind.getHealthy()).isFalse();
    // The measurement's uncertainty (half the 200 µs round trip) is not counted against the DataNode.
    assertThat(behind.getUnhealthyReason()).contains("999.9 ms behind the NameNode's");
    assertThat(behind.getClockOffsetMicros()).isEqualTo(-999_900);

    // 300 ms behind measured over a 400 ms round trip may be delay: not judged unhealthy.
    assertThat(heartbeat("dn-skewed", -300_000, 400_000).getHealthy()).isTrue();

    // A clock that just stepped 2 s ahead, while the DataNode's own filter still holds samples from before the
    // step: the one-way reading (which delay can only lower) shows the step at once.
    HeartbeatResponseProto stepped = heartbeat("dn-skewed", 2_000_000, 0, 200);
    assertThat(stepped.getHealthy()).isFalse();
    assertThat(stepped.getClockOffsetMicros()).isBetween(1_900_000L, 2_000_000L);
    assertThat(http("/status")).contains("\"clockOffsetMicros\":" + stepped.getClockOffsetMicros());
    assertThat(http("/status")).contains("\"measuredOffsetMicros\":0,\"offsetErrorMicros\":100");
    // A heartbeat without a measurement (none of the DataNode's recent samples was quick enough to judge by): the
    // older one is no longer shown as current.
    assertThat(heartbeat("dn-skewed", 2_000_000, Long.MIN_VALUE, 0).getHealthy()).isFalse();
    assertThat(http("/status")).contains("\"offsetErrorMicros\":-1");
  }

  @Test
  void httpServesStatusJmxPromAndPage() throws Exception {
    registerDatanode("dn-h", 0);
    String status = http("/status");
    assertThat(status).startsWith("{").contains("\"hlc\":").contains("\"safemode\":false")
        .contains("\"files\":").contains("\"blocks\":").contains("\"memoryUsedBytes\":")
        .contains("\"durableHlc\":");
    assertThat(http("/jmx")).contains("\"beans\"");
    assertThat(http("/prom")).isNotNull();
    assertThat(http("/conf")).contains("configuration");
    assertThat(http("/index.html")).contains("Freeze-Frame FS NameNode");
  }

  @Test
  void restartWaitsInSafeModeForBlockReports() throws Exception {
    registerDatanode("dn-s", 0);
    FileStatusProto created = client.create("/s", 0644, "c", false, true, 1, 1 << 20, null);
    LocatedBlockProto block = client.addBlock("/s", created.getInodeId(), "c", null);
    client.complete("/s", created.getInodeId(), "c", block.getBlock().toBuilder().setNumBytes(10).build());
    stopNameNode();
    startNameNode();

    assertThatThrownBy(() -> client.mkdirs("/blocked", 0755, true))
        .isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.SAFE_MODE);
          assertThat(e.detail()).contains("0 of 1 blocks reported");
        });
    assertThat(client.getFileInfo("/s", TimeSpec.latest()).getLength()).isEqualTo(10);
    registerDatanode("dn-s", 0);
    datanodeProxy.blockReport(null, BlockReportRequestProto.newBuilder().setHlc(datanodeClock.now().toProto())
        .setDatanodeUuid("dn-s").setDurableHlc(datanodeClock.now().toProto())
        .addBlocks(ReportedBlockProto.newBuilder().setBlockId(block.getBlock().getBlockId()).setNumBytes(10))
        .build());
    assertThat(client.mkdirs("/blocked", 0755, true)).isTrue();
    assertThat(client.getBlockLocations("/s", TimeSpec.latest(), 0, 10).getBlocks(0).getLocations(0)
        .getDatanodeUuid()).isEqualTo("dn-s");
  }
}
