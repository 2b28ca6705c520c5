package io.fffs.client.data;

import io.fffs.client.data.netty.NettyTransport;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.transport.TransportSelection;
import io.fffs.protocol.transport.ClientTransportProvider;
import io.fffs.protocol.transport.DataTransport;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the data-transfer client for {@code fffs.transport} ({@link TransportSelection}): {@code tcp} moves block
 * data with Netty over TCP; {@code auto} and {@code ucx} look for a {@link ClientTransportProvider} through
 * {@code ServiceLoader} (the UCX one lives in {@code fffs-rdma-client}) and move block data over its transport with
 * the DataNodes that agree, TCP with the others; {@code ucx} without a usable provider is an {@code UNSUPPORTED}
 * error.
 */
public final class DataTransferClients {
  private static final Logger LOG = LoggerFactory.getLogger(DataTransferClients.class);

  private DataTransferClients() {}

  /** The client {@code conf} asks for; {@code clock} is observed, never ticked. */
  public static DataTransferClient create(Configuration conf, HybridLogicalClock clock) throws FffsException {
    TransportSelection.Choice<ClientTransportProvider> choice =
        TransportSelection.select(conf, ClientTransportProvider.class);
    if (choice.tcp()) {
      LOG.debug("Data transfer over TCP: {}", choice.reason());
      // With TLS the transport is needed for every request and its settings are checked now; else on first use.
      return tlsEnabled(conf) ? new ChannelDataTransferClient(conf, clock, new NettyTransport(conf), null)
          : new ChannelDataTransferClient(conf, clock, () -> new NettyTransport(conf), null);
    }
    NettyTransport tcp = new NettyTransport(conf);
    try {
      DataTransport data = choice.provider().newTransport(conf);
      return new ChannelDataTransferClient(conf, clock, tcp, data);
    } catch (IOException | RuntimeException e) {
      tcp.close();
      throw new FffsException(ErrorCode.INTERNAL, "the " + choice.transport() + " data transport failed to start: "
          + e, e);
    }
  }

  private static boolean tlsEnabled(Configuration conf) throws FffsException {
    try {
      return io.fffs.protocol.DataTransferTls.enabled(conf);
    } catch (IllegalArgumentException e) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, e.getMessage());
    }
  }

  /** A client that moves everything over TCP, whatever {@code fffs.transport} says (tests, tools). */
  public static DataTransferClient tcp(Configuration conf, HybridLogicalClock clock) throws FffsException {
    return tcp(conf, clock, new NettyTransport(conf));
  }

  /** A client that moves everything over {@code transport}, which it owns from now on. */
  public static DataTransferClient tcp(Configuration conf, HybridLogicalClock clock, NettyTransport transport) {
    return new ChannelDataTransferClient(conf, clock, transport, null);
  }
}
