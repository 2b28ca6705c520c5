package io.fffs.rdma.client;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.transport.TransportSelection;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.protocol.transport.DataChannel;
import io.fffs.protocol.transport.DataTransport;
import io.fffs.rdma.RdmaConfigKeys;
import io.fffs.rdma.RegisteredBuffers;
import io.fffs.rdma.UcxWorkerLoop;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's UCX transport (docs/rdma.md). Block data moves one-sided, DataNode-initiated, between the client's
 * registered buffers ({@link RegisteredBuffers}, shared by all its writers and readers) and the DataNode: the
 * DataNode GETs a WRITE's packet and PUTs a READ's answer, each request and answer going over a side channel
 * ({@link SideChannel}, one per DataNode, shared). A DataNode that does not advertise UCX or refuses it at
 * connection set-up is left to TCP (null from {@link #open}) — unless {@code fffs.transport=ucx}, which makes that an
 * {@code UNSUPPORTED} error. The client's worker thread ({@code fffs-ucx-client}) sleeps until the network wakes it,
 * e.g. for a DataNode's GET, which UCX's tcp transport emulates and the client must serve. Thread-safe.
 */
final class UcxTransport implements DataTransport {
  private static final Logger LOG = LoggerFactory.getLogger(UcxTransport.class);

  private final boolean strict;
  private final UcxWorkerLoop loop;
  private final RegisteredBuffers buffers;
  private final ByteBuffer workerAddress;
  private final long timeoutMillis;
  private final int connectTimeoutMillis;
  private final int maxFrame;
  private final Map<String, SideChannel> channels = new ConcurrentHashMap<>();
  private final Map<String, String> tcpOnly = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  UcxTransport(Configuration conf) throws IOException {
    this.strict = TransportSelection.configured(conf).equals(TransportSelection.UCX);
    this.timeoutMillis = DataTransferConfigKeys.responseTimeoutMillis(conf);
    this.connectTimeoutMillis = (int) Math.min(Integer.MAX_VALUE,
        DataTransferConfigKeys.connectTimeoutMillis(conf));
    this.maxFrame = DataTransferConfigKeys.maxFrameSize(conf);
    this.loop = new UcxWorkerLoop("fffs-ucx-client", RdmaConfigKeys.workerSpinNanos(conf));
    try {
      this.buffers = new RegisteredBuffers(loop, RdmaConfigKeys.clientBuffers(conf), RdmaConfigKeys.bufferSize(conf));
      ByteBuffer address = loop.address();
      this.workerAddress = ByteBuffer.allocate(address.remaining()).put(address).flip();
    } catch (IOException | RuntimeException e) {
      loop.close();
      throw e;
    }
  }

  @Override
  public String name() {
    return TransportSelection.UCX;
  }

  @Override
  public DataChannel open(DatanodeIdProto datanode) throws IOException {
    SideChannel channel = sideChannel(datanode);
    return channel == null ? null : new UcxChannel(channel, buffers, timeoutMillis);
  }

  /** The side channel to {@code datanode}, or null to use TCP with it. */
  private SideChannel sideChannel(DatanodeIdProto datanode) throws IOException {
    String key = datanode.getHost() + ":" + datanode.getTransportPort();
    if (!datanode.getTransport().equals(TransportSelection.UCX) || datanode.getTransportPort() == 0) {
      return tcpWith(datanode, key, "it does not offer UCX (its transport is " + datanode.getTransport() + ")");
    }
    String refused = tcpOnly.get(key);
    if (refused != null) {
      return tcpWith(datanode, key, refused);
    }
    SideChannel channel = channels.get(key);
    if (channel != null && channel.usable()) {
      return channel;
    }
    synchronized (this) {
      channel = channels.get(key);
      if (channel != null && channel.usable()) {
        return channel;
      }
      try {
        channel = new SideChannel(new InetSocketAddress(datanode.getHost(), datanode.getTransportPort()),
            workerAddress, connectTimeoutMillis, maxFrame);
      } catch (SideChannel.Refused e) {
        tcpOnly.put(key, "it refused UCX: " + e.getMessage());
        return tcpWith(datanode, key, tcpOnly.get(key));
      }
      channels.put(key, channel);
      return channel;
    }
  }

  private SideChannel tcpWith(DatanodeIdProto datanode, String key, String why) throws FffsException {
    if (strict) {
      throw new FffsException(ErrorCode.UNSUPPORTED, TransportSelection.TRANSPORT_KEY + "=ucx but DataNode "
          + datanode.getHost() + ":" + datanode.getDataPort() + " cannot use UCX: " + why + "; use "
          + TransportSelection.TRANSPORT_KEY + "=auto or tcp");
    }
    if (tcpOnly.putIfAbsent(key + "/logged", why) == null) {
      LOG.info("Using TCP with DataNode {}:{}: {}", datanode.getHost(), datanode.getDataPort(), why);
    }
    return null;
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      for (SideChannel channel : channels.values()) {
        channel.close();
      }
    } finally {
      loop.close(buffers::deregister);
    }
  }
}
