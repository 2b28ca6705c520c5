package io.fffs.client.data;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.transport.TransportSelection;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the data-transfer implementation for {@code fffs.transport} ({@link TransportSelection}): {@code tcp} uses
 * Netty over TCP; {@code auto} and {@code ucx} look for a {@link ClientTransportProvider} through
 * {@code ServiceLoader} (the UCX one lives in {@code fffs-rdma}) and wrap the TCP client in it, which still serves
 * DataNodes without UCX; {@code ucx} without a usable provider is an {@code UNSUPPORTED} error.
 */
public final class DataTransferClients {
  public static final String TRANSPORT_KEY = "fffs.transport";
  public static final String TRANSPORT_DEFAULT = "auto";
  static final String NETTY_CLIENT = "io.fffs.client.data.NettyDataTransferClient";

  private DataTransferClients() {}

  private static final Logger LOG = LoggerFactory.getLogger(DataTransferClients.class);

  public static DataTransferClient create(Configuration conf, HybridLogicalClock clock) throws FffsException {
    TransportSelection.Choice<ClientTransportProvider> choice =
        TransportSelection.select(conf, ClientTransportProvider.class);
    DataTransferClient tcp = createTcp(conf, clock);
    if (choice.tcp()) {
      LOG.debug("Data transfer over TCP: {}", choice.reason());
      return tcp;
    }
    try {
      return choice.provider().newClient(conf, clock, tcp);
    } catch (IOException | RuntimeException e) {
      try {
        tcp.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw new FffsException(ErrorCode.INTERNAL, "the " + choice.transport() + " data client failed to start: "
          + e, e);
    }
  }

  private static DataTransferClient createTcp(Configuration conf, HybridLogicalClock clock) throws FffsException {
    try {
      return (DataTransferClient) Class.forName(NETTY_CLIENT)
          .getConstructor(Configuration.class, HybridLogicalClock.class).newInstance(conf, clock);
    } catch (InvocationTargetException e) {
      throw new FffsException(ErrorCode.INTERNAL, "the TCP data client failed to start: " + e.getCause(),
          e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new FffsException(ErrorCode.INTERNAL, "the TCP data client is missing from the class path: " + e, e);
    }
  }
}
