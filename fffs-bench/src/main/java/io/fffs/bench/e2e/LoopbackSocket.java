package io.fffs.bench.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;

/**
 * The raw loopback TCP baselines: a one-way stream (the throughput ceiling of a single client, no protocol, no
 * storage) and a request/acknowledgement round trip (the latency floor). Blocking NIO with direct buffers, one
 * thread per end, kernel-tuned windows, as the data paths under test use.
 */
final class LoopbackSocket {
  private LoopbackSocket() {}

  /** Streams {@code total} bytes in writes of {@code packet} bytes; the receiver reads with the same size. GB/s. */
  static double stream(long total, int packet) throws IOException {
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      CompletableFuture<Long> received = CompletableFuture.supplyAsync(() -> {
        try (SocketChannel in = server.accept()) {
          ByteBuffer buf = ByteBuffer.allocateDirect(packet);
          long n = 0;
          for (int r; (r = in.read(buf)) >= 0; buf.clear()) {
            n += r;
          }
          return n;
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      ByteBuffer buf = ByteBuffer.allocateDirect(packet);
      long start = System.nanoTime();
      try (SocketChannel out = SocketChannel.open(server.getLocalAddress())) {
        for (long sent = 0; sent < total; sent += packet) {
          buf.clear();
          while (buf.hasRemaining()) {
            out.write(buf);
          }
        }
      }
      long got = received.join();
      long nanos = System.nanoTime() - start;
      if (got < total) {
        throw new IOException("loopback stream lost bytes: " + got + " of " + total);
      }
      return got / (double) nanos;
    }
  }

  /** A connected pair for round trips: {@link #roundTrip} sends {@code size} bytes and waits for an 8-byte ack. */
  static final class PingPong implements AutoCloseable {
    private final ServerSocketChannel server;
    private final SocketChannel client;
    private final CompletableFuture<Void> echo;
    private final ByteBuffer request;
    private final ByteBuffer ack = ByteBuffer.allocateDirect(8);

    PingPong(int size) throws IOException {
      server = ServerSocketChannel.open();
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      echo = CompletableFuture.runAsync(() -> serve(size));
      client = SocketChannel.open(server.getLocalAddress());
      client.setOption(StandardSocketOptions.TCP_NODELAY, true);
      request = ByteBuffer.allocateDirect(size);
    }

    private void serve(int size) {
      try (SocketChannel peer = server.accept()) {
        peer.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ByteBuffer in = ByteBuffer.allocateDirect(size);
        ByteBuffer out = ByteBuffer.allocateDirect(8);
        while (true) {
          in.clear();
          while (in.hasRemaining()) {
            if (peer.read(in) < 0) {
              return;
            }
          }
          out.clear();
          while (out.hasRemaining()) {
            peer.write(out);
          }
        }
      } catch (IOException e) {
        // closed at the end
      }
    }

    void roundTrip() throws IOException {
      request.clear();
      while (request.hasRemaining()) {
        client.write(request);
      }
      ack.clear();
      while (ack.hasRemaining()) {
        if (client.read(ack) < 0) {
          throw new IOException("echo side closed");
        }
      }
    }

    @Override
    public void close() throws IOException {
      client.close();
      server.close();
      echo.join();
    }
  }
}
