package io.fffs.client.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.BlockInfoResponseProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.ManualPhysicalClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link ReplicaPipeline#promote} over the followers a failed primary left: the one holding the newest entry becomes
 * the primary, opened with a clock past the old primary's last acknowledged entry, and the one behind is brought up
 * to it from its own last entry; when none holds that acknowledged entry nothing is opened.
 */
class ReplicaPipelinePromoteTest {
  private static final long BLOCK = 7;

  private final HybridLogicalClock clock =
      new HybridLogicalClock(new ManualPhysicalClock(1_800_000_000_000_000L), 250_000);
  /** The requests sent: op (role, afterHlc) and DataNode, with the HLC each carried. */
  private final List<String> sent = new ArrayList<>();
  private final List<RequestHeaderProto> requests = new ArrayList<>();

  private static DatanodeIdProto dn(String name) {
    return DatanodeIdProto.newBuilder().setDatanodeUuid(name).setHost(name).setDataPort(1).setIpcPort(0).build();
  }

  private DataNodeCalls calls(Map<String, Long> lastEntries) {
    return (datanode, request) -> {
      RequestHeaderProto built = request.setCallId(0).setHlc(clock.last().toProto()).build();
      String name = datanode.getDatanodeUuid();
      requests.add(built);
      sent.add(built.getOp() + (built.hasReplicaOpen() ? "(" + built.getReplicaOpen().getRole() + ")" : "")
          + (built.hasTransferBlock() ? "(after " + built.getTransferBlock().getAfterHlc() + ")" : "") + " " + name);
      ResponseHeaderProto.Builder answer = ResponseHeaderProto.newBuilder().setCallId(0).setHlc(clock.last().toProto());
      if (built.getOp() == OpProto.BLOCK_INFO) {
        answer.setBlockInfo(BlockInfoResponseProto.newBuilder().setExists(true).setLength(0)
            .setResolvedHlc(HlcProto.newBuilder().setPacked(lastEntries.get(name))));
      }
      return answer.build();
    };
  }

  @Test
  void theNewestSurvivorStampsAfterTheLastAcknowledgedEntryAndTheOtherCatchesUp() throws Exception {
    long base = clock.now().packed();
    HlcTimestamp acknowledged = HlcTimestamp.valueOf(base + 1_000);
    ReplicaPipeline pipeline = ReplicaPipeline.promote(calls(Map.of("b", base + 10, "c", base + 1_000)),
        List.of(dn("b"), dn("c")), BLOCK, null, clock, acknowledged);
    assertThat(pipeline.members()).extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("c", "b");
    assertThat(sent).containsExactly("BLOCK_INFO b", "BLOCK_INFO c", "REPLICA_OPEN(PRIMARY) c", "BLOCK_INFO b",
        "TRANSFER_BLOCK(after " + (base + 10) + ") c", "REPLICA_OPEN(FOLLOWER) b");
    RequestHeaderProto primaryOpen = requests.get(2);
    assertThat(primaryOpen.getHlc().getPacked()).as("the clock the new primary merges before it stamps")
        .isGreaterThanOrEqualTo(base + 1_000);
    assertThat(pipeline.epoch()).isGreaterThan(base + 1_000);
  }

  @Test
  void noSurvivorHoldingTheLastAcknowledgedEntryOpensNothing() {
    long base = clock.now().packed();
    assertThatThrownBy(() -> ReplicaPipeline.promote(calls(Map.of("b", base + 10, "c", base + 20)),
        List.of(dn("b"), dn("c")), BLOCK, null, clock, HlcTimestamp.valueOf(base + 1_000)))
        .isInstanceOf(FffsException.class).hasMessageContaining("last acknowledged entry")
        .extracting(e -> ((FffsException) e).code()).isEqualTo(ErrorCode.IO_ERROR);
    assertThat(sent).containsExactly("BLOCK_INFO b", "BLOCK_INFO c");
  }
}
