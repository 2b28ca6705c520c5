package io.fffs.minicluster.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.CommonProtos.TimeKindProto;
import io.fffs.common.proto.CommonProtos.TimeSpecProto;
import io.fffs.common.proto.DataTransferProtos.BlockInfoRequestProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.ReadRequestProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.SyncRequestProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 100,000 hostile frames at the DataNode's data port — well-framed nonsense on long-lived connections, and
 * malformed, truncated and oversized frames each on a connection of its own — plus garbage at the NameNode's RPC
 * port, while a well-behaved client keeps writing and reading. The servers stay up and the client is unaffected.
 */
class HostileInputTest {
  private static final int FRAMES = 100_000;
  private static final int MALFORMED_CONNECTIONS = 2_000;
  private static final int NONSENSE_CONNECTIONS = 4;

  @TempDir
  Path base;

  private static void frame(DataOutputStream out, RequestHeaderProto header, byte[] payload) throws IOException {
    byte[] bytes = header.toByteArray();
    out.writeInt(4 + bytes.length + payload.length);
    out.writeInt(bytes.length);
    out.write(bytes);
    out.write(payload);
  }

  private static RequestHeaderProto nonsense(Random random, long callId) {
    RequestHeaderProto.Builder header = RequestHeaderProto.newBuilder().setCallId(callId)
        .setHlc(HlcTimestamp.of(Math.abs(random.nextLong()) >>> 12, 0).toProto());
    TimeSpecProto latest = TimeSpecProto.newBuilder().setKind(TimeKindProto.LATEST).build();
    switch (random.nextInt(5)) {
      case 0:
        return header.setOp(OpProto.READ).setRead(ReadRequestProto.newBuilder().setBlockId(random.nextLong())
            .setOffset(random.nextInt(1 << 20)).setLength(random.nextInt(1 << 16)).setTime(latest)).build();
      case 1:
        return header.setOp(OpProto.BLOCK_INFO).setBlockInfo(BlockInfoRequestProto.newBuilder()
            .setBlockId(random.nextLong()).setTime(latest)).build();
      case 2:
        // A write whose checksums do not match its payload, in number or value (1-9 random bytes, so partial
        // ones too): CORRUPT, nothing written.
        byte[] crcs = new byte[1 + random.nextInt(9)];
        random.nextBytes(crcs);
        return header.setOp(OpProto.WRITE).setWrite(WriteRequestProto.newBuilder().setBlockId(1L << 50)
            .setOffset(0).setChunkCrcs(org.apache.hadoop.thirdparty.protobuf.ByteString.copyFrom(crcs))).build();
      case 3:
        return header.setOp(OpProto.SYNC).setSync(SyncRequestProto.newBuilder().addBlockIds(random.nextLong()))
            .build();
      default:
        // An op whose fields are missing.
        return header.setOp(OpProto.READ).build();
    }
  }

