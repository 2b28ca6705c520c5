package io.fffs.client.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.data.netty.NettyTransport;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.LocalExtentProto;
import io.fffs.common.proto.DataTransferProtos.LocalReadResponseProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.ManualPhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short-circuit reader asks where the bytes are over a plain blocking connection and never starts the TCP
 * transport. The peer is a scripted DataNode on a loopback socket that answers LOCAL_READ with extents of an "arena"
 * file in a temporary directory, on the one connection it accepts.
 */
class BlockingShortCircuitTest {
  private static final long DN_HLC = 1_838_350_109_528_382_464L;
  private static final long INSTANCE = 7;
  private static final long BLOCK = 91;
  private static final int REQUEST = 64 << 10;

  @TempDir
  Path dir;

  /** Answers every LOCAL_READ on one connection from {@code arena}; returns the offsets asked, in order. */
  private static CompletableFuture<List<Long>> serve(ServerSocket server, Path arena, Path epoch, int blockLength) {
    return CompletableFuture.supplyAsync(() -> {
      List<Long> asked = new ArrayList<>();
      try (Socket socket = server.accept()) {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        while (true) {
          RequestHeaderProto request = PipelinedReadTest.readRequest(in);
          assertThat(request.getOp()).isEqualTo(OpProto.LOCAL_READ);
          long offset = request.getRead().getOffset();
          asked.add(offset);
          int give = (int) Math.min(request.getRead().getLength(), blockLength - offset);
          LocalReadResponseProto.Builder local = LocalReadResponseProto.newBuilder().setBlockLength(blockLength)
              .setResolvedHlc(HlcProto.newBuilder().setPacked(DN_HLC - 5))
              .setArenaEpochFile(epoch.toString()).setArenaInstance(INSTANCE);
          if (give > 0) {
            local.addExtents(LocalExtentProto.newBuilder().setPath(arena.toString()).setPosition(offset)
                .setLength(give).setFirstSeq(1));
          }
          byte[] response = ResponseHeaderProto.newBuilder().setCallId(request.getCallId())
              .setHlc(HlcProto.newBuilder().setPacked(DN_HLC)).setLocalRead(local).build().toByteArray();
          out.writeInt(4 + response.length);
          out.writeInt(response.length);
          out.write(response);
          out.flush();
        }
      } catch (EOFException e) {
        return asked;  // the client closed the connection
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
  }

  @Test
  void shortCircuitReadsGoOverOneBlockingConnectionAndNeverStartTheTcpTransport() throws Exception {
    byte[] data = new byte[3 * REQUEST + 100];
    new Random(5).nextBytes(data);
    Path arena = Files.write(dir.resolve("pages-0"), data);
    Path epoch = Files.write(dir.resolve("epoch"), ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
        .putLong(INSTANCE).putLong(0).array());
    Configuration conf = new Configuration(false);
    conf.setInt(DataTransferConfigKeys.SHORT_CIRCUIT_REQUEST_SIZE_KEY, REQUEST);
    conf.set(DataTransferConfigKeys.RESPONSE_TIMEOUT_KEY, "20s");
    AtomicInteger started = new AtomicInteger();
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture<List<Long>> served = serve(server, arena, epoch, data.length);
      DatanodeIdProto dn = DatanodeIdProto.newBuilder().setDatanodeUuid("scripted").setHost("127.0.0.1")
          .setDataPort(server.getLocalPort()).setIpcPort(0).build();
      DataTransferClient client = new ChannelDataTransferClient(conf,
          new HybridLogicalClock(new ManualPhysicalClock(DN_HLC >>> 10), 250_000), () -> {
            started.incrementAndGet();
            return new NettyTransport(conf);
          }, null);
      try {
        ByteBuffer dst = ByteBuffer.allocate(2 * REQUEST);
        ReadResult result = client.read(dn, BLOCK, null, 100, dst, TimeSpec.latest());
        assertThat(result.bytesRead()).isEqualTo(2 * REQUEST);
        assertThat(result.blockLength()).isEqualTo(data.length);
        assertThat(dst.array()).isEqualTo(Arrays.copyOfRange(data, 100, 100 + 2 * REQUEST));

        BlockReadStream stream = client.openStream(dn, BLOCK, null, 2 * REQUEST, data.length, TimeSpec.latest());
        ByteBuffer rest = ByteBuffer.allocate(data.length);
        while (stream.read(rest) > 0) {
          // to the block's end
        }
        stream.close();
        assertThat(Arrays.copyOf(rest.array(), rest.position()))
            .isEqualTo(Arrays.copyOfRange(data, 2 * REQUEST, data.length));
        // two requests' worth from the read, the rest of the block from the stream
        assertThat(client.shortCircuitStats().bytes.sum()).isEqualTo(data.length);
      } finally {
        client.close();
      }
      assertThat(served.get(30, TimeUnit.SECONDS)).containsExactly(100L, 100L + REQUEST, 2L * REQUEST,
          3L * REQUEST);
      assertThat(started).hasValue(0);
    }
  }
}
