package io.fffs.rdma.client;

import io.fffs.common.transport.TransportProbe;
import io.fffs.common.transport.TransportSelection;
import io.fffs.protocol.transport.ClientTransportProvider;
import io.fffs.protocol.transport.DataTransport;
import io.fffs.rdma.UcxProbe;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;

/** The client side of the UCX transport, registered in {@code META-INF/services}. */
public final class UcxClientTransport implements ClientTransportProvider {
  @Override
  public String name() {
    return TransportSelection.UCX;
  }

  @Override
  public TransportProbe probe(Configuration conf) {
    return UcxProbe.probe(conf);
  }

  @Override
  public String notPreferred(Configuration conf) {
    return UcxProbe.notPreferred(conf);
  }

  @Override
  public DataTransport newTransport(Configuration conf) throws IOException {
    return new UcxTransport(conf);
  }
}
