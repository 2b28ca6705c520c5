package io.fffs.namenode.fs;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.NamenodeEditsProtos.DeleteOp;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.namenode.blocks.DatanodeManager;
import io.fffs.namenode.namespace.GcPass;
import io.fffs.namenode.namespace.GcSteps;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.InodeState;
import io.fffs.namenode.namespace.Namespace;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code /status}'s replica counts are read in bounded read-lock holds: with a budget of 4 units over ~400 files they
 * take many holds and still count what one hold over the names bound when the count began counts, though files are
 * deleted and created between the holds.
 */
class ReplicationCountTest {
  private final AtomicInteger nanos = new AtomicInteger();
  private final DatanodeManager datanodes = new DatanodeManager(nanos::get, Long.MAX_VALUE / 4, 250_000);

  @Test
  void countsInManyHoldsWhatOneHoldCountsAtTheStart() throws Exception {
    ReplicationScanStepsTest.Built built = new ReplicationScanStepsTest.Built();
    for (String uuid : new String[] {"dn-1", "dn-2", "dn-3"}) {
      datanodes.register(DatanodeIdProto.newBuilder().setDatanodeUuid(uuid).setHost("127.0.0.1").setDataPort(50010)
          .setIpcPort(0).build(), 1L << 30, 0);
    }
    // Block b has b % 4 replicas (none: missing); dn-3's copy of every fifth is a stale one (an older last entry).
    for (long blockId = 0; blockId < built.namespace.nextBlockId(); blockId++) {
      for (int r = 0; r < blockId % 4; r++) {
        long lastEntry = r == 2 && blockId % 5 == 0 ? 800 : 900;
        datanodes.blocksReceived("dn-" + (r + 1), new long[] {blockId}, new long[] {10}, new long[] {lastEntry});
      }
    }
    NamespaceQueries.ReplicationSummary atStart = oneHold(built.namespace);
    assertThat(atStart.underReplicatedBlocks()).isPositive();
    assertThat(atStart.missingBlocks()).isPositive();
    assertThat(atStart.staleReplicas()).isPositive();

    long microsAtStart = built.micros;
    ReplicationCount count = new ReplicationCount(built.namespace, datanodes, () -> HlcTimestamp.of(built.micros, 0)
        .packed());
    AtomicInteger holds = new AtomicInteger();
    GcSteps.run(count, 4, step -> {
      if (holds.incrementAndGet() == 3) {
        // Between holds: a file of the last directory (not read yet) deleted, one added to the first (read already).
        built.apply(EditOpProto.newBuilder().setDelete(DeleteOp.newBuilder().setPath("/d9/f00")).build());
        built.write("/d0/zz-new", 2, 3, true);
      }
      step.run();
    });
    assertThat(built.micros).as("changes made after the count began").isGreaterThan(microsAtStart);
    assertThat(holds.get()).as("read-lock holds").isGreaterThan(100);
    assertThat(count.summary()).isEqualTo(atStart);
    assertThat(count.gcMeanwhile()).isFalse();
    assertThat(oneHold(built.namespace)).as("what a count begun now would find").isNotEqualTo(atStart);
  }

  /** A history-collection batch between the holds may drop names the count reads: the count says so. */
  @Test
  void aCollectionBatchBetweenTheHoldsIsNoticed() throws Exception {
    ReplicationScanStepsTest.Built built = new ReplicationScanStepsTest.Built();
    ReplicationCount count = new ReplicationCount(built.namespace, datanodes, () -> HlcTimestamp.of(built.micros, 0)
        .packed());
    AtomicInteger holds = new AtomicInteger();
    GcSteps.run(count, 4, step -> {
      if (holds.incrementAndGet() == 2) {
        GcPass.apply(built.namespace, List.of());  // a batch that keeps everything: it still counts
      }
      step.run();
    });
    assertThat(count.done()).isTrue();
    assertThat(count.gcMeanwhile()).isTrue();
  }

  /** The counts as one hold over the latest names reads them. */
  private NamespaceQueries.ReplicationSummary oneHold(Namespace namespace) {
    long[] counts = new long[3];
    namespace.forEachLatestFile(namespace.root(), (Inode file) -> {
      InodeState state = file.latest();
      for (int i = 0; i < state.blockCount(); i++) {
        int current = datanodes.currentReplicas(state.blockId(i));
        if (current == 0) {
          counts[1]++;
        } else if (current < state.replication()) {
          counts[0]++;
        }
        counts[2] += datanodes.staleReplicas(state.blockId(i));
      }
    });
    return new NamespaceQueries.ReplicationSummary(counts[0], counts[1], counts[2]);
  }
}
