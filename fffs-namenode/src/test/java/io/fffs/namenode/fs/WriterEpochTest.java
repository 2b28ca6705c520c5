package io.fffs.namenode.fs;

import static io.fffs.namenode.fs.NamesystemFixture.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.DatanodeProtocolProtos.WriterFenceProto;
import io.fffs.common.time.HlcTimestamp;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A file's writer epoch: raised by every new writer and by lease recovery (which also publishes a fence of the
 * file's blocks for the DataNodes), handed to the lease holder only, and kept across restarts and checkpoints.
 */
class WriterEpochTest extends NamesystemTestBase {
  @Test
  void eachTakeOverRaisesTheEpochAndARestartKeepsIt() throws Exception {
    FileStatusProto file = nn.fs.files.create(ADMIN, "/e", 0644, "a", false, true, 1, 1 << 20, null).await();
    long fileId = file.getInodeId();
    long blockId = nn.fs.files.addBlock(ADMIN, "/e", fileId, "a", null).await().getBlock().getBlockId();
    assertThat(nn.fs.writerEpoch(fileId, "a")).isZero();

    // b takes the file over after a's soft limit: a fence (epoch 1) for the file's block, then b's open (epoch 2).
    nn.nanos.addAndGet(61_000_000_000L);
    nn.fs.datanodes().heartbeat("dn-1", 0, 1L << 30, 0, 0, HlcTimestamp.ZERO, null);
    FileOps.OpenFile opened = nn.fs.files.openForWrite(ADMIN, "/e", "b").await();
    assertThat(opened.blocks.getWriterEpoch()).isEqualTo(2);
    assertThat(nn.fs.writerEpoch(fileId, "b")).isEqualTo(2);
    assertThat(nn.fs.writerEpoch(fileId, "a")).as("a lost the lease: its tokens carry 0").isZero();
    List<WriterFenceProto> fences = nn.fs.writerFencing.forRegistration("dn-2");
    assertThat(fences).hasSize(1);
    assertThat(fences.get(0).getEpoch()).isEqualTo(1);
    assertThat(fences.get(0).getBlockIdsList()).containsExactly(blockId);

    // A clean close and a reopen by c: no fence needed (b is done), but the epoch rises for c.
    nn.fs.files.complete(ADMIN, "/e", fileId, "b", BlockProto.newBuilder().setBlockId(blockId).setNumBytes(0)
        .build()).await();
    nn.fs.files.openForWrite(ADMIN, "/e", "c").await();
    assertThat(nn.fs.writerEpoch(fileId, "c")).isEqualTo(3);
    assertThat(nn.fs.writerFencing.size()).isEqualTo(1);

    nn.restart();
    assertThat(nn.fs.writerEpoch(fileId, "c")).isEqualTo(3);
    nn.fs.checkpoint();
    nn.restart();
    assertThat(nn.fs.writerEpoch(fileId, "c")).isEqualTo(3);
  }
}
