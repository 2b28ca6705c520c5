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
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.ManualPhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.protocol.frame.ChunkChecksums;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * A block read is split into {@code fffs.client.read.request-size} requests that are all on the wire before the
 * first answer comes back. The peer here is a scripted DataNode on a loopback socket that reads every request of a
 * read before it answers any: a client that waited for each answer before sending the next request would time out.
 */
class PipelinedReadTest {
  private static final long DN_HLC = 1_838_350_109_528_382_464L;
  private static final int REQUEST = 4096;
  private static final long BLOCK = 91;

  /** What the scripted DataNode answers to the i-th request of a read (at block offset {@code offset}). */
  @FunctionalInterface
  interface Script {
    ResponseHeaderProto.Builder answer(int index, long offset, int length, List<byte[]> payloadOut);
  }

  private static Configuration conf() {
    Configuration conf = new Configuration(false);
    // the fake DataNode speaks the data port only; a client on its host would otherwise ask LOCAL_READ first
    conf.setBoolean(DataTransferConfigKeys.SHORT_CIRCUIT_KEY, false);
    conf.setInt(DataTransferConfigKeys.READ_REQUEST_SIZE_KEY, REQUEST);
    conf.setInt(DataTransferConfigKeys.READ_REQUESTS_IN_FLIGHT_KEY, 8);
    conf.set(DataTransferConfigKeys.RESPONSE_TIMEOUT_KEY, "20s");
    return conf;
  }

  private static byte[] block(int length) {
    byte[] bytes = new byte[length];
    new Random(5).nextBytes(bytes);
    return bytes;
  }

  /** The answer to a READ of {@code payload} with the checksums of {@code checksummed}. */
  private static ResponseHeaderProto.Builder readAnswer(byte[] checksummed, long blockLength) {
    ReadResponseProto.Builder read = ReadResponseProto.newBuilder().setBlockLength(blockLength)
        .setResolvedHlc(HlcProto.newBuilder().setPacked(DN_HLC - 5))
        .setChunkCrcs(ChunkChecksums.toWire(ChunkChecksums.of(ByteBuffer.wrap(checksummed))));
    return ResponseHeaderProto.newBuilder().setRead(read);
  }

  /**
   * Serves {@code reads} reads of {@code requestsPerRead} requests each on one connection: reads all requests of a
   * read, then answers them in order; returns the offsets asked, in order.
   */
  private static CompletableFuture<List<Long>> serve(ServerSocket server, int reads, int requestsPerRead,
      Script script) {
    return CompletableFuture.supplyAsync(() -> {
      List<Long> asked = new ArrayList<>();
      try (Socket socket = server.accept()) {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        for (int r = 0; r < reads; r++) {
          List<RequestHeaderProto> requests = new ArrayList<>();
          for (int i = 0; i < requestsPerRead; i++) {
            requests.add(readRequest(in));
          }
          for (int i = 0; i < requests.size(); i++) {
            RequestHeaderProto request = requests.get(i);
            asked.add(request.getRead().getOffset());
            List<byte[]> payload = new ArrayList<>();
            ResponseHeaderProto.Builder answer =
                script.answer(i, request.getRead().getOffset(), request.getRead().getLength(), payload);
            if (!answer.hasHlc()) {
              answer.setHlc(HlcProto.newBuilder().setPacked(DN_HLC));
            }
            byte[] response = answer.setCallId(request.getCallId()).build().toByteArray();
            byte[] body = payload.isEmpty() ? new byte[0] : payload.get(0);
            out.writeInt(4 + response.length + body.length);
            out.writeInt(response.length);
            out.write(response);
            out.write(body);
          }
          out.flush();
        }
        in.read();
      } catch (EOFException e) {
        // the client closed the connection
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
      return asked;
    });
  }

  /** The next request frame a scripted DataNode receives: its header (a request's payload is skipped). */
  static RequestHeaderProto readRequest(DataInputStream in) throws java.io.IOException {
    int length = in.readInt();
    byte[] header = new byte[in.readInt()];
    in.readFully(header);
    in.skipNBytes(length - 4 - header.length);
    return RequestHeaderProto.parseFrom(header);
  }

  private static DatanodeIdProto dn(ServerSocket server) {
    return DatanodeIdProto.newBuilder().setDatanodeUuid("scripted").setHost("127.0.0.1")
        .setDataPort(server.getLocalPort()).setIpcPort(0).build();
  }

  private static DataTransferClient client() throws FffsException {
    return DataTransferClients.tcp(conf(), new HybridLogicalClock(new ManualPhysicalClock(DN_HLC >>> 10),
        250_000));
  }

  @Test
  void allRequestsOfAReadAreSentBeforeTheFirstAnswerAndTheBytesLandInOrder() throws Exception {
    byte[] data = block(6 * REQUEST);
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        DataTransferClient client = client()) {
      CompletableFuture<List<Long>> served = serve(server, 1, 5, (i, offset, length, payload) -> {
        byte[] piece = java.util.Arrays.copyOfRange(data, (int) offset, (int) offset + length);
        payload.add(piece);
        return readAnswer(piece, data.length);
      });
      ByteBuffer dst = ByteBuffer.allocate(5 * REQUEST - 100);
      ReadResult result = client.read(dn(server), BLOCK, REQUEST, dst, TimeSpec.latest());
      assertThat(result.bytesRead()).isEqualTo(5 * REQUEST - 100);
      assertThat(result.blockLength()).isEqualTo(data.length);
      assertThat(dst.array()).isEqualTo(java.util.Arrays.copyOfRange(data, REQUEST, 6 * REQUEST - 100));
      client.close();
      assertThat(served.get(30, TimeUnit.SECONDS)).containsExactly(4096L, 8192L, 12288L, 16384L, 20480L);
    }
  }

