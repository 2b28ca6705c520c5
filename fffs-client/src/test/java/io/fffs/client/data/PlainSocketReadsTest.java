package io.fffs.client.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.ReadRequestProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.protocol.transport.ReadAnswer;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Plain-socket read channels against a scripted DataNode on a loopback socket: answers that come in another order
 * than asked reach their own calls; a kept connection the DataNode closed is replaced when leased again; a DataNode
 * that does not answer condemns the channel within the response timeout and it is not kept.
 */
class PlainSocketReadsTest {
  private static final long TIMEOUT_MS = 20_000;

  private static DatanodeIdProto dn(ServerSocket server) {
    return DatanodeIdProto.newBuilder().setDatanodeUuid("scripted").setHost("127.0.0.1")
        .setDataPort(server.getLocalPort()).setIpcPort(0).build();
  }

  private static RequestHeaderProto.Builder read(long offset, int length) {
    return RequestHeaderProto.newBuilder().setOp(OpProto.READ).setHlc(HlcProto.newBuilder().setPacked(1))
        .setRead(ReadRequestProto.newBuilder().setBlockId(7).setOffset(offset).setLength(length)
            .setTime(TimeSpec.latest().toProto()));
  }

  private static RequestHeaderProto receive(DataInputStream in) throws IOException {
    int length = in.readInt();
    byte[] header = new byte[in.readInt()];
    in.readFully(header);
    in.skipNBytes(length - 4 - header.length);
    return RequestHeaderProto.parseFrom(header);
  }

  /** Answers {@code request} with {@code length} bytes each equal to its offset's low byte. */
  private static void answer(DataOutputStream out, RequestHeaderProto request) throws IOException {
    byte[] response = ResponseHeaderProto.newBuilder().setCallId(request.getCallId())
        .setHlc(HlcProto.newBuilder().setPacked(2)).build().toByteArray();
    byte[] body = new byte[request.getRead().getLength()];
    java.util.Arrays.fill(body, (byte) request.getRead().getOffset());
    out.writeInt(4 + response.length + body.length);
    out.writeInt(response.length);
    out.write(response);
    out.write(body);
    out.flush();
  }

