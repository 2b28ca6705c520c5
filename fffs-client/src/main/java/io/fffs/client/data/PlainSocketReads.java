package io.fffs.client.data;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * Plain-socket read channels ({@link PlainSocketChannel}) to the DataNodes' data ports, up to
 * {@code fffs.client.connections.max-idle} kept per DataNode between reads (with their answer buffers). A kept one
 * the DataNode closed meanwhile is seen closed when leased again and replaced. Thread-safe: each lease is one user's.
 */
final class PlainSocketReads implements Closeable {
  private final int connectTimeoutMillis;
  private final long timeoutMillis;
  private final int maxFrameBytes;
  private final int maxIdle;
  private final Map<InetSocketAddress, ConcurrentLinkedDeque<PlainSocketChannel>> idle = new ConcurrentHashMap<>();
  private final Map<String, InetSocketAddress> addresses = new ConcurrentHashMap<>();
  private volatile boolean closed;

  PlainSocketReads(long connectTimeoutMillis, long timeoutMillis, int maxFrameBytes, int maxIdle) {
    this.connectTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, connectTimeoutMillis);
    this.timeoutMillis = timeoutMillis;
    this.maxFrameBytes = maxFrameBytes;
    this.maxIdle = maxIdle;
  }

  /** A channel to {@code datanode}'s data port: a kept one that is still open, or a new connection. */
  PlainSocketChannel open(DatanodeIdProto datanode) throws IOException {
    if (closed) {
      throw new IOException("the data-transfer client is closed");
    }
    InetSocketAddress address = address(datanode);
    ConcurrentLinkedDeque<PlainSocketChannel> kept = idle.get(address);
    if (kept != null) {
      for (PlainSocketChannel c = kept.pollFirst(); c != null; c = kept.pollFirst()) {
        if (c.usable()) {
          return c;
        }
        c.close();
      }
    }
    return PlainSocketChannel.connect(this, address, connectTimeoutMillis, timeoutMillis, maxFrameBytes);
  }

  /**
   * The DataNode's resolved address, kept while it resolves: a name that did not resolve is looked up again on the
   * next read, so a DataNode the resolver did not know yet (a container starting) is reached once it does.
   */
  private InetSocketAddress address(DatanodeIdProto datanode) {
    String key = datanode.getHost() + ":" + datanode.getDataPort();
    InetSocketAddress known = addresses.get(key);
    if (known != null) {
      return known;
    }
    InetSocketAddress resolved = new InetSocketAddress(datanode.getHost(), datanode.getDataPort());
    if (!resolved.isUnresolved()) {
      addresses.put(key, resolved);
    }
    return resolved;
  }

  /** Whether the DataNode's address is kept, resolved (for tests). */
  boolean knows(DatanodeIdProto datanode) {
    return addresses.containsKey(datanode.getHost() + ":" + datanode.getDataPort());
  }

  /** Keeps a released channel for the next read of its DataNode, or closes it (broken, surplus, closed). */
  void giveBack(PlainSocketChannel channel) {
    if (closed || channel.broken()) {
      channel.close();
      return;
    }
    ConcurrentLinkedDeque<PlainSocketChannel> kept =
        idle.computeIfAbsent(channel.address(), a -> new ConcurrentLinkedDeque<>());
    if (kept.size() >= maxIdle) {
      channel.close();
    } else {
      kept.addFirst(channel);
      if (closed && kept.remove(channel)) {
        channel.close();  // closed meanwhile
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    for (ConcurrentLinkedDeque<PlainSocketChannel> kept : idle.values()) {
      for (PlainSocketChannel c; (c = kept.pollFirst()) != null; ) {
        c.close();
      }
    }
  }
}
