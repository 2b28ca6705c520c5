package io.fffs.minicluster.dataserver;


import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.security.BlockTokenVerifier;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.datanode.server.DataServer;
import io.fffs.datanode.server.WriteRules;
import io.fffs.datanode.store.MultiLogBlockStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;

/**
 * A {@link DataServer} over a {@link SlowStore} (no added delay; it can be held, and it cannot reserve pages) with
 * writes going through the ring, and a TCP client. {@code setup} adjusts the configuration both use first.
 */
final class SlowStoreServer implements AutoCloseable {
  final DataNodeFixture fixture;
  final Configuration conf;
  final SlowStore store;
  final DataServer server;
  final DataTransferClient client;
  final DatanodeIdProto dn;

  SlowStoreServer(Path dir, Consumer<Configuration> setup) throws IOException {
    fixture = new DataNodeFixture(dir);
    conf = fixture.conf;
    conf.setInt(DataServer.INLINE_WRITE_MAX_KEY, 0);
    setup.accept(conf);
    HybridLogicalClock clock = new HybridLogicalClock(PhysicalClock.system(), conf);
    store = new SlowStore(MultiLogBlockStore.open(conf, clock), 0);
    server = DataServer.start(conf, store, new WriteRules(clock, () -> null, (block, length) -> { }),
        new BlockTokenVerifier(false, PhysicalClock.system()));
    client = DataTransferClients.tcp(conf, new HybridLogicalClock(PhysicalClock.system(), conf));
    dn = DatanodeIdProto.newBuilder().setDatanodeUuid("test").setHost("127.0.0.1")
        .setDataPort(server.address().getPort()).setIpcPort(0).build();
  }

  @Override
  public void close() throws Exception {
    store.open();
    try (fixture; server; client) {
      store.close();
    }
  }
}
