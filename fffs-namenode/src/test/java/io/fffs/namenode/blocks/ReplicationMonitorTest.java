package io.fffs.namenode.blocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockTransferProto;
import io.fffs.common.proto.DatanodeProtocolProtos.ReplicaToEndProto;
import io.fffs.common.time.HlcTimestamp;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReplicationMonitorTest {
  private static final long SECOND = 1_000_000_000L;
  private static final long DEAD_NANOS = 30 * SECOND;
  private static final long LOST_NANOS = 60 * SECOND;
  private static final long PENDING_NANOS = 100 * SECOND;
  /** The pipeline epoch the replicas of a test report. */
  private static final long EPOCH = 77;

  private final AtomicLong nanos = new AtomicLong(1_000);
  private final DatanodeManager datanodes = new DatanodeManager(nanos::get, DEAD_NANOS, 250_000);
  private final ReplicationMonitor monitor = new ReplicationMonitor(datanodes, nanos::get, LOST_NANOS,
      PENDING_NANOS, 2, null);

  private void register(String... uuids) {
    for (String uuid : uuids) {
      datanodes.register(DatanodeIdProto.newBuilder().setDatanodeUuid(uuid).setHost("h-" + uuid)
          .setDataPort(50010).setIpcPort(0).build(), 1L << 30, 0);
    }
  }

  private void heartbeat(String... uuids) {
    for (String uuid : uuids) {
      datanodes.heartbeat(uuid, 0, 1L << 30, 0, 0, HlcTimestamp.ZERO, null);
    }
  }

  private void report(long blockId, long lastEntry, String... uuids) throws Exception {
    for (String uuid : uuids) {
      datanodes.blocksReceived(uuid, new long[] {blockId}, new long[] {100}, new long[] {lastEntry});
    }
  }

  /** Blocks 1..{@code count}, each with one replica, on a, and wanted at replication 2. */
  private List<ReplicationMonitor.Want> onA(int count) throws Exception {
    List<ReplicationMonitor.Want> wants = new java.util.ArrayList<>();
    for (long blockId = 1; blockId <= count; blockId++) {
      datanodes.placed(blockId, List.of("a"));
      report(blockId, 10, "a");
      wants.add(new ReplicationMonitor.Want(blockId, 2));
    }
    return wants;
  }

  /** Two scans: the monitor acts on what two scans in a row find. */
  private void scanTwice(List<ReplicationMonitor.Want> wants) {
    monitor.scan(wants);
    monitor.scan(wants);
  }

  @Test
  void aLostDataNodesBlocksAreCopiedFromACurrentReplicaToOneThatHoldsNone() throws Exception {
    register("a", "b", "c", "d");
    datanodes.placed(7, List.of("a", "b", "c"));
    report(7, 500, "a", "b", "c");
    List<ReplicationMonitor.Want> wants = List.of(new ReplicationMonitor.Want(7, 3));
    scanTwice(wants);
    assertThat(monitor.counts().underReplicated()).isZero();

    nanos.addAndGet(DEAD_NANOS + SECOND);
    heartbeat("a", "b", "d");
    scanTwice(wants);
    assertThat(List.of("a", "b", "d").stream().map(monitor::takeTransfers).mapToInt(List::size).sum())
        .as("dead (no longer listed) but not yet lost: no copy").isZero();

    nanos.addAndGet(LOST_NANOS);
    heartbeat("a", "b", "d");
    scanTwice(wants);
    List<BlockTransferProto> fromA = monitor.takeTransfers("a");
    List<BlockTransferProto> fromB = monitor.takeTransfers("b");
    assertThat(fromA.size() + fromB.size()).isEqualTo(1);
    BlockTransferProto transfer = fromA.isEmpty() ? fromB.get(0) : fromA.get(0);
    assertThat(transfer.getBlockId()).isEqualTo(7);
    assertThat(transfer.getTargetsList()).extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("d");
    assertThat(monitor.counts().pendingCopies()).isEqualTo(1);

    monitor.scan(wants);
    assertThat(monitor.takeTransfers("a")).as("a pending copy is not scheduled twice").isEmpty();
    assertThat(monitor.takeTransfers("b")).isEmpty();

    report(7, 500, "d");
    monitor.scan(wants);
    assertThat(monitor.counts().pendingCopies()).as("the target reported the newest entry: done").isZero();
    assertThat(monitor.counts().underReplicated()).isZero();
  }

  @Test
  void aBlockItsWriterStillWritesKeepsFollowersWhoseReportsLagAndIsCopiedOnlyWhenAHolderIsLost() throws Exception {
    register("a", "b", "c", "d");
    datanodes.placed(7, List.of("a", "b", "c"));
    report(7, 500, "a");
    report(7, 400, "b", "c");  // their reports of the writer's last entries are still on the way
    List<ReplicationMonitor.Want> open = List.of(new ReplicationMonitor.Want(7, 3, null, true));
    scanTwice(open);
    for (String uuid : List.of("a", "b", "c", "d")) {
      assertThat(monitor.takeDrops(uuid)).as("nothing dropped on %s", uuid).isEmpty();
      assertThat(monitor.takeTransfers(uuid)).as("nothing copied from %s", uuid).isEmpty();
    }
    assertThat(monitor.counts().underReplicated()).isZero();

    nanos.addAndGet(DEAD_NANOS + LOST_NANOS + SECOND);
    heartbeat("a", "b", "d");
    scanTwice(open);
    List<BlockTransferProto> fromA = monitor.takeTransfers("a");
    assertThat(fromA).hasSize(1);
    assertThat(fromA.get(0).getTargetsList()).extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("d");
    assertThat(monitor.takeDrops("b")).as("the lagging follower is still kept").isEmpty();
  }

  @Test
  void aClosedBlocksReplicasStillInAPipelineAreAskedToEndItAfterTwoScans() throws Exception {
    AtomicLong recorded = new AtomicLong();  // the block's last entry as its writer said at the close
    datanodes.setExpectedLastEntries(blockId -> blockId == 7 ? recorded.get() : 0);
    register("a", "b", "c", "d");
    datanodes.placed(7, List.of("a", "b", "c"));
    standing(7, 500, "a", BlockReplicas.STAMPS, false);
    standing(7, 500, "b", 450, false);  // follows, holding the last entry: its writer's end never came
    standing(7, 500, "c", 420, true);   // left out, yet holding the last entry too
    standing(7, 400, "d", 390, false);  // follows but misses an entry: not current, nothing to end
    List<ReplicationMonitor.Want> open = List.of(new ReplicationMonitor.Want(7, 3, null, true));
    scanTwice(open);
    for (String uuid : List.of("a", "b", "c", "d")) {
      assertThat(monitor.takeEnds(uuid)).as("the writer's pipeline decides while %s's file is open", uuid).isEmpty();
    }

    List<ReplicationMonitor.Want> closed = List.of(new ReplicationMonitor.Want(7, 3));
    scanTwice(closed);
    assertThat(monitor.takeEnds("b")).as("no last entry recorded: the reports alone may miss entries").isEmpty();
    recorded.set(600);
    scanTwice(closed);
    assertThat(monitor.takeEnds("b")).as("the writer's last entry is held by no live replica").isEmpty();

    recorded.set(500);
    monitor.scan(closed);
    assertThat(monitor.takeEnds("b")).as("one scan: its end may still be on its way").isEmpty();
    monitor.scan(closed);
    List<ReplicaToEndProto> ends = monitor.takeEnds("b");
    assertThat(ends).hasSize(1);
    assertThat(ends.get(0).getBlockId()).isEqualTo(7);
    assertThat(ends.get(0).getLastEntryHlc()).isEqualTo(500);
    assertThat(ends.get(0).getPipelineEpoch()).isEqualTo(EPOCH);
    assertThat(monitor.takeEnds("b")).as("handed out once").isEmpty();
    assertThat(monitor.takeEnds("c")).hasSize(1);
    assertThat(monitor.takeEnds("a")).as("it stamps the block").isEmpty();
    assertThat(monitor.takeEnds("d")).as("behind: ending it would claim entries it lacks").isEmpty();

    standing(7, 500, "b", BlockReplicas.STAMPS, false);
    monitor.scan(closed);
    assertThat(monitor.takeEnds("b")).as("ended").isEmpty();
    assertThat(monitor.takeEnds("c")).as("asked again until it reports the end").hasSize(1);
  }

  private void standing(long blockId, long lastEntry, String uuid, long frontier, boolean leftOut)
      throws Exception {
    datanodes.blocksReceived(uuid, new long[] {blockId}, new long[] {100}, new long[] {lastEntry},
        new BlockReplicas.Standing[] {new BlockReplicas.Standing(EPOCH, frontier, leftOut)});
  }

  @Test
  void theBlockWithFewestReplicasIsCopiedFirst() throws Exception {
    register("a", "b", "c", "d", "e");
    datanodes.placed(1, List.of("a", "b"));
    report(1, 10, "a", "b");
    datanodes.placed(2, List.of("a"));
    report(2, 10, "a");
    // One copy at a time from a: the block with one replica goes first.
    ReplicationMonitor oneStream = new ReplicationMonitor(datanodes, nanos::get, LOST_NANOS, PENDING_NANOS, 1,
        null);
    List<ReplicationMonitor.Want> wants = List.of(new ReplicationMonitor.Want(1, 3),
        new ReplicationMonitor.Want(2, 3));
    oneStream.scan(wants);
    oneStream.scan(wants);
    List<BlockTransferProto> fromA = oneStream.takeTransfers("a");
    assertThat(fromA).extracting(BlockTransferProto::getBlockId).containsExactly(2L);
    assertThat(fromA.get(0).getTargetsCount()).isEqualTo(2);
    assertThat(oneStream.takeTransfers("b")).extracting(BlockTransferProto::getBlockId).containsExactly(1L);
  }

  /**
   * Between scans (far apart on a large namespace) the blocks a scan left short get their copies round by round as
   * their sources' copies in flight end, without another scan; a block copied meanwhile is left alone, and a block
   * whose copy is in flight is not copied twice.
   */
  @Test
  void copiesGoOnBetweenScansAsCopiesInFlightEnd() throws Exception {
    register("a", "b");
    List<ReplicationMonitor.Want> wants = onA(5);
    scanTwice(wants);
    assertThat(monitor.takeTransfers("a")).extracting(BlockTransferProto::getBlockId).containsExactly(1L, 2L);
    assertThat(monitor.counts().underReplicated()).isEqualTo(5);

    monitor.topUp(-1, blockId -> false);
    assertThat(monitor.takeTransfers("a")).as("a sends two at a time").isEmpty();
    report(1, 10, "b");
    report(2, 10, "b");
    monitor.topUp(-1, blockId -> false);
    assertThat(monitor.takeTransfers("a")).as("the next two, once those are done")
        .extracting(BlockTransferProto::getBlockId).containsExactly(3L, 4L);

    report(5, 10, "b");  // copied some other way meanwhile
    report(3, 10, "b");
    report(4, 10, "b");
    monitor.topUp(-1, blockId -> false);
    assertThat(monitor.takeTransfers("a")).as("the block b holds now is not copied").isEmpty();
  }

  /**
   * A round looks at a bounded number of blocks; one whose sources are all busy goes behind those not looked at
   * yet, so that it cannot hold up a block whose source is free.
   */
  @Test
  void aBlockWhoseSourcesAreBusyDoesNotHoldUpTheOthers() throws Exception {
    ReplicationMonitor oneAtATime = new ReplicationMonitor(datanodes, nanos::get, LOST_NANOS, PENDING_NANOS, 2,
        null, 1);
    register("a", "b", "c", "d");
    List<ReplicationMonitor.Want> wants = onA(3);
    datanodes.placed(9, List.of("c"));
    report(9, 10, "c");
    wants.add(new ReplicationMonitor.Want(9, 2));
    nanos.addAndGet(DEAD_NANOS + SECOND);
    heartbeat("a", "b", "d");  // c silent: not a source for now
    oneAtATime.scan(wants);
    oneAtATime.scan(wants);
    assertThat(oneAtATime.takeTransfers("a")).extracting(BlockTransferProto::getBlockId).containsExactly(1L, 2L);
    assertThat(oneAtATime.takeTransfers("c")).isEmpty();

    heartbeat("a", "b", "c", "d");
    List<Long> fromC = new java.util.ArrayList<>();
    for (int round = 0; round < 6 && fromC.isEmpty(); round++) {
      oneAtATime.topUp(-1, blockId -> false);
      assertThat(oneAtATime.takeTransfers("a")).as("a is still sending two").isEmpty();
      oneAtATime.takeTransfers("c").forEach(t -> fromC.add(t.getBlockId()));
    }
    assertThat(fromC).as("block 9, behind block 3, which waits for a").containsExactly(9L);
  }

  /**
   * A block a scan saw closed and short may be written again before the next scan (a file reopened), so that a
   * replica whose report lags looks stale: between scans nothing is dropped, where a scan drops a closed block's
   * stale replica to free a DataNode for a whole copy.
   */
  @Test
  void betweenScansNoStaleReplicaIsDropped() throws Exception {
    register("a", "b", "c");
    datanodes.placed(7, List.of("a", "b", "c"));
    report(7, 500, "a", "b", "c");
    List<ReplicationMonitor.Want> wants = List.of(new ReplicationMonitor.Want(7, 3));
    nanos.addAndGet(LOST_NANOS + SECOND);
    heartbeat("a", "b");  // c lost: nowhere to copy to
    scanTwice(wants);
    assertThat(monitor.counts().underReplicated()).isEqualTo(1);

    report(7, 600, "a");  // written again in place; b's report lags
    monitor.topUp(-1, blockId -> false);
    assertThat(monitor.takeDrops("b")).isEmpty();
    monitor.scan(wants);
    assertThat(monitor.takeDrops("b")).as("what a scan does with a closed block's stale replica").containsExactly(7L);
  }

  @Test
  void betweenScansTheBlocksOfFilesBeingWrittenAreLeftToTheNextScan() throws Exception {
    register("a", "b");
    List<ReplicationMonitor.Want> wants = onA(3);
    scanTwice(wants);
    assertThat(monitor.takeTransfers("a")).extracting(BlockTransferProto::getBlockId).containsExactly(1L, 2L);
    monitor.topUp(-1, blockId -> blockId == 3);
    assertThat(monitor.takeTransfers("a")).isEmpty();
  }

  @Test
  void aDataNodeThatJoinsBetweenScansGetsTheMissingCopyAndABlockWithNowhereToGoWaitsForAScan() throws Exception {
    register("a", "b");
    datanodes.placed(8, List.of("a"));
    report(8, 10, "a");
    List<ReplicationMonitor.Want> wants = List.of(new ReplicationMonitor.Want(8, 3));
    scanTwice(wants);
    assertThat(monitor.takeTransfers("a")).as("one copy, to b: there is no third DataNode").hasSize(1);
    report(8, 10, "b");
    register("c");
    monitor.topUp(-1, blockId -> false);
    List<BlockTransferProto> third = new java.util.ArrayList<>(monitor.takeTransfers("a"));
    third.addAll(monitor.takeTransfers("b"));
    assertThat(third).hasSize(1);
    assertThat(third.get(0).getTargetsList()).extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("c");

    datanodes.placed(9, List.of("a"));
    report(9, 10, "a", "b", "c");
    List<ReplicationMonitor.Want> four = List.of(new ReplicationMonitor.Want(9, 4));
    scanTwice(four);
    monitor.topUp(-1, blockId -> false);  // nowhere to copy to: it leaves the list
    register("d");
    monitor.topUp(-1, blockId -> false);
    assertThat(List.of("a", "b", "c").stream().map(monitor::takeTransfers).mapToInt(List::size).sum())
        .as("until the next scan finds it").isZero();
    monitor.scan(four);
    assertThat(List.of("a", "b", "c").stream().map(monitor::takeTransfers).mapToInt(List::size).sum()).isEqualTo(1);
  }

  @Test
  void aCopyNotDoneInTimeIsScheduledAgain() throws Exception {
    register("a", "b");
    datanodes.placed(3, List.of("a"));
    report(3, 10, "a");
    List<ReplicationMonitor.Want> wants = List.of(new ReplicationMonitor.Want(3, 2));
    scanTwice(wants);
    assertThat(monitor.takeTransfers("a")).hasSize(1);
    nanos.addAndGet(PENDING_NANOS + SECOND);
    heartbeat("a", "b");
    monitor.scan(wants);
    assertThat(monitor.takeTransfers("a")).hasSize(1);
  }

  @Test
  void replicasBeyondTheTargetAndStaleOnesAreDroppedAndNoLongerListed() throws Exception {
    register("a", "b", "c", "d");
    datanodes.placed(4, List.of("a", "b", "c", "d"));
    report(4, 20, "a", "b", "c");
    report(4, 10, "d");
    List<ReplicationMonitor.Want> wants = List.of(new ReplicationMonitor.Want(4, 2));
    monitor.scan(wants);
    assertThat(List.of("a", "b", "c", "d").stream().map(monitor::takeDrops).mapToInt(List::size).sum())
        .as("one scan is not enough: reports may still be arriving").isZero();
    monitor.scan(wants);
    assertThat(monitor.takeDrops("d")).containsExactly(4L);
    assertThat(monitor.takeDrops("c")).containsExactly(4L);
    assertThat(monitor.takeDrops("a")).isEmpty();
    assertThat(datanodes.locations(4)).extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("a", "b");
    assertThat(monitor.counts().replicasDropped()).isEqualTo(2);
    assertThat(monitor.takeTransfers("a")).isEmpty();
  }

  @Test
  void staleReplicasAreDroppedToMakeRoomWhenNoOtherDataNodeIsFree() throws Exception {
    register("a", "b", "c");
    datanodes.placed(5, List.of("a", "b", "c"));
    report(5, 20, "a");
    report(5, 10, "b", "c");  // a writer went on with a alone: b and c miss its last entries
    List<ReplicationMonitor.Want> wants = List.of(new ReplicationMonitor.Want(5, 3));
    scanTwice(wants);
    assertThat(monitor.takeDrops("b")).containsExactly(5L);
    assertThat(monitor.takeDrops("c")).containsExactly(5L);
    assertThat(monitor.takeDrops("a")).isEmpty();
    assertThat(monitor.takeTransfers("a")).as("copies go where nothing of the block is left").isEmpty();

    scanTwice(wants);
    List<BlockTransferProto> fromA = monitor.takeTransfers("a");
    assertThat(fromA).hasSize(1);
    assertThat(fromA.get(0).getTargetsList()).extracting(DatanodeIdProto::getDatanodeUuid)
        .containsExactlyInAnyOrder("b", "c");
  }

  @Test
  void aDamagedReplicaIsReplacedFromAGoodOneAndThenDropped() throws Exception {
    register("a", "b", "c", "d");
    datanodes.placed(9, List.of("a", "b", "c"));
    report(9, 30, "a", "b", "c");
    datanodes.markCorrupt("c", 9);
    assertThat(datanodes.locations(9)).extracting(DatanodeIdProto::getDatanodeUuid).doesNotContain("c");
    List<ReplicationMonitor.Want> wants = List.of(new ReplicationMonitor.Want(9, 3, "/f"));
    scanTwice(wants);
    assertThat(monitor.counts().corruptReplicas()).isEqualTo(1);
    assertThat(monitor.takeDrops("c")).as("not before a good copy replaces it").isEmpty();
    List<BlockTransferProto> copies = new java.util.ArrayList<>(monitor.takeTransfers("a"));
    copies.addAll(monitor.takeTransfers("b"));
    assertThat(copies).hasSize(1);
    assertThat(copies.get(0).getTargetsList()).extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("d");

    report(9, 30, "d");
    scanTwice(wants);
    assertThat(monitor.takeDrops("c")).containsExactly(9L);
    monitor.scan(wants);
    assertThat(monitor.counts().corruptReplicas()).isZero();
    assertThat(datanodes.locations(9)).hasSize(3);
  }

  @Test
  void aFileWhoseOnlyReplicaIsDamagedIsNamed() throws Exception {
    register("a", "b");
    datanodes.placed(10, List.of("a"));
    report(10, 30, "a");
    datanodes.markCorrupt("a", 10);
    monitor.scan(List.of(new ReplicationMonitor.Want(10, 1, "/logs/only-copy")));
    assertThat(monitor.counts().filesWithoutGoodReplica()).containsExactly("/logs/only-copy");
    assertThat(monitor.takeTransfers("a")).isEmpty();
    assertThat(monitor.takeDrops("a")).as("the damaged replica is all there is: kept").isEmpty();
  }

  @Test
  void aBlockWithNoLiveCurrentReplicaWaits() throws Exception {
    register("a", "b");
    datanodes.placed(5, List.of("a"));
    report(5, 10, "a");
    nanos.addAndGet(LOST_NANOS + SECOND);
    heartbeat("b");
    List<ReplicationMonitor.Want> wants = List.of(new ReplicationMonitor.Want(5, 2));
    scanTwice(wants);
    assertThat(monitor.takeTransfers("a")).isEmpty();
    assertThat(monitor.takeTransfers("b")).isEmpty();
    assertThat(monitor.counts().underReplicated()).isEqualTo(1);
  }
}
