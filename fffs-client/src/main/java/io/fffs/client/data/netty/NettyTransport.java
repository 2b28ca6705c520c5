package io.fffs.client.data.netty;

import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.transport.TransportSelection;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.protocol.frame.Frame;
import io.fffs.protocol.netty.EventLoops;
import io.fffs.protocol.transport.DataChannel;
import io.fffs.protocol.transport.DataTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;

/**
 * The TCP transport (Netty, epoll where available): connections pooled per DataNode on the JVM-wide client event
 * loops ({@link ConnectionPool}); a channel leases one connection. It reaches every DataNode, and also carries the
 * requests without payload ({@link #call}).
 */
public final class NettyTransport implements DataTransport {
  private final ConnectionPool pool;
  private final long timeoutMillis;
  private final Map<String, InetSocketAddress> addresses = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * @throws FffsException {@code INVALID_ARGUMENT} for an unknown {@code fffs.transport}
   */
  public NettyTransport(Configuration conf) throws FffsException {
    DataTransferConfigKeys.transport(conf);
    this.timeoutMillis = DataTransferConfigKeys.responseTimeoutMillis(conf);
    // Packet buffers live until they are on the socket, so up to a window of them at once: keep that many.
    long keptBufferBytes = Math.max(16L << 20, Math.min(64L << 20,
        (long) DataTransferConfigKeys.writeWindow(conf) * DataTransferConfigKeys.writePacketSize(conf)));
    boolean latencyMode = DataTransferConfigKeys.latencyMode(conf);
    this.pool = new ConnectionPool(EventLoops.acquireShared(), DataTransferConfigKeys.maxFrameSize(conf),
        DataTransferConfigKeys.maxIdleConnections(conf), latencyMode,
        DataTransferConfigKeys.connectTimeoutMillis(conf), timeoutMillis, keptBufferBytes);
    try {
      pool.useTls(io.fffs.protocol.DataTransferTls.client(conf));
    } catch (FffsException e) {
      throw e;
    } catch (java.io.IOException | IllegalArgumentException e) {
      pool.close();
      throw new FffsException(io.fffs.common.error.ErrorCode.INVALID_ARGUMENT, e.getMessage());
    }
  }

  private InetSocketAddress addressOf(DatanodeIdProto datanode) {
    return addresses.computeIfAbsent(datanode.getHost() + ":" + datanode.getDataPort(),
        k -> new InetSocketAddress(datanode.getHost(), datanode.getDataPort()));
  }

  @Override
  public String name() {
    return TransportSelection.TCP;
  }

  @Override
  public DataChannel open(DatanodeIdProto datanode) throws IOException {
    return new NettyChannel(pool, pool.acquire(addressOf(datanode)), timeoutMillis);
  }

  /** Sends one request without payload and returns its answer's header (which may carry an error). */
  public ResponseHeaderProto call(DatanodeIdProto datanode, RequestHeaderProto.Builder request) throws IOException {
    DataConnection connection = pool.acquire(addressOf(datanode));
    try {
      Frame<ResponseHeaderProto> frame = connection.await(connection.send(request, null, true), timeoutMillis);
      try {
        return frame.header();
      } finally {
        frame.release();
      }
    } finally {
      pool.release(connection);
    }
  }

  /**
   * {@link #call} without waiting: the answer's header, or the failure to send or receive it. The caller bounds the
   * wait; the connection goes back to the pool at once (the pool keeps it aside until its answers are in).
   */
  public CompletableFuture<ResponseHeaderProto> callAsync(DatanodeIdProto datanode,
      RequestHeaderProto.Builder request) {
    DataConnection connection;
    try {
      connection = pool.acquire(addressOf(datanode));
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    try {
      return connection.send(request, null, true).thenApply(frame -> {
        try {
          return frame.header();
        } finally {
          frame.release();
        }
      });
    } finally {
      pool.release(connection);
    }
  }

  /** The pooled connections (and their kept buffers). */
  public ConnectionPool connections() {
    return pool;
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      pool.close();
      EventLoops.releaseShared();
    }
  }
}
