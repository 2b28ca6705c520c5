package io.fffs.rdma.server;

import io.fffs.common.security.BlockTokenVerifier;
import io.fffs.common.transport.TransportProbe;
import io.fffs.common.transport.TransportSelection;
import io.fffs.datanode.ServerTransportProvider;
import io.fffs.datanode.server.WriteRules;
import io.fffs.datanode.store.BlockStore;
import io.fffs.rdma.UcxProbe;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;

/** The DataNode side of the UCX transport, registered in {@code META-INF/services}. */
public final class UcxServerTransport implements ServerTransportProvider {
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
  public Server start(Configuration conf, String host, BlockStore store, WriteRules rules,
      BlockTokenVerifier blockKeys) throws IOException {
    return UcxDataServer.start(conf, host, store, rules, blockKeys);
  }
}
