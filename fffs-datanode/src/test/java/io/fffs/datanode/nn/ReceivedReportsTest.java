package io.fffs.datanode.nn;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.DatanodeProtocolProtos.ReportedBlockProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.datanode.store.BlockSummary;
import io.fffs.datanode.store.log.Block;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A replica's standing in a write pipeline reaches the NameNode with its block's line, even when the replica was
 * opened before the block held an entry (a new block's pipeline): else the NameNode would rank the primary, opened
 * last, as placed and never opened, behind followers whose standing went with their first entry.
 */
class ReceivedReportsTest {
  private static final long BLOCK = 7;
  private static final long EPOCH = 99;

  private final Map<Long, BlockSummary> store = new HashMap<>();

  @Test
  void aStandingChangedBeforeTheBlocksFirstEntryGoesWithThatEntry() {
    ReceivedReports reports = new ReceivedReports();
    reports.standingChanged(BLOCK);  // opened as primary: the block holds no entry yet
    assertThat(reports.take(store::get)).as("no line for a block without entries").isEmpty();
    assertThat(reports.isEmpty()).as("nothing to send until the block is written").isTrue();

    store.put(BLOCK, new BlockSummary(BLOCK, 1024, HlcTimestamp.valueOf(500), EPOCH, Block.NOT_FOLLOWING, false));
    reports.written(BLOCK, 1024, 500);
    List<ReportedBlockProto> lines = reports.take(store::get);
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0).getPipelineEpoch()).as("the primary's epoch, with its first entry").isEqualTo(EPOCH);
    assertThat(lines.get(0).hasFollowerFrontierHlc()).as("it stamps the block").isFalse();
    assertThat(lines.get(0).getLastEntryHlc()).isEqualTo(500);

    reports.written(BLOCK, 2048, 600);
    lines = reports.take(store::get);
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0).hasPipelineEpoch()).as("later writes carry no standing").isFalse();
    assertThat(lines.get(0).getNumBytes()).isEqualTo(2048);
  }

  @Test
  void aStandingOfABlockWithEntriesGoesAtOnceWithItsLineAsNow() {
    ReceivedReports reports = new ReceivedReports();
    store.put(BLOCK, new BlockSummary(BLOCK, 4096, HlcTimestamp.valueOf(800), EPOCH, 700, false));
    reports.written(BLOCK, 2048, 600);
    reports.standingChanged(BLOCK);
    List<ReportedBlockProto> lines = reports.take(store::get);
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0).getPipelineEpoch()).isEqualTo(EPOCH);
    assertThat(lines.get(0).getFollowerFrontierHlc()).isEqualTo(700);
    assertThat(lines.get(0).getNumBytes()).as("the line as the store holds it now").isEqualTo(4096);
    assertThat(reports.isEmpty()).isTrue();
  }

  @Test
  void aDroppedReplicaLeavesNothingWaiting() {
    ReceivedReports reports = new ReceivedReports();
    reports.standingChanged(BLOCK);  // opened in a pipeline that never wrote, then dropped
    assertThat(reports.take(store::get)).isEmpty();
    reports.forget(BLOCK);

    // The same id written later (a test store reusing ids) goes without the forgotten standing.
    store.put(BLOCK, new BlockSummary(BLOCK, 1024, HlcTimestamp.valueOf(500), EPOCH, Block.NOT_FOLLOWING, false));
    reports.written(BLOCK, 1024, 500);
    List<ReportedBlockProto> lines = reports.take(store::get);
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0).hasPipelineEpoch()).as("the forgotten standing is not sent").isFalse();

    reports.written(BLOCK + 1, 10, 600);
    reports.forget(BLOCK + 1);
    assertThat(reports.isEmpty()).as("a forgotten write is not reported").isTrue();
  }
}
