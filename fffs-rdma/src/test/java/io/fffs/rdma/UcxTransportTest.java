package io.fffs.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferClient;
import io.fffs.common.transport.TransportProbe;
import io.fffs.datanode.DataNode;
import io.fffs.common.time.PhysicalClock;
import java.nio.ByteBuffer;
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
      assertThat(client).isInstanceOf(UcxDataTransferClient.class);
      byte[] data = randomBytes(new Random(11), 300_000);
      try (BlockWriter writer = client.openWriter(f.datanode.datanodeId(), 3, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(data));
      }
      assertThat(f.datanode.serverStats().writes.sum()).isGreaterThan(0);
      assertThat(read(client, f.datanode.datanodeId(), 3, 0, data.length, io.fffs.common.time.TimeSpec.latest()))
          .isEqualTo(data);
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
