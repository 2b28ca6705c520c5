package io.fffs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.PhysicalClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Closing a stream's writers for a token renewal: one that fails to close does not keep the others open. */
class CloseWritersTest {
  @Test
  void aWriterThatFailsToCloseLeavesTheOthersClosedAndIsThrown() {
    BlockPipelines blocks = new BlockPipelines(PhysicalClock.system());
    ClosingWriter failing = new ClosingWriter(new IOException("connection reset"));
    ClosingWriter healthy = new ClosingWriter(null);
    for (int block = 1; block <= 2; block++) {
      blocks.add(LocatedBlockProto.newBuilder().setBlock(BlockProto.newBuilder().setBlockId(block).setNumBytes(0))
          .setOffset(0).addLocations(node("n" + block)).build());
    }
    blocks.opened(0, failing, false);
    blocks.opened(1, healthy, false);
    TokenRenewal renewal = new TokenRenewal(() -> null, "/f", blocks, index -> null);

    assertThatThrownBy(renewal::closeWriters).isInstanceOf(IOException.class).hasMessage("connection reset");

    assertThat(failing.closes).isEqualTo(1);
    assertThat(healthy.closes).as("the writer after the failed one still closed (its connection pooled)")
        .isEqualTo(1);
    assertThat(blocks.writers()).isEmpty();
  }

  private static DatanodeIdProto node(String uuid) {
    return DatanodeIdProto.newBuilder().setDatanodeUuid(uuid).setHost("h-" + uuid).setDataPort(1).setIpcPort(0)
        .build();
  }

  /** Counts its closes; {@code failure}, if set, is what each close throws. */
  private static final class ClosingWriter extends FakeBlockWriter {
    private final IOException failure;
    int closes;

    ClosingWriter(IOException failure) {
      super(List.of());
      this.failure = failure;
    }

    @Override
    public void write(long offset, ByteBuffer data) {
    }

    @Override
    public void close() throws IOException {
      closes++;
      if (failure != null) {
        throw failure;
      }
    }
  }
}
