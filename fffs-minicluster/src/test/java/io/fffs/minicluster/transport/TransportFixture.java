package io.fffs.minicluster.transport;

import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.minicluster.dataserver.DataNodeFixture;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.rdma.RdmaConfigKeys;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;

/**
 * A {@link DataNodeFixture} whose DataNode and clients both choose their transport by {@code fffs.transport}
 * ({@link DataTransferClients#create}), with small UCX buffers so that tests reach their limits.
 */
final class TransportFixture extends DataNodeFixture {
  TransportFixture(Path dataDir, String transport) {
    super(dataDir);
    conf.set(DataTransferConfigKeys.TRANSPORT_KEY, transport);
    conf.setBoolean(RdmaConfigKeys.REQUIRE_DEVICE_KEY, false);
    conf.setLong(RdmaConfigKeys.BUFFER_SIZE_KEY, 256 * 1024);
    conf.setInt(RdmaConfigKeys.CLIENT_BUFFERS_KEY, 8);
    conf.setInt(RdmaConfigKeys.SERVER_BUFFERS_KEY, 8);
    conf.setInt(RdmaConfigKeys.SERVER_READ_THREADS_KEY, 2);
  }

  @Override
  public TransportFixture start() throws IOException {
    super.start();
    return this;
  }

  @Override
  public TransportFixture restart() throws IOException {
    super.restart();
    return this;
  }

  @Override
  protected DataTransferClient newClient(Configuration clientConf, HybridLogicalClock clock) throws IOException {
    return DataTransferClients.create(clientConf, clock);
  }
}