  /**
   * A DataNode whose clock runs 5 s ahead (max offset 250 ms) is still read from, but its HLC is not taken into the
   * client's clock (which the client would carry to the NameNode and healthy DataNodes), and its replicas are read
   * last until it answers within the offset again.
   */
  @Test
  void aReadFromADataNodeBeyondTheMaxOffsetIsServedWithoutTakingInItsClock() throws Exception {
    byte[] data = block(2 * REQUEST);
    long clientMicros = DN_HLC >>> HlcTimestamp.LOGICAL_BITS;
    HybridLogicalClock clock = new HybridLogicalClock(new ManualPhysicalClock(clientMicros), 250_000);
    long ahead = HlcTimestamp.of(clientMicros + 5_000_000, 0).packed();
    AtomicInteger answers = new AtomicInteger();
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        DataTransferClient client = DataTransferClients.tcp(conf(), clock)) {
      serve(server, 2, 2, (i, offset, length, payload) -> {
        byte[] piece = java.util.Arrays.copyOfRange(data, (int) offset, (int) offset + length);
        payload.add(piece);
        ResponseHeaderProto.Builder answer = readAnswer(piece, data.length);
        return answers.getAndIncrement() < 2 ? answer.setHlc(HlcProto.newBuilder().setPacked(ahead)) : answer;
      });
      ByteBuffer dst = ByteBuffer.allocate(2 * REQUEST);
      assertThat(client.read(dn(server), BLOCK, 0, dst, TimeSpec.latest()).bytesRead()).isEqualTo(2 * REQUEST);
      assertThat(dst.array()).isEqualTo(data);
      assertThat(clock.last().packed()).as("the skewed clock was not taken in").isLessThan(DN_HLC);
      assertThat(client.skewedAhead(dn(server))).isTrue();

      dst.clear();
      assertThat(client.read(dn(server), BLOCK, 0, dst, TimeSpec.latest()).bytesRead()).isEqualTo(2 * REQUEST);
      assertThat(clock.last().packed()).as("an answer within the offset is taken in").isEqualTo(DN_HLC);
      assertThat(client.skewedAhead(dn(server))).as("forgiven once within the offset").isFalse();
    }
  }

  @Test
  void aDamagedChunkInALaterAnswerIsCorruptNamingItsOwnOffset() throws Exception {
    byte[] data = block(8 * REQUEST);
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        DataTransferClient client = client()) {
      serve(server, 1, 4, (i, offset, length, payload) -> {
        byte[] piece = java.util.Arrays.copyOfRange(data, (int) offset, (int) offset + length);
        byte[] sent = piece.clone();
        if (i == 2) {
          sent[1000] ^= 1;  // in the third answer's chunk that starts 512 bytes into it
        }
        payload.add(sent);
        return readAnswer(piece, data.length);
      });
      ByteBuffer dst = ByteBuffer.allocate(4 * REQUEST);
      assertThatThrownBy(() -> client.read(dn(server), BLOCK, 2 * REQUEST, dst, TimeSpec.latest()))
          .isInstanceOfSatisfying(FffsException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT);
            assertThat(e.detail()).contains("block " + BLOCK).contains("offset " + (2 * REQUEST + 2 * REQUEST + 512));
          });
    }
  }

  @Test
  void aShortAnswerEndsTheReadAndAnswersPastTheEndAreDroppedKeepingTheConnection() throws Exception {
    int blockLength = REQUEST + 100;
    byte[] data = block(blockLength);
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        DataTransferClient client = client()) {
      // The block is 4196 bytes as of the time read; the client asks for 4 requests' worth.
      CompletableFuture<List<Long>> served = serve(server, 2, 4, (i, offset, length, payload) -> {
        if (offset > blockLength) {
          return ResponseHeaderProto.newBuilder().setError(new FffsException(ErrorCode.INVALID_ARGUMENT,
              "offset " + offset + " is past the end").toProto());
        }
        byte[] piece = java.util.Arrays.copyOfRange(data, (int) offset,
            (int) Math.min(blockLength, offset + length));
        payload.add(piece);
        return readAnswer(piece, blockLength);
      });
      for (int read = 0; read < 2; read++) {
        ByteBuffer dst = ByteBuffer.allocate(4 * REQUEST);
        ReadResult result = client.read(dn(server), BLOCK, 0, dst, TimeSpec.latest());
        assertThat(result.bytesRead()).isEqualTo(blockLength);
        assertThat(dst.position()).isEqualTo(blockLength);
        assertThat(java.util.Arrays.copyOf(dst.array(), blockLength)).isEqualTo(data);
      }
      client.close();
      // Both reads went over the one connection the scripted DataNode accepted.
      assertThat(served.get(30, TimeUnit.SECONDS)).hasSize(8);
    }
  }

  @Test
  void aStreamsRequestsDoubleUpToTheStreamRequestSize() throws Exception {
    int blockLength = 16 * REQUEST + 100;
    byte[] data = block(blockLength);
    Configuration conf = conf();
    conf.setInt(DataTransferConfigKeys.READ_STREAM_REQUEST_SIZE_KEY, 4 * REQUEST);
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        DataTransferClient client = DataTransferClients.tcp(conf,
            new HybridLogicalClock(new ManualPhysicalClock(DN_HLC >>> 10), 250_000))) {
      // Answers each request as it arrives; records its offset and length.
      CompletableFuture<List<int[]>> served = CompletableFuture.supplyAsync(() -> {
        List<int[]> asked = new ArrayList<>();
        try (Socket socket = server.accept()) {
          DataInputStream in = new DataInputStream(socket.getInputStream());
          DataOutputStream out = new DataOutputStream(socket.getOutputStream());
          while (true) {
            RequestHeaderProto request = readRequest(in);
            int offset = (int) request.getRead().getOffset();
            byte[] piece = java.util.Arrays.copyOfRange(data, offset,
                Math.min(blockLength, offset + request.getRead().getLength()));
            asked.add(new int[] {offset, request.getRead().getLength()});
            byte[] response = readAnswer(piece, blockLength).setCallId(request.getCallId())
                .setHlc(HlcProto.newBuilder().setPacked(DN_HLC)).build().toByteArray();
            out.writeInt(4 + response.length + piece.length);
            out.writeInt(response.length);
            out.write(response);
            out.write(piece);
            out.flush();
          }
        } catch (EOFException e) {
          return asked;  // the client closed the connection
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      ByteBuffer dst = ByteBuffer.allocate(blockLength);
      try (BlockReadStream stream = client.openStream(dn(server), BLOCK, null, 0, blockLength,
          TimeSpec.latest())) {
        // The first request goes before the caller takes a byte; the next ones while it takes the answers.
        ByteBuffer piece = ByteBuffer.allocate(1000);
        for (int n; (n = stream.read(piece.clear())) >= 0; ) {
          dst.put(piece.flip());
          assertThat(n).isPositive();
        }
      }
      assertThat(dst.array()).isEqualTo(data);
      client.close();
      List<int[]> asked = served.get(30, TimeUnit.SECONDS);
      assertThat(asked.stream().map(a -> a[1]).toList())
          .containsExactly(REQUEST, 2 * REQUEST, 4 * REQUEST, 4 * REQUEST, 4 * REQUEST, REQUEST + 100);
      int at = 0;
      for (int[] request : asked) {
        assertThat(request[0]).isEqualTo(at);
        at += request[1];
      }
    }
  }
}
