package io.fffs.minicluster.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.ChainMemberProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaOpenRequestProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaRoleProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaStampProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.TransferBlockRequestProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.fffs.common.security.BlockTokenConfigKeys;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.protocol.frame.BlockingFrameChannel;
import io.fffs.protocol.frame.ChunkChecksums;
import io.fffs.protocol.frame.Frame;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fields no writer sends — an epoch or replica stamp with the top bit set (a uint64 at or above 2^63), a chain member
 * or transfer target that is no port — are refused by the DataNode as {@code INVALID_ARGUMENT}, with nothing stored
 * that a later request would trip on.
 */
class DamagedRequestFieldsTest {
  private static final HlcProto DAMAGED = HlcProto.newBuilder().setPacked(-5).build();
  private static final HlcProto GOOD = HlcProto.newBuilder().setPacked(1L << 40).build();

  @TempDir
  Path base;

  @Test
  void damagedEpochsStampsAndAddressesAreRefusedAndLeaveNothingBehind() throws Exception {
    Configuration conf = new Configuration();
    conf.setBoolean(BlockTokenConfigKeys.ENABLE_KEY, false);
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(1).build();
        BlockingFrameChannel channel = BlockingFrameChannel.connect(cluster.getDataAddress(0), 20_000,
            DataTransferConfigKeys.maxFrameSize(conf))) {
      long block = 77;
      assertThat(code(channel, header(OpProto.REPLICA_OPEN).setReplicaOpen(ReplicaOpenRequestProto.newBuilder()
          .setBlockId(block).setRole(ReplicaRoleProto.FOLLOWER).setEpoch(-5)), new byte[0]))
          .isEqualTo(ErrorCode.INVALID_ARGUMENT);
      // A follower opened at a good epoch, then a write whose create stamp is damaged.
      assertThat(code(channel, header(OpProto.REPLICA_OPEN).setReplicaOpen(ReplicaOpenRequestProto.newBuilder()
          .setBlockId(block).setRole(ReplicaRoleProto.FOLLOWER).setEpoch(1L << 40)), new byte[0])).isNull();
      // With the payload's checksums, so that the write is refused for its stamp rather than as CORRUPT.
      WriteRequestProto.Builder write = WriteRequestProto.newBuilder().setBlockId(block).setOffset(0)
          .setChunkCrcs(ChunkChecksums.toWire(ChunkChecksums.of(ByteBuffer.wrap(new byte[1]))))
          .setReplica(ReplicaStampProto.newBuilder().setEntryHlc(GOOD).setCreateHlc(DAMAGED).setLengthAfter(1)
              .setFrontierHlc(GOOD));
      assertThat(code(channel, header(OpProto.WRITE).setWrite(write), new byte[1]))
          .isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(code(channel, header(OpProto.WRITE).setWrite(write.clone().clearReplica().setPipelineEpoch(-7)),
          new byte[1])).isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(code(channel, header(OpProto.WRITE).setWrite(write.clone().clearReplica().addDownstream(
          ChainMemberProto.newBuilder().setHost("127.0.0.1").setDataPort(70_000))), new byte[1]))
          .isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(code(channel, header(OpProto.TRANSFER_BLOCK).setTransferBlock(TransferBlockRequestProto.newBuilder()
          .setBlockId(block).setTargetHost("127.0.0.1").setTargetDataPort(70_000)), new byte[0]))
          .isEqualTo(ErrorCode.INVALID_ARGUMENT);
      // Nothing damaged was kept: a later, well-formed open at a higher epoch is answered as usual.
      assertThat(code(channel, header(OpProto.REPLICA_OPEN).setReplicaOpen(ReplicaOpenRequestProto.newBuilder()
          .setBlockId(block).setRole(ReplicaRoleProto.FOLLOWER).setEpoch(1L << 41)), new byte[0])).isNull();
    }
  }

  private static RequestHeaderProto.Builder header(OpProto op) {
    return RequestHeaderProto.newBuilder().setCallId(1).setOp(op).setHlc(GOOD);
  }

  /** The error code of the answer, or null for a success. */
  private static ErrorCode code(BlockingFrameChannel channel, RequestHeaderProto.Builder request, byte[] payload)
      throws Exception {
    channel.send(request.build(), ByteBuffer.wrap(payload));
    Frame<ResponseHeaderProto> answer = channel.receive(ResponseHeaderProto.parser());
    answer.release();
    return answer.header().hasError() ? FffsException.fromProto(answer.header().getError()).code() : null;
  }
}