  /** Sends well-framed nonsense on one connection, draining the answers. */
  private static long nonsenseConnection(InetSocketAddress address, int frames, long seed) throws Exception {
    Random random = new Random(seed);
    try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
      AtomicLong answered = new AtomicLong();
      Thread drain = new Thread(() -> {
        try (InputStream in = socket.getInputStream()) {
          byte[] buffer = new byte[1 << 16];
          for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
            answered.addAndGet(n);
          }
        } catch (IOException closed) {
          // the socket was closed at the end
        }
      });
      drain.start();
      DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(socket.getOutputStream(),
          1 << 16));
      for (int i = 0; i < frames; i++) {
        frame(out, nonsense(random, i), random.nextInt(3) == 0 ? new byte[1 + random.nextInt(2000)] : new byte[0]);
      }
      out.flush();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (answered.get() < frames * 8L && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      socket.shutdownOutput();  // the DataNode then closes its side and the drain ends
      drain.join(10_000);
      return answered.get();
    }
  }

  /** One malformed frame on a fresh connection; the server must drop it. */
  private static void malformedConnection(InetSocketAddress address, Random random) throws IOException {
    try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
      socket.setSoLinger(true, 0);
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      switch (random.nextInt(6)) {
        case 0: {
          byte[] garbage = new byte[1 + random.nextInt(4096)];
          random.nextBytes(garbage);
          out.write(garbage);
          break;
        }
        case 1:
          out.writeInt(Integer.MAX_VALUE - random.nextInt(1000));  // oversized: refused before allocation
          out.writeInt(16);
          break;
        case 2:
          out.writeInt(-1 - random.nextInt(1000));
          break;
        case 3:
          out.writeInt(1000);  // header longer than the frame
          out.writeInt(5000);
          out.write(new byte[996]);
          break;
        case 4: {
          out.writeInt(1000);  // truncated: 1000 promised, a few sent, then the connection ends
          out.write(new byte[random.nextInt(900)]);
          break;
        }
        default: {
          byte[] header = new byte[40];
          random.nextBytes(header);  // framed, but the header is not a protobuf message
          out.writeInt(4 + header.length);
          out.writeInt(header.length);
          out.write(header);
        }
      }
      out.flush();
    } catch (IOException reset) {
      // the server may close first: that is what it should do
    }
  }

  @Test
  void serversSurviveHostileInputAndOtherClientsAreUnaffected() throws Exception {
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).numDataNodes(1).build();
        FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      InetSocketAddress data = cluster.getDataAddress(0);
      AtomicBoolean stop = new AtomicBoolean();
      ExecutorService pool = Executors.newFixedThreadPool(NONSENSE_CONNECTIONS + 2);
      Future<Integer> goodClient = pool.submit(() -> {
        int rounds = 0;
        Random random = new Random(5);
        while (!stop.get() || rounds < 3) {
          byte[] content = new byte[1 + random.nextInt(300_000)];
          random.nextBytes(content);
          org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/good/f" + (rounds % 4));
          try (FSDataOutputStream out = fs.create(file, true)) {
            out.write(content);
          }
          try (FSDataInputStream in = fs.open(file)) {
            assertThat(Arrays.equals(in.readAllBytes(), content)).as("round %d", rounds).isTrue();
          }
          rounds++;
        }
        return rounds;
      });
      int perConnection = (FRAMES - MALFORMED_CONNECTIONS) / NONSENSE_CONNECTIONS;
      Future<?>[] nonsense = new Future<?>[NONSENSE_CONNECTIONS];
      for (int c = 0; c < NONSENSE_CONNECTIONS; c++) {
        long seed = c;
        nonsense[c] = pool.submit(() -> nonsenseConnection(data, perConnection, seed));
      }
      Future<?> malformed = pool.submit(() -> {
        Random random = new Random(9);
        for (int i = 0; i < MALFORMED_CONNECTIONS; i++) {
          malformedConnection(data, random);
        }
        return null;
      });
      for (Future<?> connection : nonsense) {
        assertThat((Long) connection.get(120, TimeUnit.SECONDS)).as("every nonsense frame was answered")
            .isGreaterThanOrEqualTo(perConnection * 8L);
      }
      malformed.get(120, TimeUnit.SECONDS);

      InetSocketAddress rpc = cluster.getNameNode().rpcAddress();
      Random random = new Random(3);
      for (int i = 0; i < 300; i++) {
        try (Socket socket = new Socket(rpc.getAddress(), rpc.getPort())) {
          socket.setSoLinger(true, 0);
          OutputStream out = socket.getOutputStream();
          byte[] garbage = new byte[1 + random.nextInt(2048)];
          random.nextBytes(garbage);
          if (i % 3 == 0) {
            System.arraycopy("hrpc".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, garbage, 0,
                Math.min(4, garbage.length));
          }
          out.write(garbage);
          out.flush();
        } catch (IOException reset) {
          // the NameNode closed the connection: expected
        }
      }
      stop.set(true);
      assertThat(goodClient.get(120, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(3);
      pool.shutdown();

      // Both servers still serve new clients.
      try (FreezeFrameFileSystem fresh = cluster.getFileSystem()) {
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/good/after");
        try (FSDataOutputStream out = fresh.create(file, true)) {
          out.write(new byte[] {1, 2, 3});
        }
        try (FSDataInputStream in = fresh.open(file)) {
          assertThat(in.readAllBytes()).containsExactly(1, 2, 3);
        }
      }
    }
  }
}
