package io.fffs.minicluster.datapath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fffs.client.data.BlockWriter;

import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.client.data.WriteOptions;
import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.security.BlockAccessMode;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.DataNode;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.namenode.NameNode;
import io.fffs.namenode.NameNodeConfigKeys;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real NameNode and a real DataNode in one JVM: registration, the clock check, block reports after a restart. */
class DataNodeWithNameNodeTest {
  @TempDir
  Path dir;
  private final Path memoryDir = Paths.get(Files.isDirectory(Paths.get("/dev/shm")) ? "/dev/shm" : "/tmp")
      .resolve("fffs-test-" + UUID.randomUUID());
  private NameNode namenode;
  private DataNode datanode;
  private DataTransferClient client;

  @AfterEach
  void tearDown() throws IOException {
    if (client != null) {
      client.close();
    }
    if (datanode != null) {
      datanode.close();
    }
    if (namenode != null) {
      namenode.close();
    }
    if (Files.exists(memoryDir)) {
      try (Stream<Path> paths = Files.walk(memoryDir)) {
        for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(path);
        }
      }
    }
  }

  private Configuration namenodeConf(String rpcAddress) {
    Configuration conf = new Configuration();
    conf.set(NameNodeConfigKeys.NAME_DIR_KEY, dir.resolve("name").toString());
    conf.set(NameNodeConfigKeys.RPC_ADDRESS_KEY, rpcAddress);
    conf.set(NameNodeConfigKeys.HTTP_ADDRESS_KEY, "127.0.0.1:0");
    return conf;
  }

  private Configuration datanodeConf(long heartbeatMillis) {
    Configuration conf = new Configuration();
    InetSocketAddress rpc = namenode.rpcAddress();
    conf.set(DataNodeServiceConfigKeys.NAMENODE_ADDRESS_KEY, "127.0.0.1:" + rpc.getPort());
    conf.set(DataNodeServiceConfigKeys.DATA_ADDRESS_KEY, "127.0.0.1:0");
    conf.setLong(DataNodeServiceConfigKeys.HEARTBEAT_INTERVAL_KEY, heartbeatMillis);
    conf.setLong(DataNodeServiceConfigKeys.REGISTER_TIMEOUT_KEY, 20_000);
    conf.set(DataNodeConfigKeys.DATA_DIR_KEY, dir.resolve("data").toString());
    conf.set(DataNodeConfigKeys.MEMORY_DIR_KEY, memoryDir.toString());
    conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, 4L << 20);
    conf.setBoolean(DataNodeConfigKeys.MEMORY_PRETOUCH_KEY, false);
    conf.setInt(DataNodeServiceConfigKeys.SERVER_IO_THREADS_KEY, 2);
    conf.setInt(DataNodeServiceConfigKeys.SERVER_HANDLER_THREADS_KEY, 2);
    return conf;
  }

  private JsonNode status() throws IOException {
    try (InputStream in = namenode.httpUri().resolve("/status").toURL().openStream()) {
      return new ObjectMapper().readTree(in);
    }
  }

  private JsonNode datanodeStatus() throws IOException {
    for (JsonNode node : status().get("datanodes")) {
      if (node.get("id").asText().equals(datanode.uuid())) {
        return node;
      }
    }
    return null;
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private DataTransferClient client() throws IOException {
    Configuration conf = new Configuration();
    client = DataTransferClients.tcp(conf, new HybridLogicalClock(PhysicalClock.system(), conf));
    return client;
  }

  @Test
  void registrationShowsInStatusWithTransportAndASmallClockOffset() throws Exception {
    namenode = NameNode.start(namenodeConf("127.0.0.1:0"), PhysicalClock.system(), System::nanoTime);
    datanode = DataNode.start(datanodeConf(100), PhysicalClock.system());
    assertThat(datanode.isRegistered()).isTrue();
    JsonNode node = datanodeStatus();
    assertThat(node).as("DataNode in /status").isNotNull();
    assertThat(node.get("transport").asText()).isEqualTo("tcp");
    assertThat(node.get("address").asText()).isEqualTo("127.0.0.1:" + datanode.dataAddress().getPort());
    assertThat(node.get("live").asBoolean()).isTrue();
    // after a few heartbeats the offset is the DataNode's NTP-style measurement: same host, so within ~10 ms
    Thread.sleep(500);
    node = datanodeStatus();
    assertThat(Math.abs(node.get("clockOffsetMicros").asLong())).isLessThan(10_000);
    assertThat(node.get("healthy").asBoolean()).isTrue();
    assertThat(datanode.healthy()).isTrue();
    assertThat(node.get("capacityBytes").asLong()).isEqualTo(4L << 20);
  }

  @Test
  void aDataNodeWithASkewedClockIsUnhealthyRefusesWritesAndRecovers() throws Exception {
    namenode = NameNode.start(namenodeConf("127.0.0.1:0"), PhysicalClock.system(), System::nanoTime);
    AtomicLong offset = new AtomicLong(1_000_000);
    PhysicalClock skewed = () -> PhysicalClock.system().currentTimeMicros() + offset.get();
    datanode = DataNode.start(datanodeConf(100), skewed);
    await("the NameNode to call the DataNode unhealthy", () -> !datanode.healthy());
    assertThat(datanode.unhealthyReason()).contains("ahead");
    JsonNode node = datanodeStatus();
    assertThat(node.get("healthy").asBoolean()).isFalse();
    assertThat(node.get("clockOffsetMicros").asLong()).isBetween(900_000L, 1_100_000L);

    DataTransferClient client = client();
    // Tokens as the NameNode would hand them out with block 1.
    BlockToken write = namenode.namesystem().blockTokens.issue(1, BlockAccessMode.WRITE, "test");
    try (BlockWriter writer = client.openWriter(datanode.datanodeId(), 1, write, new WriteOptions(1 << 20, null))) {
      writer.write(0, ByteBuffer.wrap(new byte[100]));
      assertThatThrownBy(writer::flush).isInstanceOfSatisfying(FffsException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.NODE_UNHEALTHY);
        assertThat(e.detail()).contains("takes no writes").contains("ahead");
      });
    }
    assertThat(client.blockInfo(datanode.datanodeId(), 1, write, TimeSpec.latest()).exists()).isFalse();

    offset.set(0);
    // its HLC ran 1 s ahead; once real time has caught up with it the NameNode accepts it again
    await("the DataNode to be healthy again", datanode::healthy);
    try (BlockWriter writer = client.openWriter(datanode.datanodeId(), 1, write, new WriteOptions(1 << 20, null))) {
      writer.write(0, ByteBuffer.wrap(new byte[100]));
      assertThat(writer.flush()).isEqualTo(100);
    }
  }

  @Test
  void blockReportAfterANameNodeRestartEndsSafeMode() throws Exception {
    namenode = NameNode.start(namenodeConf("127.0.0.1:0"), PhysicalClock.system(), System::nanoTime);
    int rpcPort = namenode.rpcAddress().getPort();
    // heartbeats only when triggered, so the test decides when the DataNode learns of the restart
    datanode = DataNode.start(datanodeConf(3_600_000), PhysicalClock.system());
    HybridLogicalClock clientClock = new HybridLogicalClock(PhysicalClock.system(), 250_000);
    Configuration conf = new Configuration();
    byte[] data = new byte[70_000];
    new java.util.Random(1).nextBytes(data);
    long blockId;
    try (NamenodeClient nn = NamenodeClient.connect(namenode.rpcAddress(), conf, clientClock)) {
      FileStatusProto file = nn.create("/f", 0644, "test-client", false, true, 1, 1 << 20, null);
      LocatedBlockProto block = nn.addBlock("/f", file.getInodeId(), "test-client", null);
      blockId = block.getBlock().getBlockId();
      assertThat(block.getLocationsList()).extracting(l -> l.getDatanodeUuid()).containsExactly(datanode.uuid());
      DataTransferClient client = DataTransferClients.tcp(conf, clientClock);
      this.client = client;
      try (BlockWriter writer = client.openWriter(block.getLocations(0), blockId,
          BlockToken.fromProto(block.getToken()), new WriteOptions(1 << 20, null))) {
        writer.write(0, ByteBuffer.wrap(data));
      }
      assertThat(nn.complete("/f", file.getInodeId(), "test-client",
          BlockProto.newBuilder().setBlockId(blockId).setNumBytes(data.length).build())).isTrue();
    }

    namenode.close();
    namenode = NameNode.start(namenodeConf("127.0.0.1:" + rpcPort), PhysicalClock.system(), System::nanoTime);
    assertThat(namenode.namesystem().safeMode().isOn()).isTrue();
    assertThat(status().get("safemode").asBoolean()).isTrue();

    datanode.triggerHeartbeat();
    await("safe mode to end", () -> !namenode.namesystem().safeMode().isOn());
    assertThat(status().get("safemode").asBoolean()).isFalse();
    try (NamenodeClient nn = NamenodeClient.connect(namenode.rpcAddress(), conf, clientClock)) {
      LocatedBlocksProto blocks;
      try {
        blocks = nn.getBlockLocations("/f", TimeSpec.latest(), 0, data.length);
      } catch (java.io.EOFException staleConnection) {
        // Hadoop IPC may hand out a connection cached from before the restart (same port) once
        blocks = nn.getBlockLocations("/f", TimeSpec.latest(), 0, data.length);
      }
      assertThat(blocks.getFileLength()).isEqualTo(data.length);
      assertThat(blocks.getBlocks(0).getLocationsList()).extracting(l -> l.getDatanodeUuid())
          .containsExactly(datanode.uuid());
      ByteBuffer back = ByteBuffer.allocate(data.length);
      // The restarted NameNode signs with new keys; the DataNode got them when it registered again.
      client.read(blocks.getBlocks(0).getLocations(0), blockId, BlockToken.fromProto(blocks.getBlocks(0).getToken()),
          0, back, TimeSpec.latest());
      assertThat(back.array()).isEqualTo(data);
    }
  }
}
