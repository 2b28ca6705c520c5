package io.fffs.namenode.fs;

import static io.fffs.namenode.fs.NamesystemFixture.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.CommonProtos.BlockLastEntryProto;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The last entries writers report for their blocks are kept while a version refers to the block, and forgotten once
 * garbage collection leaves none that does — at run time, after a replay of the pass and from an image.
 */
class LastEntriesGcTest extends NamesystemTestBase {
  private static final long SECOND = 1_000_000L;

  /** A closed file of one block whose writer reported {@code lastEntry}; returns the block id. */
  private long writeFile(String path, long lastEntry) throws Exception {
    FileStatusProto created = nn.fs.files.create(ADMIN, path, 0644, "client-1", true, true, 1, 1 << 20, null).await();
    LocatedBlockProto block = nn.fs.files.addBlock(ADMIN, path, created.getInodeId(), "client-1", null).await();
    long blockId = block.getBlock().getBlockId();
    nn.fs.files.complete(ADMIN, path, created.getInodeId(), "client-1",
        BlockProto.newBuilder().setBlockId(blockId).setNumBytes(10).build(),
        List.of(BlockLastEntryProto.newBuilder().setBlockId(blockId).setLastEntryHlc(lastEntry).build())).await();
    return blockId;
  }

  @Test
  void aBlockNoKeptVersionRefersToLeavesTheLastEntries() throws Exception {
    long deleted = writeFile("/t/deleted", 1L << 40);
    long overwritten = writeFile("/t/f", 2L << 40);
    nn.fs.directories.delete(ADMIN, "/t/deleted", false).await();
    nn.advance(SECOND);
    long current = writeFile("/t/f", 3L << 40);  // overwrites: the old block stays in the file's history
    long elsewhere = writeFile("/u/f", 4L << 40);  // no rule: kept for good
    assertThat(nn.fs.expectedLastEntry(deleted)).as("a deleted file's block, before a pass").isEqualTo(1L << 40);
    nn.fs.history.setRetention(ADMIN, "/t", RetentionRule.parse("2s")).await();
    nn.advance(10 * SECOND);

    nn.fs.collectHistory(null);
    assertForgotten(deleted, overwritten, current, elsewhere);
    nn.restart();  // the pass replays from the edit log
    assertForgotten(deleted, overwritten, current, elsewhere);
    nn.fs.checkpoint();
    nn.restart();  // and the image holds what is left
    assertForgotten(deleted, overwritten, current, elsewhere);
  }

  private void assertForgotten(long deleted, long overwritten, long current, long elsewhere) {
    assertThat(nn.fs.expectedLastEntry(deleted)).as("the deleted file's block").isZero();
    assertThat(nn.fs.expectedLastEntry(overwritten)).as("the overwritten version's block").isZero();
    assertThat(nn.fs.expectedLastEntry(current)).as("the current version's block").isEqualTo(3L << 40);
    assertThat(nn.fs.expectedLastEntry(elsewhere)).as("a block outside the rule").isEqualTo(4L << 40);
  }
}
