package io.fffs.minicluster.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferClient;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.dataserver.BlockBytes;
import io.fffs.rdma.UcxProbe;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * UCX absent: the native library fails to load (forced through {@link UcxProbe#forceLoadFailure}, and in this
 * surefire run UCX is not on the library path either). {@code auto} falls back to TCP on both sides and data still
 * flows; {@code ucx} is an error that says why.
 */
class FallbackToTcpTest {
  @TempDir
  Path dir;

  @BeforeEach
  void breakUcx() {
    UcxProbe.forceLoadFailure("libucp.so.0: cannot open shared object file (forced by FallbackToTcpTest)");
  }

  @AfterEach
  void restoreUcx() {
    UcxProbe.forceLoadFailure(null);
  }

  @Test
  void autoFallsBackToTcpAndDataFlows() throws Exception {
    try (TransportFixture f = new TransportFixture(dir, "auto").start()) {
      assertThat(f.datanode.datanodeId().getTransport()).isEqualTo("tcp");
      assertThat(f.datanode.datanodeId().getTransportPort()).isZero();
      DataTransferClient client = f.client();
      assertThat(client.transport()).isEqualTo("tcp");
      byte[] data = BlockBytes.randomBytes(new Random(1), 200_000);
      try (BlockWriter writer = client.openWriter(f.datanode.datanodeId(), 1, TransportSuite.OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(data));
      }
      assertThat(BlockBytes.read(client, f.datanode.datanodeId(), 1, 0, data.length, TimeSpec.latest()))
          .isEqualTo(data);
    }
  }

  @Test
  void ucxWithoutUcxIsAClearError() throws Exception {
    try (TransportFixture f = new TransportFixture(dir, "ucx")) {
      assertThatThrownBy(f::start).isInstanceOfSatisfying(FffsException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED);
        assertThat(e.detail()).contains("fffs.transport=ucx").contains("libucp.so.0").contains("auto or tcp");
      });
      assertThatThrownBy(f::client).isInstanceOfSatisfying(FffsException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED);
        assertThat(e.detail()).contains("does not load");
      });
    }
  }
}
