package io.fffs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.time.TimeSpec;
import org.junit.jupiter.api.Test;

/** How a file's layout is taken from the NameNode's answer when its last block has no live DataNode. */
class FileLayoutTest {
  private static final DatanodeIdProto DATANODE = DatanodeIdProto.newBuilder().setDatanodeUuid("dn")
      .setHost("127.0.0.1").setDataPort(1).setIpcPort(0).build();

  private static LocatedBlocksProto openFile(long lastBlockLength) {
    return LocatedBlocksProto.newBuilder().setFileLength(1000 + lastBlockLength).setUnderConstruction(true)
        .setVersionHlc(HlcProto.newBuilder().setPacked(1))
        .addBlocks(LocatedBlockProto.newBuilder().setOffset(0).addLocations(DATANODE)
            .setBlock(BlockProto.newBuilder().setBlockId(1).setNumBytes(1000)))
        .addBlocks(LocatedBlockProto.newBuilder().setOffset(1000)
            .setBlock(BlockProto.newBuilder().setBlockId(2).setNumBytes(lastBlockLength)))
        .build();
  }

  @Test
  void anOpenFilesLastBlockWithoutReplicaOrHsyncReadsAsEmptySoTheBlocksBeforeItStayReadable() throws Exception {
    FileLayout layout = FileLayout.resolve("/f", openFile(0), TimeSpec.latest(), null);
    assertThat(layout.length).isEqualTo(1000);
    assertThat(layout.blocks).hasSize(2);
  }

  @Test
  void anOpenFilesLastBlockWithoutReplicaButWithHsyncedBytesIsNotFound() {
    assertThatThrownBy(() -> FileLayout.resolve("/f", openFile(10), TimeSpec.latest(), null))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
  }
}
