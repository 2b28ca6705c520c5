package io.fffs.minicluster.transport;

import static io.fffs.minicluster.dataserver.BlockBytes.randomBytes;
import static io.fffs.minicluster.dataserver.BlockBytes.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.transport.TransportProbe;
import io.fffs.datanode.DataNode;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.rdma.RdmaConfigKeys;
import io.fffs.rdma.UcxProbe;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link TransportSuite} over UCX ({@code fffs.transport=ucx}), run by surefire once with {@code UCX_TLS=tcp} and once
 * with {@code UCX_TLS=sysv,cma,self} (fffs-rdma/pom.xml), plus the agreement between a UCX client and a TCP-only
 * DataNode.
 */
class UcxTransportTest extends TransportSuite {
  @BeforeAll
  static void ucxIsInstalled() {
    // Only the ucx-tcp and ucx-shm surefire executions set the UCX environment (and this property).
    Assumptions.assumeTrue(System.getProperty("fffs.test.ucx.tls") != null,
        "run by the ucx-tcp and ucx-shm surefire executions");
    TransportProbe probe = UcxProbe.probe(new Configuration(false));
    assertThat(probe.available()).as("UCX must load for these tests (dev-support/test.sh installs UCX 1.18.1; "
        + "-Dfffs.ucx.lib points at it): " + probe.detail()).isTrue();
    assertThat(System.getenv("UCX_TLS")).isEqualTo(System.getProperty("fffs.test.ucx.tls"));
  }

  @Override
  String transport() {
    return "ucx";
  }

  @Override
  String expectedTransport() {
    return "ucx";
  }

  @Test
  void aUcxClientUsesTcpWithADataNodeThatHasNoUcx() throws Exception {
    try (TransportFixture f = new TransportFixture(dir, "tcp").start()) {
      Configuration clientConf = new Configuration(f.conf);
      clientConf.set("fffs.transport", "auto");
      DataTransferClient client = f.client(clientConf);
      assertThat(client.transport()).isEqualTo("ucx");
      byte[] data = randomBytes(new Random(11), 300_000);
      try (BlockWriter writer = client.openWriter(f.datanode.datanodeId(), 3, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(data));
      }
      assertThat(f.datanode.serverStats().writes.sum()).isGreaterThan(0);
      assertThat(read(client, f.datanode.datanodeId(), 3, 0, data.length, TimeSpec.latest()))
          .isEqualTo(data);
    }
  }

  /**
   * The DataNode's staging buffers (4 KiB) are far smaller than the client's packets (256 KiB): into the arena the
   * writes go through anyway (no staging buffer is involved), staged they are refused with a clear error and
   * nothing is written.
   */
  @Test
  void writesLandInArenaPagesNotInStagingBuffers() throws Exception {
    try (TransportFixture f = new TransportFixture(dir, "ucx")) {
      f.conf.setLong(RdmaConfigKeys.BUFFER_SIZE_KEY, 4096);
      f.start();
      Configuration clientConf = new Configuration(f.conf);
      clientConf.setLong(RdmaConfigKeys.BUFFER_SIZE_KEY, 256 * 1024);
      clientConf.setLong(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, 256 * 1024);
      DataTransferClient client = f.client(clientConf);
      byte[] data = randomBytes(new Random(5), 600_000);
      try (BlockWriter writer = client.openWriter(f.datanode.datanodeId(), 4, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(data));
      }
      assertThat(read(client, f.datanode.datanodeId(), 4, 0, data.length, TimeSpec.latest()))
          .isEqualTo(data);

      f.conf.setBoolean(RdmaConfigKeys.WRITE_INTO_ARENA_KEY, false);
      f.restart();
      DataTransferClient staged = f.client(clientConf);
      BlockWriter writer = staged.openWriter(f.datanode.datanodeId(), 5, OPTIONS);
      writer.write(0, ByteBuffer.wrap(data));
      assertThatThrownBy(writer::close).isInstanceOfSatisfying(FffsException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(e.detail()).contains(RdmaConfigKeys.BUFFER_SIZE_KEY);
      });
      assertThat(f.datanode.store().info(5, TimeSpec.latest()).exists()).isFalse();
    }
  }

  /**
   * A stream's packets that continue one another from page boundaries are fetched together (the DataNode reserves
   * each behind the one before, {@code PageReservation.reserveNext}), yet committed and acknowledged one by one:
   * when the block is full mid-stream, the packets before are there and nothing after.
   */
  @Test
  void consecutivePacketsAreFetchedTogetherAndStillFailOneByOne() throws Exception {
    try (TransportFixture f = new TransportFixture(dir, "ucx")) {
      f.conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, 64L << 20);
      f.start();
      Configuration clientConf = new Configuration(f.conf);
      clientConf.setInt(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, 64 * 1024);
      clientConf.setInt(DataTransferConfigKeys.WRITE_WINDOW_KEY, 16);
      DataTransferClient client = f.client(clientConf);
      byte[] data = randomBytes(new Random(21), 8 << 20);
      try (BlockWriter writer = client.openWriter(f.datanode.datanodeId(), 6, new WriteOptions(8 << 20, null))) {
        writer.write(0, ByteBuffer.wrap(data));
        assertThat(writer.flush()).isEqualTo(data.length);
      }
      BlockStore store = f.datanode.store();
      assertThat(store.stats().reservationsChained.sum()).isGreaterThan(0);
      assertThat(store.info(6, TimeSpec.latest()).logIndex()).isEqualTo(128); // create + 128
      assertThat(read(client, f.datanode.datanodeId(), 6, 0, data.length, TimeSpec.latest()))
          .isEqualTo(data);

      int blockSize = 10 * 64 * 1024;
      BlockWriter full = client.openWriter(f.datanode.datanodeId(), 7,
          new WriteOptions(blockSize, null));
      full.write(0, ByteBuffer.wrap(data, 0, 16 * 64 * 1024));
      assertThatThrownBy(full::close).isInstanceOfSatisfying(FffsException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.BLOCK_SIZE_EXCEEDED));
      assertThat(store.info(7, TimeSpec.latest()).length()).isEqualTo(blockSize);
      assertThat(read(client, f.datanode.datanodeId(), 7, 0, blockSize, TimeSpec.latest()))
          .isEqualTo(Arrays.copyOf(data, blockSize));
    }
  }

  @Test
  void autoPrefersUcxOnlyWithAnRdmaDeviceUnlessConfigured() throws Exception {
    try (TransportFixture f = new TransportFixture(dir, "auto")) {
      f.conf.set(RdmaConfigKeys.DEVICE_DIR_KEY, dir.resolve("no-devices").toString());
      f.conf.setBoolean(RdmaConfigKeys.REQUIRE_DEVICE_KEY, true);
      f.start();
      assertThat(f.datanode.datanodeId().getTransport()).isEqualTo("tcp");
      f.datanode.close();
      f.conf.setBoolean(RdmaConfigKeys.REQUIRE_DEVICE_KEY, false);
      f.datanode = DataNode.start(f.conf, PhysicalClock.system());
      assertThat(f.datanode.datanodeId().getTransport()).isEqualTo("ucx");
    }
  }
}
