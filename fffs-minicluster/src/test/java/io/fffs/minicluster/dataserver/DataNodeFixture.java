package io.fffs.minicluster.dataserver;


import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.common.security.BlockTokenConfigKeys;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.datanode.DataNode;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.protocol.DataTransferConfigKeys;
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
 * A DataNode without a NameNode on loopback (free port), its data in a test directory and its arena in a fresh
 * directory under /dev/shm (deleted at close), and data-transfer clients against it (TCP here; a subclass may
 * choose them by {@code fffs.transport}).
 */
public class DataNodeFixture implements AutoCloseable {
  public final Configuration conf = new Configuration(false);
  final Path memoryDir;
  private final List<DataTransferClient> clients = new ArrayList<>();
  public DataNode datanode;

  public DataNodeFixture(Path dataDir) {
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
    conf.setBoolean("fffs.client.read.shortcircuit", false);  // these tests are of the data port
    conf.setInt(DataNodeServiceConfigKeys.SERVER_IO_THREADS_KEY, 2);
    conf.setInt(DataNodeServiceConfigKeys.SERVER_HANDLER_THREADS_KEY, 2);
    conf.setInt(DataTransferConfigKeys.WRITE_WINDOW_KEY, 8);
  }

  public DataNodeFixture start() throws IOException {
    datanode = DataNode.start(conf, PhysicalClock.system());
    return this;
  }

  public DataNodeFixture restart() throws IOException {
    datanode.close();
    return start();
  }

  /** A client with its own clock (system time, the configured max offset). */
  public DataTransferClient client() throws IOException {
    return client(conf);
  }

  public DataTransferClient client(Configuration clientConf) throws IOException {
    return client(clientConf, new HybridLogicalClock(PhysicalClock.system(), clientConf));
  }

  /** A client of {@code clientConf} on {@code clock}, closed with the fixture. */
  public DataTransferClient client(Configuration clientConf, HybridLogicalClock clock) throws IOException {
    return keep(newClient(clientConf, clock));
  }

  /** The kind of client this fixture makes: everything over TCP. */
  protected DataTransferClient newClient(Configuration clientConf, HybridLogicalClock clock) throws IOException {
    return DataTransferClients.tcp(clientConf, clock);
  }

  /** Closes {@code client} with the fixture. */
  public DataTransferClient keep(DataTransferClient client) {
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
      deleteTree(memoryDir);
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
