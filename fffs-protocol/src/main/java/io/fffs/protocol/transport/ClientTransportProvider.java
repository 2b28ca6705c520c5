package io.fffs.protocol.transport;

import io.fffs.common.transport.TransportProvider;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;

/**
 * The client side of a non-TCP transport, found through {@code ServiceLoader}
 * ({@code META-INF/services/io.fffs.protocol.transport.ClientTransportProvider}) when {@code fffs.transport} is
 * {@code auto} or names it. The data client uses its {@link DataTransport} for DataNodes that advertise the
 * transport and agree at connection set-up, and TCP for every other DataNode and for requests without payload.
 */
public interface ClientTransportProvider extends TransportProvider {
  /** A transport configured by {@code conf}; the data client closes it. */
  DataTransport newTransport(Configuration conf) throws IOException;
}
