package io.fffs.rdma;

import io.fffs.client.data.ClientTransportProvider;
import io.fffs.client.data.DataTransferClient;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.transport.TransportProbe;
import io.fffs.common.transport.TransportSelection;
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
  public DataTransferClient newClient(Configuration conf, HybridLogicalClock clock, DataTransferClient tcp)
      throws IOException {
    return new UcxDataTransferClient(conf, clock, tcp);
  }
}
