package io.fffs.namenode.blocks;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.BlockTokenProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockTransferProto;
import io.fffs.common.proto.DatanodeProtocolProtos.ReplicaToEndProto;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every block at its file's replication. Each {@link #scan} (run by the NameNode's monitor thread every
 * {@code fffs.namenode.replication.interval}) compares the blocks' replicas with their targets, fewest replicas
 * first:
 * <ul>
 *   <li>A block with fewer kept replicas than its target gets copies: a DataNode holding a current replica is asked
 *   (in its next heartbeat answer) to stream the block's whole log to DataNodes that hold none. A replica counts as
 *   kept until its DataNode has been silent for {@code fffs.namenode.replication.dead-interval}, so a DataNode that
 *   restarts is not copied away. A copy counts as done when its target reports the block with the newest last entry;
 *   one not done within {@code fffs.namenode.replication.pending-timeout} is scheduled again.</li>
 *   <li>A block with more current replicas than its target, or with stale replicas while it has enough current
 *   ones, has the extra replicas dropped (stale ones first): they stop being listed at once, and their DataNodes
 *   drop them with their history (the kept replicas hold the same). A short block whose only DataNodes left to
 *   copy to hold stale replicas of it has those dropped, so that later scans copy the whole history there.</li>
 * </ul>
 * A replica of a closed block that still stands in a write pipeline (its writer's end never reached it) and holds
 * the block's last entry as its writer or a lease recovery recorded it is asked to end it. Only closed blocks are
 * scanned; the block a writer is still writing is the pipeline's. A block is acted on only when two scans in a row
 * find it short (or with extras, or a replica still in a pipeline), so that the reports of a pipeline that just
 * closed, which arrive one DataNode at a time, are all in first. Between scans, which on a large namespace come
 * seldom, {@link #topUp} goes on scheduling copies for the blocks the last scan left short, without the namespace.
 * Thread-safe.
 */
public final class ReplicationMonitor {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicationMonitor.class);

  /**
   * A block, the replication of its file, and the file's path when the block has a damaged replica (null otherwise:
   * it is named only when no good replica is left). {@code open}: a block (not the last) of a file being written,
   * which its writer may still write in place, so a follower whose report lags looks stale for a moment: such a
   * block is copied only when it has fewer live holders than its replication (a DataNode was lost), and nothing of
   * it is dropped.
   */
  public record Want(long blockId, int replication, String path, boolean open) {
    public Want(long blockId, int replication, String path) {
      this(blockId, replication, path, false);
    }

    public Want(long blockId, int replication) {
      this(blockId, replication, null, false);
    }
  }

  /**
   * What the last scan found: blocks short of replicas, copies in flight, replicas dropped so far, damaged replicas,
   * and the files with a block whose every replica is damaged (at most {@link #MAX_NAMED} named).
   */
  public record Counts(long underReplicated, long pendingCopies, long copiesScheduled, long replicasDropped,
      long corruptReplicas, List<String> filesWithoutGoodReplica) {}

  /** Files named in {@link Counts#filesWithoutGoodReplica} at most. */
  public static final int MAX_NAMED = 100;

  /**
   * Copies of a block in flight from {@code source}; {@code open}: of a block being written (done once a target holds
   * any replica).
   */
  private record Pending(String source, Set<String> targets, long deadlineNanos, boolean open) {}

  /** What {@link #schedule} did: copies asked for, every source busy, or no DataNode to copy to. */
  private enum Outcome { SCHEDULED, BUSY, NOWHERE }

  private record Short(Want want, ReplicaView view, int have) {}

  private record Unended(long blockId, BlockReplicas.Unended replica) {}

  private final DatanodeManager datanodes;
  private final LongSupplier nanoTime;
  private final long lostAfterNanos;
  private final long pendingTimeoutNanos;
  private final int maxPendingPerSource;
  private final LongFunction<BlockTokenProto> writeTokens;
  private final int topUpBlocks;
  private final Map<Long, Pending> pending = new HashMap<>();
  private final Map<String, List<BlockTransferProto>> transfers = new HashMap<>();
  private final Map<String, List<Long>> drops = new HashMap<>();
  private final Map<String, List<ReplicaToEndProto>> ends = new HashMap<>();
  /** Replicas of closed blocks the last scan found still in a pipeline, and those it asked to end. */
  private Set<Unended> unendedBefore = new HashSet<>();
  private Set<Unended> askedBefore = new HashSet<>();
  private Set<Long> shortBefore = new HashSet<>();
  private Set<Long> extraBefore = new HashSet<>();
  private Set<Long> misplacedBefore = new HashSet<>();
  private long copiesScheduled;
  private long replicasDropped;
  private long underReplicated;
  private long corruptReplicas;
  private long misReplicated;
  private List<String> filesWithoutGoodReplica = List.of();
  /** What the last scan found short, fewest replicas first, which {@link #topUp} copies until the next scan. */
  private ArrayDeque<Want> shortLeft = new ArrayDeque<>();
  /** The history-collection drops the namespace had applied when the last scan began. */
  private long scannedGcDrops = -1;

  /**
   * @param lostAfterNanos silence after which a DataNode's replicas are copied elsewhere
   * @param pendingTimeoutNanos how long a copy may take before it is scheduled again
   * @param maxPendingPerSource copies one DataNode is asked to send at a time
   * @param writeTokens the WRITE token a copy's targets check (null when tokens are off)
   */
  public ReplicationMonitor(DatanodeManager datanodes, LongSupplier nanoTime, long lostAfterNanos,
      long pendingTimeoutNanos, int maxPendingPerSource, LongFunction<BlockTokenProto> writeTokens) {
    this(datanodes, nanoTime, lostAfterNanos, pendingTimeoutNanos, maxPendingPerSource, writeTokens, TOP_UP_BLOCKS);
  }

  /** With {@code topUpBlocks} looked at per {@link #topUp} round (tests). */
  ReplicationMonitor(DatanodeManager datanodes, LongSupplier nanoTime, long lostAfterNanos, long pendingTimeoutNanos,
      int maxPendingPerSource, LongFunction<BlockTokenProto> writeTokens, int topUpBlocks) {
    this.topUpBlocks = topUpBlocks;
    this.datanodes = datanodes;
    this.nanoTime = nanoTime;
    this.lostAfterNanos = lostAfterNanos;
    this.pendingTimeoutNanos = pendingTimeoutNanos;
    this.maxPendingPerSource = maxPendingPerSource;
    this.writeTokens = writeTokens;
  }

  /** One pass over {@code wants}: schedules copies and drops. */
  public void scan(List<Want> wants) {
    scan(wants, List.of());
  }

  /**
   * One pass over {@code wants}: schedules copies and drops, and updates each decommissioning DataNode's progress;
   * {@code openBlocks}, the blocks being written, keep a decommissioning DataNode that holds one from finishing.
   */
  public synchronized void scan(List<Want> wants, List<Long> openBlocks) {
    scan(wants, openBlocks, -1);
  }

  /** {@link #scan(List, List)} read when the namespace had applied {@code gcDrops} dropping collection batches. */
  public synchronized void scan(List<Want> wants, List<Long> openBlocks, long gcDrops) {
    long now = nanoTime.getAsLong();
    refreshPending(now);  // also those of blocks no longer wanted, which would keep their source busy
    List<Short> shortOnes = new ArrayList<>();
    Set<Long> shortNow = new HashSet<>();
    Set<Long> extraNow = new HashSet<>();
    Set<Long> misplacedNow = new HashSet<>();
    List<Short> misplaced = new ArrayList<>();
    int racks = datanodes.rackCount();
    long corrupt = 0;
    Set<String> lost = new java.util.TreeSet<>();
    Map<String, Long> retiringLeft = new HashMap<>();
    int inServiceNodes = datanodes.inServiceLiveCount();
    Set<Unended> unendedNow = new HashSet<>();
    Set<Unended> asked = new HashSet<>();
    ends.clear();  // asked afresh: what a DataNode has not taken yet is asked again below while it still stands so
    for (Want want : wants) {
      ReplicaView view = datanodes.replicaView(want.blockId(), lostAfterNanos);
      if (!want.open()) {
        endUnended(want.blockId(), unendedNow, asked);
      }
      if (!view.retiring().isEmpty()
          && view.inService().size() < Math.max(1, Math.min(want.replication(), inServiceNodes))) {
        for (String uuid : view.retiring()) {
          retiringLeft.merge(uuid, 1L, Long::sum);
        }
      }
      corrupt += view.corrupt().size();
      if (!view.corrupt().isEmpty() && view.kept() == 0 && lost.size() < MAX_NAMED) {
        if (lost.add(want.path() == null ? "block " + want.blockId() : want.path())) {
          LOG.warn("Block {} of {} has no good replica left: its replicas on {} are damaged", want.blockId(),
              want.path(), view.corrupt());
        }
      }
      Pending copies = refresh(want.blockId(), view, want.open(), now);
      int have = have(want, view, copies);
      if (have < want.replication()) {
        shortNow.add(want.blockId());
        if (shortBefore.contains(want.blockId())) {
          shortOnes.add(new Short(want, view, have));
        }
      } else if (want.open()) {
        continue;  // its writer's pipeline decides which replicas it keeps
      } else if (copies == null && hasExtras(want, view)) {
        extraNow.add(want.blockId());
        if (extraBefore.contains(want.blockId())) {
          dropExtras(want, view, racks);
        }
      } else if (copies == null && BlockPlacement.misplaced(datanodes.racksOf(view.inService()), racks)) {
        misplacedNow.add(want.blockId());
        if (misplacedBefore.contains(want.blockId())) {
          misplaced.add(new Short(want, view, have));
        }
      }
    }
    for (long blockId : openBlocks) {
      for (String uuid : datanodes.replicaView(blockId, lostAfterNanos).holders()) {
        if (!datanodes.inService(uuid)) {
          retiringLeft.merge(uuid, 1L, Long::sum);
        }
      }
    }
    for (DatanodeDescriptor descriptor : datanodes.datanodes()) {
      if (descriptor.adminState() == AdminState.DECOMMISSIONING) {
        Decommissions.progress(descriptor, retiringLeft.getOrDefault(descriptor.uuid(), 0L));
      }
    }
    shortBefore = shortNow;
    extraBefore = extraNow;
    unendedBefore = unendedNow;
    askedBefore = asked;
    misplacedBefore = misplacedNow;
    misReplicated = misplacedNow.size();
    corruptReplicas = corrupt;
    filesWithoutGoodReplica = List.copyOf(lost);
    underReplicated = shortNow.size();
    shortOnes.sort(Comparator.comparingInt(Short::have));
    shortLeft = new ArrayDeque<>(shortOnes.stream().map(Short::want).toList());
    scannedGcDrops = gcDrops;
    Map<String, Integer> busy = busyDataNodes();
    for (Short block : shortOnes) {
      schedule(block.want(), block.view(), block.want().replication() - block.have(), busy, now, false, true);
    }
    for (Short block : misplaced) {
      // One more replica on another rack; the next scans then drop one from the crowded rack.
      schedule(block.want(), block.view(), 1, busy, now, true, true);
    }
  }

  /**
   * Between scans: copies for the blocks the last scan left short that still are, from the replicas' state now, in
   * the scan's order (fewest replicas first), each DataNode's copies in flight bounded as in a scan. At most
   * {@link #TOP_UP_BLOCKS} of them are looked at per round: one whose sources are all busy goes behind those not
   * looked at yet, one with no live current replica or no DataNode to copy to leaves the list. Only copies: a block
   * the scan saw closed may be written again since, so nothing is dropped here, and the blocks {@code writing} names
   * (files being written now) are left to the next scan, as is every block once history collection dropped a file's
   * version or a file since the scan began ({@code gcDrops}, the namespace's count of such batches, differs from the
   * scan's): a wanted block may be gone.
   */
  public synchronized void topUp(long gcDrops, LongPredicate writing) {
    if (gcDrops != scannedGcDrops) {
      shortLeft.clear();
      return;
    }
    long now = nanoTime.getAsLong();
    refreshPending(now);
    Map<String, Integer> busy = busyDataNodes();
    List<Want> again = new ArrayList<>();
    List<Want> waiting = new ArrayList<>();
    for (int looked = 0; looked < topUpBlocks && !shortLeft.isEmpty(); looked++) {
      Want want = shortLeft.pollFirst();
      if (writing.test(want.blockId())) {
        continue;
      }
      ReplicaView view = datanodes.replicaView(want.blockId(), lostAfterNanos);
      int have = have(want, view, pending.get(want.blockId()));
      if (have >= want.replication() || view.current().isEmpty()) {
        continue;  // done, or nothing to copy from: the next scan looks again
      }
      switch (schedule(want, view, want.replication() - have, busy, now, false, false)) {
        case SCHEDULED -> again.add(want);  // looked at next round: its copies may not cover all it lacks
        case BUSY -> waiting.add(want);  // behind the blocks not looked at yet, so that they are not held up
        case NOWHERE -> { }  // no DataNode to copy to: the next scan looks again
      }
    }
    for (int i = again.size() - 1; i >= 0; i--) {
      shortLeft.addFirst(again.get(i));
    }
    shortLeft.addAll(waiting);
  }

  /** Forgets what the scans found (this NameNode takes the lead: its DataNodes report afresh). */
  public synchronized void reset() {
    pending.clear();
    transfers.clear();
    drops.clear();
    ends.clear();
    shortBefore = new HashSet<>();
    extraBefore = new HashSet<>();
    misplacedBefore = new HashSet<>();
    unendedBefore = new HashSet<>();
    askedBefore = new HashSet<>();
    shortLeft.clear();
    scannedGcDrops = -1;
  }

  /** Blocks {@link #topUp} looks at per round: the monitor's lock, which heartbeats take too, is held meanwhile. */
  private static final int TOP_UP_BLOCKS = 10_000;

  /** How many copies in flight each DataNode sends or receives. */
  private Map<String, Integer> busyDataNodes() {
    Map<String, Integer> busy = new HashMap<>();
    for (Pending copies : pending.values()) {
      busy.merge(copies.source(), 1, Integer::sum);
      for (String target : copies.targets()) {
        busy.merge(target, 1, Integer::sum);
      }
    }
    return busy;
  }

  /** Forgets the copies in flight that are done or overdue. */
  private void refreshPending(long now) {
    for (Map.Entry<Long, Pending> copies : List.copyOf(pending.entrySet())) {
      refresh(copies.getKey(), datanodes.replicaView(copies.getKey(), lostAfterNanos), copies.getValue().open(), now);
    }
  }

  /**
   * The block's copies in flight, less the targets that now hold it (any replica of an {@code open} block, a current
   * one of a closed block); null once none is left or they are overdue.
   */
  private Pending refresh(long blockId, ReplicaView view, boolean open, long now) {
    Pending copies = pending.get(blockId);
    if (copies != null) {
      copies.targets().removeAll(open ? view.holders() : view.current());
      if (copies.targets().isEmpty() || now - copies.deadlineNanos() > 0) {
        pending.remove(blockId);
        copies = null;
      }
    }
    return copies;
  }

  /** The replicas a block counts as having: kept ones (an open block's live holders too) and copies in flight. */
  private int have(Want want, ReplicaView view, Pending copies) {
    return (want.open() ? Math.max(view.kept(), liveHolders(view)) : view.kept())
        + (copies == null ? 0 : copies.targets().size());
  }

  /**
   * Asks each live replica of a closed block that still follows a pipeline (or was left out of one) and holds the
   * block's recorded last entry ({@link BlockReplicas#unended}) to end it, once two scans in a row found it so: its
   * writer's REPLICA_END never came (a writer held dead and recovered, a failure at the close), and until it is
   * ended it refuses every time past its frontier although it holds every entry.
   */
  private void endUnended(long blockId, Set<Unended> unendedNow, Set<Unended> asked) {
    for (BlockReplicas.Unended replica : datanodes.unended(blockId)) {
      Unended unended = new Unended(blockId, replica);
      unendedNow.add(unended);
      if (!unendedBefore.contains(unended)) {
        continue;
      }
      ends.computeIfAbsent(replica.uuid(), uuid -> new ArrayList<>()).add(ReplicaToEndProto.newBuilder()
          .setBlockId(blockId).setLastEntryHlc(replica.lastEntryHlc()).setPipelineEpoch(replica.pipelineEpoch())
          .build());
      asked.add(unended);
      if (!askedBefore.contains(unended)) {
        LOG.info("Block {} of a closed file: its replica on {} still stands in a write pipeline that is over;"
            + " asking it to end", blockId, replica.uuid());
      }
    }
  }

  /**
   * Copies the block to {@code needed} more DataNodes; {@code otherRack}: only to one off its replicas' rack;
   * {@code mayDrop}: stale replicas may be dropped to free a DataNode (a scan's, which knows the block is closed).
   */
  private Outcome schedule(Want want, ReplicaView view, int needed, Map<String, Integer> busy,
      long now, boolean otherRack, boolean mayDrop) {
    String source = null;
    for (String uuid : view.current()) {
      if (busy.getOrDefault(uuid, 0) < maxPendingPerSource
          && (source == null || busy.getOrDefault(uuid, 0) < busy.getOrDefault(source, 0))) {
        source = uuid;
      }
    }
    if (source == null) {
      return Outcome.BUSY;  // no live current replica, or all are busy: a later round
    }
    Set<String> exclude = new HashSet<>(view.holders());
    Pending copies = pending.get(want.blockId());
    if (copies != null) {
      exclude.addAll(copies.targets());
    }
    List<DatanodeIdProto> targets = datanodes.chooseCopyTargets(needed, source, exclude, view.inService());
    if (otherRack && (targets.isEmpty() || datanodes.racksOf(view.inService())
        .contains(datanodes.descriptor(targets.get(0).getDatanodeUuid()).rack()))) {
      return Outcome.NOWHERE;  // no DataNode on another rack is free
    }
    if (mayDrop && targets.size() < needed && !view.stale().isEmpty() && !otherRack && !want.open()) {
      // A stale replica's log is a prefix of the current ones': dropped, its DataNode is free for a whole copy.
      drop(want, view.stale(), "no other DataNode to copy to; dropping its stale replicas on");
    }
    if (targets.isEmpty()) {
      return Outcome.NOWHERE;  // none to copy to: the block stays under-replicated until one joins or a stale one is freed
    }
    BlockTransferProto.Builder transfer = BlockTransferProto.newBuilder().setBlockId(want.blockId())
        .addAllTargets(targets);
    BlockTokenProto token = writeTokens == null ? null : writeTokens.apply(want.blockId());
    if (token != null) {
      transfer.setToken(token);
    }
    transfers.computeIfAbsent(source, uuid -> new ArrayList<>()).add(transfer.build());
    Set<String> targetUuids = copies == null ? new HashSet<>() : copies.targets();
    for (DatanodeIdProto target : targets) {
      targetUuids.add(target.getDatanodeUuid());
    }
    pending.put(want.blockId(), new Pending(copies == null ? source : copies.source(), targetUuids,
        now + pendingTimeoutNanos, want.open()));
    busy.merge(source, 1, Integer::sum);
    copiesScheduled += targets.size();
    LOG.info("Block {} has {} of {} replicas: copying its history from {} to {}", want.blockId(),
        view.kept(), want.replication(), source, targetUuids);
    return Outcome.SCHEDULED;
  }

  /** Live holders in service of an undamaged replica, current or behind. */
  private int liveHolders(ReplicaView view) {
    int count = 0;
    for (String uuid : view.current()) {
      count += datanodes.inService(uuid) ? 1 : 0;
    }
    for (String uuid : view.stale()) {
      count += datanodes.inService(uuid) ? 1 : 0;
    }
    return count;
  }

  /** Whether the block has enough current replicas and stale ones or current ones beyond its target. */
  private static boolean hasExtras(Want want, ReplicaView view) {
    int inService = view.inService().size();
    return inService >= want.replication()
        && (!view.stale().isEmpty() || !view.corrupt().isEmpty() || inService > want.replication());
  }

  /**
   * Drops stale replicas and current ones beyond the target, the last placed first unless that would leave the
   * rest on fewer racks; a decommissioning DataNode's replicas are left to it (read last, never counted).
   */
  private void dropExtras(Want want, ReplicaView view, int racks) {
    List<String> extra = new ArrayList<>(view.corrupt());
    extra.addAll(view.stale());
    List<String> current = view.inService();
    extra.addAll(BlockPlacement.extras(current, datanodes.racksOf(current), current.size() - want.replication()));
    drop(want, extra, "has " + current.size() + " current replicas in service (stale " + view.stale() + ", damaged "
        + view.corrupt() + "): dropping those on");
  }

  private void drop(Want want, List<String> uuids, String why) {
    LOG.info("Block {} of replication {} {} {}", want.blockId(), want.replication(), why, uuids);
    for (String uuid : uuids) {
      datanodes.removeReplica(want.blockId(), uuid);
      drops.computeIfAbsent(uuid, u -> new ArrayList<>()).add(want.blockId());
      replicasDropped++;
    }
  }

  /** The copies {@code uuid} is to send, handed out once (with its heartbeat answer). */
  public synchronized List<BlockTransferProto> takeTransfers(String uuid) {
    List<BlockTransferProto> taken = transfers.remove(uuid);
    return taken == null ? List.of() : taken;
  }

  /** The replicas {@code uuid} is to end the pipelines of, handed out once (with its heartbeat answer). */
  public synchronized List<ReplicaToEndProto> takeEnds(String uuid) {
    List<ReplicaToEndProto> taken = ends.remove(uuid);
    return taken == null ? List.of() : taken;
  }

  /** The replicas {@code uuid} is to drop, handed out once (with its heartbeat answer). */
  public synchronized List<Long> takeDrops(String uuid) {
    List<Long> taken = drops.remove(uuid);
    return taken == null ? List.of() : taken;
  }

  /** Blocks the last scan found with every replica on one rack though the cluster has more. */
  public synchronized long misReplicatedBlocks() {
    return misReplicated;
  }

  public synchronized Counts counts() {
    return new Counts(underReplicated, pending.size(), copiesScheduled, replicasDropped, corruptReplicas,
        filesWithoutGoodReplica);
  }
}
