package io.fffs.minicluster.transport;

import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.common.security.BlockTokenConfigKeys;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.datanode.DataNode;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.rdma.RdmaConfigKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;

/**
 * A DataNode without a NameNode on loopback, its arena in a fresh directory under /dev/shm, and data clients made
 * by {@link DataTransferClients} — so the transport is whatever {@code fffs.transport} selects on both sides.
 */
final class TransportFixture implements AutoCloseable {
  final Configuration conf = new Configuration(false);
  final Path memoryDir;
  final List<DataTransferClient> clients = new ArrayList<>();
  DataNode datanode;

  TransportFixture(Path dataDir, String transport) {
    Path shm = Paths.get("/dev/shm");
    memoryDir = (Files.isDirectory(shm) ? shm : dataDir).resolve("fffs-test-" + UUID.randomUUID());
    conf.set(DataNodeConfigKeys.DATA_DIR_KEY, dataDir.resolve("data").toString());
    conf.set(DataNodeConfigKeys.MEMORY_DIR_KEY, memoryDir.toString());
    conf.setInt(DataNodeConfigKeys.PAGE_SIZE_KEY, 512);
    conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, 4L << 20);
    conf.setBoolean(DataNodeConfigKeys.MEMORY_PRETOUCH_KEY, false);
    conf.set(DataNodeServiceConfigKeys.DATA_ADDRESS_KEY, "127.0.0.1:0");
    conf.setBoolean(DataNodeServiceConfigKeys.NAMENODE_ENABLED_KEY, false);
    conf.setBoolean(BlockTokenConfigKeys.ENABLE_KEY, false);  // no NameNode issues tokens here
    conf.setInt(DataNodeServiceConfigKeys.SERVER_IO_THREADS_KEY, 2);
    conf.setInt(DataNodeServiceConfigKeys.SERVER_HANDLER_THREADS_KEY, 2);
    conf.setInt(DataTransferConfigKeys.WRITE_WINDOW_KEY, 8);
    conf.set(DataTransferConfigKeys.TRANSPORT_KEY, transport);
    conf.setBoolean(RdmaConfigKeys.REQUIRE_DEVICE_KEY, false);
    conf.setLong(RdmaConfigKeys.BUFFER_SIZE_KEY, 256 * 1024);
    conf.setInt(RdmaConfigKeys.CLIENT_BUFFERS_KEY, 8);
    conf.setInt(RdmaConfigKeys.SERVER_BUFFERS_KEY, 8);
    conf.setInt(RdmaConfigKeys.SERVER_READ_THREADS_KEY, 2);
  }

  TransportFixture start() throws IOException {
    datanode = DataNode.start(conf, PhysicalClock.system());
    return this;
  }

  TransportFixture restart() throws IOException {
    datanode.close();
    return start();
  }

  DataTransferClient client() throws IOException {
    return client(conf);
  }

  DataTransferClient client(Configuration clientConf) throws IOException {
    return client(clientConf, new HybridLogicalClock(PhysicalClock.system(), clientConf));
  }

  DataTransferClient client(Configuration clientConf, HybridLogicalClock clock) throws IOException {
    DataTransferClient client = DataTransferClients.create(clientConf, clock);
    clients.add(client);
    return client;
  }

  @Override
  public void close() throws IOException {
    try {
      for (DataTransferClient client : clients) {
        client.close();
      }
      if (datanode != null) {
        datanode.close();
      }
    } finally {
      if (Files.exists(memoryDir)) {
        try (Stream<Path> paths = Files.walk(memoryDir)) {
          for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(path);
          }
        }
      }
    }
  }
}
