package io.fffs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.PhysicalClock;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A writer that fails part-way through the writes sent to it again (a promoted follower lost in turn, or the new
 * writer after a refused token losing its DataNode): every write that was to be sent again is still among the copies
 * the next attempt sends from, not only those sent before the failure.
 */
class ResendFailureTest {
  private static final long BLOCK = 7;
  private static final WriteOptions OPTIONS = new WriteOptions(1 << 20, null);

  @Test
  void aPromotedPrimaryLostOnTheSecondResentWriteLeavesAllOfThemToTheNext() throws IOException {
    UnackedWrites copies = new UnackedWrites();
    for (int i = 0; i < 3; i++) {
      copies.add(i * 10L, packet(i), 0, 10, 0);
    }
    FakeWriter first = new FakeWriter(List.of(node("a"), node("b"), node("c")), 0);
    FakeWriter second = new FakeWriter(List.of(node("b"), node("c")), 2);  // lost on the second write
    FakeWriter third = new FakeWriter(List.of(node("c")), 0);
    Deque<FakeWriter> promoted = new ArrayDeque<>(List.of(second, third));
    List<BlockWriter> installed = new ArrayList<>();
    PrimaryFailover failover = new PrimaryFailover(() -> promoting(promoted), OPTIONS, "/f",
        new PrimaryFailover.Writers() {
          @Override
          public BlockToken token(long blockId) {
            return null;
          }

          @Override
          public void install(long blockId, BlockWriter writer, UnackedWrites fresh) {
            installed.add(writer);
          }

          @Override
          public void remove(long blockId) {
          }
        });

    BlockWriter writer = failover.failOver(BLOCK, first, copies, new IOException("primary a gone"));

    assertThat(writer).isSameAs(third);
    assertThat(installed).containsExactly(second, third);
    assertThat(second.offsets).as("the first promoted primary failed on the second write").containsExactly(0L);
    assertThat(third.offsets).as("every unacknowledged write reached the second promoted primary, in order")
        .containsExactly(0L, 10L, 20L);
    for (int i = 0; i < 3; i++) {
      assertThat(third.bytes.get(i)).isEqualTo(packet(i));
    }
    assertThat(failover.lost(BLOCK)).containsExactly(node("a"), node("b"));
  }

  @Test
  void aWriterLostWhileSendingAgainAfterARefusedTokenKeepsEveryWriteAndFailsTyped() throws IOException {
    BlockPipelines blocks = new BlockPipelines(PhysicalClock.system());
    LocatedBlockProto located = LocatedBlockProto.newBuilder()
        .setBlock(BlockProto.newBuilder().setBlockId(BLOCK).setNumBytes(0)).setOffset(0).addLocations(node("a"))
        .build();
    blocks.add(located);
    FakeWriter refused = new FakeWriter(List.of(node("a")), 0);
    refused.flushFailure = new FffsException(ErrorCode.ACCESS_DENIED, "key unknown");
    blocks.opened(0, refused, true);
    for (int i = 0; i < 3; i++) {
      blocks.copies(BLOCK).add(i * 10L, packet(i), 0, 10, 0);
    }
    FakeWriter reopened = new FakeWriter(List.of(node("a")), 2);  // its DataNode lost on the second write
    TokenRenewal renewal = new TokenRenewal(() -> LocatedBlocksProto.newBuilder().addBlocks(located).buildPartial(),
        "/f", blocks, index -> {
          blocks.opened(index, reopened, true);
          return reopened;
        });
    FffsException refusal = new FffsException(ErrorCode.ACCESS_DENIED, "key unknown");

    assertThatThrownBy(() -> renewal.resendRefused(refusal)).isInstanceOfSatisfying(FffsException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR);
      assertThat(e.getSuppressed()).containsExactly(refusal);
    }).hasMessageContaining("connection closed");

    assertThat(reopened.offsets).containsExactly(0L);
    List<UnackedWrites.Remainder> kept = blocks.copies(BLOCK).after(0);
    assertThat(kept).as("every write sent again is among the copies, the ones after the failure too")
        .extracting(UnackedWrites.Remainder::offset).containsExactly(0L, 10L, 20L);
    assertThat(renewal.resending()).isFalse();
  }

  private static DataTransferClient promoting(Deque<FakeWriter> promoted) {
    return (DataTransferClient) Proxy.newProxyInstance(DataTransferClient.class.getClassLoader(),
        new Class<?>[] {DataTransferClient.class}, (proxy, method, args) -> {
          if (method.getName().equals("promoteWriter")) {
            return promoted.poll();
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }

  private static byte[] packet(int i) {
    byte[] bytes = new byte[10];
    java.util.Arrays.fill(bytes, (byte) (i + 1));
    return bytes;
  }

  private static DatanodeIdProto node(String uuid) {
    return DatanodeIdProto.newBuilder().setDatanodeUuid(uuid).setHost("h-" + uuid).setDataPort(1).setIpcPort(0)
        .build();
  }

  /** Acknowledges nothing; the {@code failOn}-th write (1-based; 0: none) fails as a closed connection does. */
  private static final class FakeWriter extends FakeBlockWriter {
    final int failOn;
    final List<byte[]> bytes = new ArrayList<>();
    private int calls;

    FakeWriter(List<DatanodeIdProto> members, int failOn) {
      super(members);
      this.failOn = failOn;
    }

    @Override
    public void write(long offset, ByteBuffer data) throws IOException {
      if (++calls == failOn) {
        throw new IOException("connection closed");
      }
      byte[] copy = new byte[data.remaining()];
      data.duplicate().get(copy);
      offsets.add(offset);
      bytes.add(copy);
    }
  }
}
