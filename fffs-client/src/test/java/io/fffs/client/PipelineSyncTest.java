package io.fffs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.data.DataTransferClient;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An hsync whose block loses its primary at every SYNC: a follower takes over {@link PrimaryFailover#ATTEMPTS} - 1
 * times, and the primary lost once more fails the stream with a typed {@code IO_ERROR} naming the path, the block
 * and how often its primary was lost. An hsync whose primary refuses the fresh token too fails it with
 * {@code ACCESS_DENIED}.
 */
class PipelineSyncTest {
  private static final long BLOCK = 7;

  @Test
  void aPrimaryLostAtEverySyncFailsTheStreamTyped() throws IOException {
    BlockPipelines blocks = new BlockPipelines(PhysicalClock.system());
    List<DatanodeIdProto> members = List.of(node("a"), node("b"), node("c"), node("d"), node("e"));
    blocks.add(LocatedBlockProto.newBuilder().setBlock(BlockProto.newBuilder().setBlockId(BLOCK).setNumBytes(0))
        .setOffset(0).addAllLocations(members).build());
    TokenRenewal tokens = new TokenRenewal(() -> null, "/f", blocks, index -> null);
    List<DatanodeIdProto> synced = new ArrayList<>();
    List<DatanodeIdProto> succeeded = new ArrayList<>();
    List<FffsException> failed = new ArrayList<>();
    PipelineSync sync = new PipelineSync(() -> syncing(blocks, synced), "/f", 1 << 20, blocks, tokens,
        (blockId, writer, cause) -> {
          // A follower takes over: the lost primary leaves the pipeline.
          DatanodeIdProto primary = blocks.locations(blocks.index(blockId)).get(0);
          succeeded.add(primary);
          blocks.removeLocation(blockId, primary);
        }, e -> {
          failed.add(e);
          return e;
        });
    sync.written(BLOCK);

    assertThatThrownBy(() -> sync.sync(100)).isInstanceOfSatisfying(FffsException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR);
      assertThat(failed).as("the stream was failed with it").containsExactly(e);
    }).hasMessageContaining("block 7 of /f").hasMessageContaining("primary was lost 4 times during one hsync")
        .hasMessageContaining("h-d:1");

    assertThat(succeeded).as("a follower took over the first ATTEMPTS - 1 times")
        .containsExactly(node("a"), node("b"), node("c"));
    assertThat(synced).as("the followers' SYNCs succeeded and kept them in the pipeline").contains(node("e"));
    assertThat(blocks.locations(0)).containsExactly(node("d"), node("e"));
  }

  /**
   * The primary refuses the SYNC's token, and the fresh one the stream asks the NameNode for too (it does not know
   * the NameNode's keys): the stream fails for good with {@code ACCESS_DENIED}, saying what to check and how to
   * write on, and the tokens are asked for once.
   */
  @Test
  void aSyncWhoseFreshTokenIsRefusedTooFailsTheStreamTyped() {
    BlockPipelines blocks = new BlockPipelines(PhysicalClock.system());
    List<DatanodeIdProto> members = List.of(node("a"), node("b"));
    LocatedBlockProto block = LocatedBlockProto.newBuilder()
        .setBlock(BlockProto.newBuilder().setBlockId(BLOCK).setNumBytes(0)).setOffset(0).addAllLocations(members)
        .build();
    blocks.add(block);
    AtomicInteger located = new AtomicInteger();
    TokenRenewal tokens = new TokenRenewal(() -> {
      located.incrementAndGet();
      return LocatedBlocksProto.newBuilder().addBlocks(block).buildPartial();
    }, "/f", blocks, index -> null);
    List<DatanodeIdProto> refused = new ArrayList<>();
    List<FffsException> failed = new ArrayList<>();
    PipelineSync sync = new PipelineSync(() -> refusing(refused), "/f", 1 << 20, blocks, tokens,
        (blockId, writer, cause) -> {
          throw new AssertionError("no failover for a refused token", cause);
        }, e -> {
          failed.add(e);
          return e;
        });
    sync.written(BLOCK);

    assertThatThrownBy(() -> sync.sync(100)).isInstanceOfSatisfying(FffsException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      assertThat(failed).as("the stream was failed with it").containsExactly(e);
    }).hasMessageContaining("/f").hasMessageContaining("h-a:1").hasMessageContaining("append");
    assertThat(located).as("fresh tokens asked for once").hasValue(1);
    assertThat(refused).as("the primary refused the SYNC, then its retry").containsExactly(node("a"), node("a"));
  }

  /** A SYNC to the primary {@code a} is refused for its token, as by a DataNode that lost the key; b's succeeds. */
  private static DataTransferClient refusing(List<DatanodeIdProto> refused) {
    return (DataTransferClient) Proxy.newProxyInstance(DataTransferClient.class.getClassLoader(),
        new Class<?>[] {DataTransferClient.class}, (proxy, method, args) -> {
          if (method.getName().equals("syncAsync")) {
            DatanodeIdProto datanode = (DatanodeIdProto) args[0];
            if (datanode.equals(node("a"))) {
              refused.add(datanode);
              return CompletableFuture.failedFuture(new FffsException(ErrorCode.ACCESS_DENIED,
                  "block token refused: key unknown"));
            }
            return CompletableFuture.completedFuture(HlcTimestamp.ZERO);
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }

  /** A SYNC to the block's current primary fails as a lost connection does; the others succeed. */
  private static DataTransferClient syncing(BlockPipelines blocks, List<DatanodeIdProto> synced) {
    return (DataTransferClient) Proxy.newProxyInstance(DataTransferClient.class.getClassLoader(),
        new Class<?>[] {DataTransferClient.class}, (proxy, method, args) -> {
          if (method.getName().equals("syncAsync")) {
            DatanodeIdProto datanode = (DatanodeIdProto) args[0];
            if (datanode.equals(blocks.locations(0).get(0))) {
              return CompletableFuture.failedFuture(new IOException("connection reset"));
            }
            synced.add(datanode);
            return CompletableFuture.completedFuture(HlcTimestamp.ZERO);
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }

  private static DatanodeIdProto node(String uuid) {
    return DatanodeIdProto.newBuilder().setDatanodeUuid(uuid).setHost("h-" + uuid).setDataPort(1).setIpcPort(0)
        .build();
  }
}
