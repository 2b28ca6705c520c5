package io.fffs.client.data;

import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.transport.TransportProvider;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;

/**
 * The client side of a non-TCP transport ({@code META-INF/services/io.fffs.client.data.ClientTransportProvider}),
 * chosen by {@link DataTransferClients}.
 */
public interface ClientTransportProvider extends TransportProvider {
  /**
   * A data client that moves block data over this transport to DataNodes that advertise it and agree at connection
   * set-up, and uses {@code tcp} for every other DataNode and for what it does not carry itself. It owns
   * {@code tcp} from now on (closes it).
   */
  DataTransferClient newClient(Configuration conf, HybridLogicalClock clock, DataTransferClient tcp)
      throws IOException;
}
