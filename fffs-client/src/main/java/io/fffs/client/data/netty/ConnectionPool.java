package io.fffs.client.data.netty;

import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.protocol.frame.FrameDecoder;
import io.fffs.protocol.netty.EventLoops;
import io.fffs.protocol.netty.KeptBufferAllocator;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Connections to DataNodes, kept per address for reuse. A user leases a connection ({@link #acquire}) for as long
 * as it has calls in flight and gives it back ({@link #release}); a block writer holds one for its whole life, so
 * its packets never queue behind another stream's. A connection given back with calls still outstanding (a read
 * stream left mid-block) rejoins the pool once their answers are in, or is closed if they do not come within the
 * response timeout — so a reader that keeps jumping does not open and close a connection per jump. Up to {@code fffs.client.connections.max-idle} idle connections
 * stay open per DataNode. Socket buffers are left to the kernel's auto-tuning; {@code TCP_NODELAY} only in latency
 * mode. Responses are decoded with composite payloads ({@link FrameDecoder}): a READ payload stays in the socket
 * buffers it arrived in until its reader copies it out. Direct buffers of 64 KiB – 16 MiB (a writer's packets, socket
 * reads) are kept for reuse once released ({@link KeptBufferAllocator}, at most {@code keptBufferBytes}), and freed
 * at {@link #close()}.
 */
public final class ConnectionPool implements AutoCloseable {
  private final Bootstrap bootstrap;
  private final KeptBufferAllocator buffers;
  private final LongAdder buffersAllocated = new LongAdder();
  private final LongAdder buffersReused = new LongAdder();
  private final int maxFrameBytes;
  /** TLS to the DataNodes ({@code fffs.data.transfer.protection}), or null. */
  private volatile io.netty.handler.ssl.SslContext tls;
  private final int maxIdle;
  private final long drainTimeoutMillis;
  private final Map<InetSocketAddress, Deque<DataConnection>> idle = new ConcurrentHashMap<>();
  private final Deque<DataConnection> all = new ConcurrentLinkedDeque<>();
  private volatile boolean closed;

  /**
   * @param drainTimeoutMillis how long a given-back connection may wait for its outstanding answers
   * @param keptBufferBytes how many bytes of released direct buffers to keep for reuse
   */
  /** Runs every new connection over TLS with {@code context} (null: none). */
  public void useTls(io.netty.handler.ssl.SslContext context) {
    this.tls = context;
  }

  public ConnectionPool(EventLoopGroup group, int maxFrameBytes, int maxIdle, boolean latencyMode,
      long connectTimeoutMillis, long drainTimeoutMillis, long keptBufferBytes) {
    this.maxFrameBytes = maxFrameBytes;
    this.maxIdle = maxIdle;
    this.drainTimeoutMillis = drainTimeoutMillis;
    this.buffers = new KeptBufferAllocator(64 << 10, 16 << 20, keptBufferBytes, ByteBufAllocator.DEFAULT,
        buffersAllocated, buffersReused);
    this.bootstrap = new Bootstrap().group(group).channel(EventLoops.socketChannel())
        .option(ChannelOption.TCP_NODELAY, latencyMode)
        .option(ChannelOption.SO_KEEPALIVE, true)
        .option(ChannelOption.ALLOCATOR, buffers)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeoutMillis));
  }

  /** An open connection to {@code address}: an idle one, or a new one. */
  public DataConnection acquire(InetSocketAddress address) throws IOException {
    if (closed) {
      throw new IOException("the data-transfer client is closed");
    }
    Deque<DataConnection> free = idle.get(address);
    if (free != null) {
      for (DataConnection c = free.pollFirst(); c != null; c = free.pollFirst()) {
        if (c.isUsable()) {
          return c;
        }
        c.close();
      }
    }
    return connect(address);
  }

  private DataConnection connect(InetSocketAddress address) throws IOException {
    DataConnection connection = new DataConnection(address);
    ChannelFuture connected = bootstrap.clone().handler(new ChannelInitializer<Channel>() {
      @Override
      protected void initChannel(Channel ch) {
        if (tls != null) {
          ch.pipeline().addLast(tls.newHandler(ch.alloc(), address.getHostString(), address.getPort()));
        }
        ch.pipeline().addLast(new FrameDecoder<>(ResponseHeaderProto.parser(), maxFrameBytes,
            DataTransferConfigKeys.MAX_FRAME_SIZE_KEY, true), connection.handler());
      }
    }).connect(address);
    try {
      connected.await();
    } catch (InterruptedException e) {
      connected.cancel(false);
      connected.channel().close();
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted connecting to DataNode " + address);
    }
    if (!connected.isSuccess()) {
      Throwable cause = connected.cause();
      throw new IOException("cannot connect to DataNode " + address + ": " + cause.getMessage(), cause);
    }
    connection.attach(connected.channel());
    all.add(connection);
    connected.channel().closeFuture().addListener(f -> all.remove(connection));
    return connection;
  }

  /**
   * Returns a leased connection; broken or surplus ones are closed. One with calls still outstanding comes back
   * once they are answered (nobody else can send on it meanwhile), or is closed after the drain timeout.
   */
  public void release(DataConnection connection) {
    if (closed || !connection.isUsable()) {
      connection.close();
      return;
    }
    if (connection.outstanding() > 0) {
      connection.drained().orTimeout(drainTimeoutMillis, TimeUnit.MILLISECONDS).whenComplete((done, late) -> {
        if (late != null) {
          connection.close();
        } else {
          release(connection);
        }
      });
      return;
    }
    Deque<DataConnection> free = idle.computeIfAbsent(connection.address(), a -> new ConcurrentLinkedDeque<>());
    if (free.size() >= maxIdle) {
      connection.close();
    } else {
      free.addFirst(connection);
    }
  }

  /** Direct buffers of the kept sizes (64 KiB – 16 MiB) that were allocated ({@link KeptBufferAllocator}). */
  public long buffersAllocated() {
    return buffersAllocated.sum();
  }

  /** Requests for a direct buffer of a kept size that a released one served. */
  public long buffersReused() {
    return buffersReused.sum();
  }

  @Override
  public void close() {
    closed = true;
    idle.clear();
    List<DataConnection> open = new ArrayList<>(all);
    for (DataConnection connection : open) {
      connection.close();
    }
    buffers.close();
  }
}
