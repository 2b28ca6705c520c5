package io.fffs.minicluster.dataserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.proto.DataTransferProtos.ChainMemberProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.datanode.server.DataServer;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.protocol.frame.ChunkChecksums;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chained write whose next member takes no connection — a listening socket whose accept queue is full, so the
 * kernel drops every new SYN, as for a host whose link is down — is applied here and answered without that member
 * once the chain timeout the client sent has passed, and the store writer is not held meanwhile: another
 * connection's write, which goes through the same thread, is acknowledged before that answer.
 */
class ChainUnreachableTest {
  /** A member with one after it waits half of this for it, connecting included. */
  private static final int CHAIN_TIMEOUT_MS = 10_000;

  @TempDir
  Path dir;

  @Test
  void aNextMemberThatTakesNoConnectionHoldsUpNoOtherWrite() throws Exception {
    List<Socket> queued = new ArrayList<>();
    try (DataNodeFixture f = new DataNodeFixture(dir);
        ServerSocket hole = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      f.conf.setInt(DataServer.INLINE_WRITE_MAX_KEY, 0);  // every write through the store writer thread
      f.conf.setLong(DataTransferConfigKeys.CONNECT_TIMEOUT_KEY, CHAIN_TIMEOUT_MS / 2);
      f.start();
      fillAcceptQueue(hole, queued);
      try (RawConnection chained = new RawConnection(f.datanode.dataAddress())) {
        byte[] data = BlockBytes.randomBytes(new java.util.Random(5), 1024);
        RequestHeaderProto write = DataPathTest.write(1, 900, 0, ChunkChecksums.of(ByteBuffer.wrap(data)));
        chained.send(write.toBuilder().setWrite(write.getWrite().toBuilder().setStreamId(1)
            .setChainTimeoutMs(CHAIN_TIMEOUT_MS).addDownstream(ChainMemberProto.newBuilder()
                .setHost("127.0.0.1").setDataPort(hole.getLocalPort()))).build(), data);
        long sent = System.nanoTime();
        CompletableFuture<Long> answeredAt = new CompletableFuture<>();
        CompletableFuture<ResponseHeaderProto> answer = CompletableFuture.supplyAsync(() -> {
          try {
            ResponseHeaderProto received = chained.receive();
            answeredAt.complete(System.nanoTime());
            return received;
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });

        try (BlockWriter other = f.client().openWriter(f.datanode.datanodeId(), 901,
            new WriteOptions(1 << 20, null))) {
          other.write(0, ByteBuffer.wrap(data));
          assertThat(other.flush()).isEqualTo(data.length);
        }
        long otherDoneAt = System.nanoTime();

        ResponseHeaderProto chainedAnswer = answer.get(60, TimeUnit.SECONDS);
        assertThat(otherDoneAt).as("another write acknowledged before the chained one's answer")
            .isLessThan(answeredAt.get());
        assertThat(chainedAnswer.hasError()).as("applied here: %s", chainedAnswer).isFalse();
        assertThat(chainedAnswer.getWrite().getBlockLength()).isEqualTo(data.length);
        assertThat(chainedAnswer.getWrite().getDownstreamApplied()).isZero();
        assertThat(chainedAnswer.getWrite().getDownstreamError().getMessage())
            .contains("127.0.0.1:" + hole.getLocalPort());
        assertThat(TimeUnit.NANOSECONDS.toMillis(answeredAt.get() - sent)).as("answered within the chain timeout")
            .isLessThan(CHAIN_TIMEOUT_MS);
      }
    } finally {
      for (Socket socket : queued) {
        socket.close();
      }
    }
  }

  /** Connects to {@code hole} until a connection is not taken within a second: from then on SYNs are dropped. */
  private static void fillAcceptQueue(ServerSocket hole, List<Socket> queued) throws Exception {
    for (int i = 0; i < 16; i++) {
      Socket socket = new Socket();
      try {
        socket.connect(new InetSocketAddress(hole.getInetAddress(), hole.getLocalPort()), 1_000);
        queued.add(socket);
      } catch (SocketTimeoutException e) {
        socket.close();
        return;
      }
    }
    throw new AssertionError("the accept queue of " + hole + " never filled up");
  }
}
