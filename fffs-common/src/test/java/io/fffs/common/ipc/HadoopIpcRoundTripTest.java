package io.fffs.common.ipc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.ipc.PingProtos.PingRequestProto;
import io.fffs.common.ipc.PingProtos.PingResponseProto;
import io.fffs.common.proto.CommonProtos.ErrorCodeProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.ManualPhysicalClock;
import java.net.InetSocketAddress;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.ProtobufRpcEngine2;
import org.apache.hadoop.ipc.ProtocolInfo;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.thirdparty.protobuf.RpcController;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A tiny protobuf service over real Hadoop IPC on loopback: HLC both ways, typed errors back. */
class HadoopIpcRoundTripTest {
  private static final long MAX_OFFSET = 250_000;

  @ProtocolInfo(protocolName = "io.fffs.test.PingProtocol", protocolVersion = 1)
  interface PingPB extends PingProtos.PingService.BlockingInterface {}

  private final ManualPhysicalClock serverPhysical = new ManualPhysicalClock(5_000_000);
  private final HybridLogicalClock serverClock = new HybridLogicalClock(serverPhysical, MAX_OFFSET);
  private final ManualPhysicalClock clientPhysical = new ManualPhysicalClock(4_900_000);
  private final HybridLogicalClock clientClock = new HybridLogicalClock(clientPhysical, MAX_OFFSET);

  private RPC.Server server;
  private PingPB proxy;

  /** The server side: merge the caller's HLC, stamp one state change, answer with the server's HLC. */
  private final class PingServer implements PingPB {
    @Override
    public PingResponseProto ping(RpcController controller, PingRequestProto request) throws ServiceException {
      try {
        serverClock.receive(HlcTimestamp.fromProto(request.getHlc()));
        if (request.hasFail()) {
          throw new FffsException(ErrorCode.valueOf(request.getFail().name()), "refused " + request.getText());
        }
        HlcTimestamp stamp = serverClock.tick();
        return PingResponseProto.newBuilder().setHlc(stamp.toProto()).setText("pong " + request.getText()).build();
      } catch (FffsException e) {
        throw RemoteErrors.toServiceException(e);
      }
    }
  }

  @BeforeEach
  void start() throws Exception {
    Configuration conf = new Configuration();
    RPC.setProtocolEngine(conf, PingPB.class, ProtobufRpcEngine2.class);
    server = new RPC.Builder(conf)
        .setProtocol(PingPB.class)
        .setInstance(PingProtos.PingService.newReflectiveBlockingService(new PingServer()))
        .setBindAddress("127.0.0.1")
        .setPort(0)
        .setNumHandlers(2)
        .build();
    server.start();
    InetSocketAddress address = NetUtils.getConnectAddress(server);
    proxy = RPC.getProxy(PingPB.class, RPC.getProtocolVersion(PingPB.class), address, conf);
  }

  @AfterEach
  void stop() {
    if (proxy != null) {
      RPC.stopProxy(proxy);
    }
    if (server != null) {
      server.stop();
    }
  }

  private PingResponseProto call(PingRequestProto.Builder request) throws Exception {
    try {
      PingResponseProto response = proxy.ping(null, request.setHlc(clientClock.now().toProto()).build());
      clientClock.observe(HlcTimestamp.fromProto(response.getHlc()));
      return response;
    } catch (ServiceException e) {
      throw RemoteErrors.unwrap(e);
    }
  }

  @Test
  void hlcTravelsBothWaysAndIsMerged() throws Exception {
    clientClock.observe(HlcTimestamp.of(5_100_000, 7));
    HlcTimestamp sent = clientClock.now();

    PingResponseProto response = call(PingRequestProto.newBuilder().setText("a"));

    HlcTimestamp answered = HlcTimestamp.fromProto(response.getHlc());
    assertThat(response.getText()).isEqualTo("pong a");
    // The server merged the client's HLC (ahead of its own physical clock, within the offset) before stamping.
    assertThat(answered).isGreaterThan(sent);
    assertThat(answered.physicalMicros()).isEqualTo(5_100_000);
    assertThat(answered.logical()).isEqualTo(9);
    // The client carries the server's HLC without ticking.
    assertThat(clientClock.last()).isEqualTo(answered);
  }

  @Test
  void typedErrorReachesTheClientWithCodeAndSentence() {
    assertThatThrownBy(() -> call(PingRequestProto.newBuilder().setText("x").setFail(ErrorCodeProto.TIME_IN_FUTURE)))
        .isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.TIME_IN_FUTURE);
          assertThat(e.detail()).isEqualTo("refused x");
          assertThat(e.getMessage()).isEqualTo("TIME_IN_FUTURE: refused x");
        });
  }

  @Test
  void everyCodeSurvivesTheTrip() throws Exception {
    for (ErrorCode code : ErrorCode.values()) {
      try {
        call(PingRequestProto.newBuilder().setText(code.name()).setFail(ErrorCodeProto.valueOf(code.name())));
        throw new AssertionError("no error for " + code);
      } catch (FffsException e) {
        assertThat(e.code()).isEqualTo(code);
        assertThat(e.detail()).isEqualTo("refused " + code.name());
      }
    }
  }

  @Test
  void skewedCallerIsRefusedAndServerClockUnchanged() throws Exception {
    call(PingRequestProto.newBuilder().setText("warm-up"));
    HlcTimestamp before = serverClock.last();
    clientClock.observe(HlcTimestamp.of(serverPhysical.currentTimeMicros() + 2_000_000, 0));

    assertThatThrownBy(() -> call(PingRequestProto.newBuilder().setText("late")))
        .isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.CLOCK_SKEW);
          assertThat(e.detail()).contains("2 s ahead").contains("max offset 250 ms");
        });
    assertThat(serverClock.last()).isEqualTo(before);
  }
}
