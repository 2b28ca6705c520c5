package io.fffs.client.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.ReadResponseProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.ManualPhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.protocol.frame.ChunkChecksums;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** The client checks what a DataNode sends against the chunk CRCs it sent along, and merges the DataNode's HLC. */
class ReadVerificationTest {
  private static final long DN_HLC = 1_838_350_109_528_382_464L;

  /** Answers one READ with {@code payload} and the CRCs of {@code checksummed}. */
  private static CompletableFuture<Void> serveOnce(ServerSocket server, byte[] payload, byte[] checksummed) {
    return CompletableFuture.runAsync(() -> {
      try (Socket socket = server.accept()) {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int length = in.readInt();
        int headerLength = in.readInt();
        byte[] header = new byte[headerLength];
        in.readFully(header);
        in.skipNBytes(length - 4 - headerLength);
        RequestHeaderProto request = RequestHeaderProto.parseFrom(header);
        ReadResponseProto.Builder read = ReadResponseProto.newBuilder().setBlockLength(payload.length)
            .setResolvedHlc(HlcProto.newBuilder().setPacked(DN_HLC - 5))
            .setChunkCrcs(ChunkChecksums.toWire(ChunkChecksums.of(ByteBuffer.wrap(checksummed))));
        byte[] response = ResponseHeaderProto.newBuilder().setCallId(request.getCallId())
            .setHlc(HlcProto.newBuilder().setPacked(DN_HLC)).setRead(read).build().toByteArray();
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(4 + response.length + payload.length);
        out.writeInt(response.length);
        out.write(response);
        out.write(payload);
        out.flush();
        in.read();
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
  }

  @Test
  void aPayloadThatDoesNotMatchItsChecksumsIsCorruptNamingBlockAndOffset() throws Exception {
    byte[] sent = new byte[2000];
    byte[] damaged = sent.clone();
    damaged[1500] = 1;
    Configuration conf = new Configuration(false);
    // the fake DataNode speaks the data port only; a client on its host would otherwise ask LOCAL_READ first
    conf.setBoolean(DataTransferConfigKeys.SHORT_CIRCUIT_KEY, false);
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      HybridLogicalClock clock = new HybridLogicalClock(new ManualPhysicalClock(DN_HLC >>> 10), 250_000);
      DataTransferClient client = DataTransferClients.tcp(conf, clock);
      DatanodeIdProto dn = DatanodeIdProto.newBuilder().setDatanodeUuid("fake").setHost("127.0.0.1")
          .setDataPort(server.getLocalPort()).setIpcPort(0).build();
      CompletableFuture<Void> served = serveOnce(server, damaged, sent);
      assertThatThrownBy(() -> client.read(dn, 77, 4096, ByteBuffer.allocate(2000), TimeSpec.latest()))
          .isInstanceOfSatisfying(FffsException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT);
            assertThat(e.detail()).contains("block 77").contains("offset " + (4096 + 1024));
          });
      assertThat(clock.last().packed()).isEqualTo(DN_HLC);
      client.close();
      served.get();

      CompletableFuture<Void> good = serveOnce(server, sent, sent);
      try (DataTransferClient second = DataTransferClients.tcp(conf,
          new HybridLogicalClock(new ManualPhysicalClock(DN_HLC >>> 10), 250_000))) {
        ReadResult result = second.read(dn, 77, 0, ByteBuffer.allocate(2000), TimeSpec.latest());
        assertThat(result.bytesRead()).isEqualTo(2000);
        assertThat(result.resolvedHlc().packed()).isEqualTo(DN_HLC - 5);
      }
      good.get();
    }
  }
}