  /** A DataNode that takes {@code requests} requests and answers none; true once the client closed on it. */
  private static CompletableFuture<Boolean> neverAnswering(ServerSocket server, int requests) {
    return CompletableFuture.supplyAsync(() -> {
      try (Socket socket = server.accept()) {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        for (int i = 0; i < requests; i++) {
          receive(in);
        }
        return in.read() < 0;
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    });
  }

  private static byte[] bytes(ReadAnswer answer) {
    ByteBuffer all = ByteBuffer.allocate(answer.length());
    for (ByteBuffer piece : answer.payload()) {
      all.put(piece);
    }
    return all.array();
  }

  @Test
  void answersThatComeInAnotherOrderReachTheirOwnCalls() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        PlainSocketReads reads = new PlainSocketReads(TIMEOUT_MS, TIMEOUT_MS, 16 << 20, 4)) {
      CompletableFuture<Void> served = CompletableFuture.runAsync(() -> {
        try (Socket socket = server.accept()) {
          DataInputStream in = new DataInputStream(socket.getInputStream());
          DataOutputStream out = new DataOutputStream(socket.getOutputStream());
          List<RequestHeaderProto> asked = new ArrayList<>();
          for (int i = 0; i < 3; i++) {
            asked.add(receive(in));
          }
          for (int i = 2; i >= 0; i--) {
            answer(out, asked.get(i));  // last asked, first answered
          }
          in.read();  // until the client closes
        } catch (IOException e) {
          throw new RuntimeException(e);
        }
      });
      PlainSocketChannel channel = reads.open(dn(server));
      List<CompletableFuture<ReadAnswer>> answers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        answers.add(channel.read(read(i + 1, 1000 * (i + 1)), 1000 * (i + 1), true, false));
      }
      channel.flush();
      for (int i = 0; i < 3; i++) {
        ReadAnswer answer = channel.await(answers.get(i));
        byte[] expected = new byte[1000 * (i + 1)];
        java.util.Arrays.fill(expected, (byte) (i + 1));
        assertThat(bytes(answer)).isEqualTo(expected);
        answer.release();
      }
      channel.release();
      reads.close();
      served.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }
  }

  @Test
  void aKeptConnectionTheDataNodeClosedIsReplacedWhenLeasedAgain() throws Exception {
    CountDownLatch firstClosed = new CountDownLatch(1);
    try (ServerSocket server = new ServerSocket(0, 2, InetAddress.getLoopbackAddress());
        PlainSocketReads reads = new PlainSocketReads(TIMEOUT_MS, TIMEOUT_MS, 16 << 20, 4)) {
      CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() -> {
        int connections = 0;
        try {
          for (int c = 0; c < 2; c++) {
            try (Socket socket = server.accept()) {
              connections++;
              DataInputStream in = new DataInputStream(socket.getInputStream());
              answer(new DataOutputStream(socket.getOutputStream()), receive(in));
              if (c == 1) {
                in.read();
              }
            }
            firstClosed.countDown();  // the DataNode dropped the first connection (a restart, an idle timeout)
          }
        } catch (IOException e) {
          throw new RuntimeException(e);
        }
        return connections;
      });
      PlainSocketChannel first = reads.open(dn(server));
      first.await(first.read(read(4, 100), 100, true, true)).release();
      first.release();  // kept
      assertThat(firstClosed.await(TIMEOUT_MS, TimeUnit.MILLISECONDS)).isTrue();

      PlainSocketChannel second = reads.open(dn(server));
      assertThat(second).isNotSameAs(first);
      ReadAnswer answer = second.await(second.read(read(5, 200), 200, true, true));
      assertThat(answer.length()).isEqualTo(200);
      answer.release();
      second.release();
      reads.close();
      assertThat(served.get(TIMEOUT_MS, TimeUnit.MILLISECONDS)).isEqualTo(2);
    }
  }

  @Test
  void aDataNodeThatDoesNotAnswerCondemnsTheChannelWithinTheTimeout() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 2, InetAddress.getLoopbackAddress());
        PlainSocketReads reads = new PlainSocketReads(TIMEOUT_MS, 300, 16 << 20, 4)) {
      CompletableFuture<Boolean> served = neverAnswering(server, 2);
      PlainSocketChannel channel = reads.open(dn(server));
      CompletableFuture<ReadAnswer> first = channel.read(read(0, 100), 100, true, false);
      CompletableFuture<ReadAnswer> second = channel.read(read(100, 100), 100, true, true);
      assertThatThrownBy(() -> channel.await(first)).isInstanceOf(IOException.class)
          .hasMessageContaining("did not answer within 300 ms");
      assertThat(second).isCompletedExceptionally();
      channel.release();  // condemned: closed, not kept
      assertThat(served.get(TIMEOUT_MS, TimeUnit.MILLISECONDS)).isTrue();
    }
  }

  @Test
  void anInterruptedReaderStopsWaitingWithoutTheTimeout() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 2, InetAddress.getLoopbackAddress());
        PlainSocketReads reads = new PlainSocketReads(TIMEOUT_MS, TIMEOUT_MS, 16 << 20, 4)) {
      CompletableFuture<Boolean> served = neverAnswering(server, 1);
      PlainSocketChannel channel = reads.open(dn(server));
      CompletableFuture<ReadAnswer> answer = channel.read(read(0, 100), 100, true, true);
      Thread.currentThread().interrupt();  // as a task is cancelled: set before or during the wait, the same
      long start = System.nanoTime();
      try {
        assertThatThrownBy(() -> channel.await(answer)).isInstanceOf(java.io.InterruptedIOException.class);
      } finally {
        assertThat(Thread.interrupted()).isTrue();
      }
      assertThat(System.nanoTime() - start).isLessThan(TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS));
      channel.release();  // condemned: closed, not kept
      assertThat(served.get(TIMEOUT_MS, TimeUnit.MILLISECONDS)).isTrue();
    }
  }

  @Test
  void aDataNodeNameThatDoesNotResolveIsAnIoErrorAndIsLookedUpAgainNextTime() throws Exception {
    DatanodeIdProto unknown = DatanodeIdProto.newBuilder().setDatanodeUuid("unknown")
        .setHost("no-such-datanode.invalid").setDataPort(50010).setIpcPort(0).build();
    try (PlainSocketReads reads = new PlainSocketReads(TIMEOUT_MS, TIMEOUT_MS, 16 << 20, 4)) {
      for (int attempt = 0; attempt < 2; attempt++) {
        assertThatThrownBy(() -> reads.open(unknown)).isInstanceOf(IOException.class)
            .hasMessageContaining("no-such-datanode.invalid");
        assertThat(reads.knows(unknown)).as("an unresolved name is not kept").isFalse();
      }
    }
    try (ServerSocket server = new ServerSocket(0, 2, InetAddress.getLoopbackAddress());
        PlainSocketReads reads = new PlainSocketReads(TIMEOUT_MS, TIMEOUT_MS, 16 << 20, 4)) {
      reads.open(dn(server)).release();
      assertThat(reads.knows(dn(server))).as("a resolved one is").isTrue();
    }
  }
}
