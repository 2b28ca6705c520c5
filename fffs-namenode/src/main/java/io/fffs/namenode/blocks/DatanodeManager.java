package io.fffs.namenode.blocks;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckReplicaProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckReplicaStateProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeText;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.LongConsumer;

/**
 * The DataNodes and where blocks are: registration, heartbeats with the clock-offset check, block reports,
 * liveness, and the choice of a DataNode for a new block. Block locations are learned from reports and from
 * placements; they are soft state, rebuilt after a restart.
 */
public final class DatanodeManager {
  private final Map<String, DatanodeDescriptor> datanodes = new ConcurrentHashMap<>();
  private final Map<Long, BlockReplicas> blockReplicas = new ConcurrentHashMap<>();
  private final LongSupplier nanoTime;
  private final long deadIntervalNanos;
  private final long maxOffsetMicros;
  private int nextChoice;
  private volatile LongConsumer blockReported = blockId -> { };
  private volatile HostFilter hosts = HostFilter.allowAll();

  public DatanodeManager(LongSupplier nanoTime, long deadIntervalNanos, long maxOffsetMicros) {
    this.nanoTime = nanoTime;
    this.deadIntervalNanos = deadIntervalNanos;
    this.maxOffsetMicros = maxOffsetMicros;
  }

  /** Called for each block id a DataNode reports (safe mode counts them). */
  public void onBlockReported(LongConsumer listener) {
    this.blockReported = listener;
  }

  /**
   * Forgets every DataNode and replica (a NameNode taking the lead of an HA cluster): each DataNode is asked to
   * register again on its next heartbeat and reports its blocks afresh to this leader.
   */
  public void forgetAll() {
    datanodes.clear();
    blockReplicas.clear();
  }

  /** Registers (or re-registers) a DataNode; returns its descriptor. */
  public DatanodeDescriptor register(DatanodeIdProto id, long capacityBytes, long clockOffsetMicros) {
    DatanodeDescriptor descriptor = datanodes.computeIfAbsent(id.getDatanodeUuid(), u -> new DatanodeDescriptor(id));
    descriptor.setId(id);
    descriptor.capacityBytes = capacityBytes;
    // A restarted DataNode (same uuid) measures its clock afresh: the old estimate says nothing of the new process.
    descriptor.offsetErrorMicros = -1;
    updateClock(descriptor, clockOffsetMicros, null);
    descriptor.lastHeartbeatNanos = nanoTime.getAsLong();
    return descriptor;
  }

  /**
   * Records a heartbeat; returns the descriptor, or null if the DataNode is unknown (it must register again).
   *
   * @param skewError set when the DataNode's HLC was refused as too far ahead; it makes the DataNode unhealthy
   */
  public DatanodeDescriptor heartbeat(String uuid, long clockOffsetMicros, long capacityBytes, long memoryUsedBytes,
      long blockCount, HlcTimestamp durableHlc, String skewError) {
    DatanodeDescriptor descriptor = datanodes.get(uuid);
    if (descriptor == null) {
      return null;
    }
    descriptor.capacityBytes = capacityBytes;
    descriptor.memoryUsedBytes = memoryUsedBytes;
    descriptor.blockCount = blockCount;
    descriptor.durableHlc = durableHlc;
    descriptor.lastHeartbeatNanos = nanoTime.getAsLong();
    updateClock(descriptor, clockOffsetMicros, skewError);
    return descriptor;
  }

  /** Records what a DataNode's scrubber reported with its heartbeat. */
  public void scrubbed(String uuid, long passes, long bytesVerified, long corruptions, String lastCorruption) {
    DatanodeDescriptor descriptor = datanodes.get(uuid);
    if (descriptor != null) {
      descriptor.scrubPasses = passes;
      descriptor.scrubBytesVerified = bytesVerified;
      descriptor.scrubCorruptions = corruptions;
      descriptor.scrubLastCorruption = lastCorruption;
    }
  }

  /** Which DataNodes may register (the include and exclude files). */
  public HostFilter hosts() {
    return hosts;
  }

  public void setHosts(HostFilter filter) {
    this.hosts = filter;
  }

  /**
   * Drops every DataNode the host files no longer admit (its next heartbeat is told to register again, which is
   * then refused); returns their addresses.
   */
  public List<String> dropNotAdmitted() {
    List<String> dropped = new ArrayList<>();
    for (DatanodeDescriptor descriptor : datanodes.values()) {
      if (!hosts.admits(descriptor.id()) && datanodes.remove(descriptor.uuid(), descriptor)) {
        dropped.add(descriptor.address());
      }
    }
    return dropped;
  }

  /** Records a DataNode's own estimate of its clock offset and the round trip that bounds its error. */
  public void clockMeasured(String uuid, long offsetMicros, long roundTripMicros) {
    DatanodeDescriptor descriptor = datanodes.get(uuid);
    if (descriptor != null) {
      descriptor.measuredOffsetMicros = offsetMicros;
      descriptor.offsetErrorMicros = roundTripMicros / 2;
    }
  }

  /** Damaged records found by all DataNodes' scrubbers. */
  public long scrubCorruptions() {
    long total = 0;
    for (DatanodeDescriptor descriptor : datanodes.values()) {
      total += descriptor.scrubCorruptions;
    }
    return total;
  }

  private void updateClock(DatanodeDescriptor descriptor, long offsetMicros, String skewError) {
    descriptor.clockOffsetMicros = offsetMicros;
    if (skewError != null) {
      descriptor.unhealthyReason = skewError;
    } else if (Math.abs(offsetMicros) > maxOffsetMicros) {
      descriptor.unhealthyReason = "clock is " + TimeText.duration(Math.abs(offsetMicros))
          + (offsetMicros > 0 ? " ahead of" : " behind") + " the NameNode's, more than the max offset "
          + TimeText.duration(maxOffsetMicros) + "; fix NTP/PTP on " + descriptor.id().getHost()
          + " — it takes no writes until its clock is back in range";
    } else {
      descriptor.unhealthyReason = null;
    }
  }

  /**
   * Records a DataNode's full report: block ids, their current lengths and the HLCs of their last entries (0:
   * unknown, from a DataNode that does not send them).
   */
  public void blockReport(String uuid, long[] blockIds, long[] lengths, long[] lastEntryHlcs, HlcTimestamp durableHlc)
      throws FffsException {
    DatanodeDescriptor descriptor = require(uuid);
    descriptor.durableHlc = durableHlc;
    descriptor.blockCount = blockIds.length;
    blocksReceived(uuid, blockIds, lengths, lastEntryHlcs);
  }

  /** {@link #blockReport(String, long[], long[], long[], HlcTimestamp)} without last entries. */
  public void blockReport(String uuid, long[] blockIds, long[] lengths, HlcTimestamp durableHlc)
      throws FffsException {
    blockReport(uuid, blockIds, lengths, new long[blockIds.length], durableHlc);
  }

  /** Adds blocks (ids, current lengths, last entries' HLCs or 0) a DataNode reports between full reports. */
  public void blocksReceived(String uuid, long[] blockIds, long[] lengths, long[] lastEntryHlcs)
      throws FffsException {
    require(uuid);
    for (int i = 0; i < blockIds.length; i++) {
      replicas(blockIds[i]).reported(uuid, lengths[i], lastEntryHlcs[i]);
      blockReported.accept(blockIds[i]);
    }
  }

  /** {@link #blocksReceived(String, long[], long[], long[])} without last entries. */
  public void blocksReceived(String uuid, long[] blockIds, long[] lengths) throws FffsException {
    blocksReceived(uuid, blockIds, lengths, new long[blockIds.length]);
  }

  private BlockReplicas replicas(long blockId) {
    return blockReplicas.computeIfAbsent(blockId, id -> new BlockReplicas());
  }

  /**
   * Forgets the lengths last reported for {@code blockId}: the file was cut in that block, so the reports are stale
   * (a lease recovery that trusted them would bring the cut bytes back) until the DataNodes report again.
   */
  public void forgetReportedLength(long blockId) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    if (replicas != null) {
      replicas.forgetLengths();
    }
  }

  /** The block's length as its newest replica last reported it, or -1 if none did. */
  public long reportedLength(long blockId) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    return replicas == null ? -1 : replicas.newestLength();
  }

  private DatanodeDescriptor require(String uuid) throws FffsException {
    DatanodeDescriptor descriptor = datanodes.get(uuid);
    if (descriptor == null) {
      throw new FffsException(ErrorCode.NOT_FOUND, "DataNode " + uuid + " is not registered; register first");
    }
    return descriptor;
  }

  public boolean isLive(DatanodeDescriptor descriptor) {
    return nanoTime.getAsLong() - descriptor.lastHeartbeatNanos <= deadIntervalNanos;
  }

  /** A live, healthy DataNode for a new block (round robin), or {@code NO_DATANODE} saying why none fits. */
  public DatanodeDescriptor chooseTarget() throws FffsException {
    return chooseTargets(1).get(0);
  }

  /**
   * Up to {@code n} distinct live, healthy DataNodes for a new block, the primary first (round robin), or
   * {@code NO_DATANODE} saying why none fits. Fewer are returned when fewer fit: followers must have a clock
   * within the max offset of the primary's, since a follower refuses a stamp further ahead of its own clock.
   */
  public synchronized List<DatanodeDescriptor> chooseTargets(int n) throws FffsException {
    List<DatanodeDescriptor> candidates = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    for (DatanodeDescriptor descriptor : datanodes.values()) {
      if (!isLive(descriptor)) {
        reasons.add(descriptor.address() + " is dead (no heartbeat)");
      } else if (!descriptor.isHealthy()) {
        reasons.add(descriptor.address() + ": " + descriptor.unhealthyReason());
      } else {
        candidates.add(descriptor);
      }
    }
    if (candidates.isEmpty()) {
      throw new FffsException(ErrorCode.NO_DATANODE, "no live, healthy DataNode can take a new block"
          + (reasons.isEmpty() ? " (none has registered)" : ": " + String.join("; ", reasons)));
    }
    candidates.sort((a, b) -> a.uuid().compareTo(b.uuid()));
    int first = Math.floorMod(nextChoice++, candidates.size());
    DatanodeDescriptor primary = candidates.get(first);
    List<DatanodeDescriptor> chosen = new ArrayList<>(n);
    chosen.add(primary);
    for (int i = 1; i < candidates.size() && chosen.size() < n; i++) {
      DatanodeDescriptor next = candidates.get((first + i) % candidates.size());
      if (Math.abs(next.clockOffsetMicros() - primary.clockOffsetMicros()) <= maxOffsetMicros) {
        chosen.add(next);
      }
    }
    return chosen;
  }

  /** Records that a new block was placed on {@code uuids}, the primary first. */
  public void placed(long blockId, List<String> uuids) {
    replicas(blockId).placed(uuids);
  }

  /** Records that a new block was placed on {@code uuid} alone. */
  public void placed(long blockId, String uuid) {
    placed(blockId, List.of(uuid));
  }

  /** Where a block can be read: its current replicas, in placement order; empty when unknown or all dead. */
  public List<DatanodeIdProto> locations(long blockId) {
    return locations(blockId, true);
  }

  /**
   * The block's current replicas. {@code pipelineOrder} keeps placement order, the primary first (the block is
   * being written, and the primary knows its newest entries); otherwise the list is rotated by the block id to
   * spread reads.
   */
  public List<DatanodeIdProto> locations(long blockId, boolean pipelineOrder) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    if (replicas == null) {
      return List.of();
    }
    List<String> current = replicas.current(this::isLive);
    List<DatanodeIdProto> ids = new ArrayList<>(current.size());
    int shift = pipelineOrder || current.isEmpty() ? 0 : (int) Math.floorMod(blockId, (long) current.size());
    for (int i = 0; i < current.size(); i++) {
      DatanodeDescriptor descriptor = datanodes.get(current.get((i + shift) % current.size()));
      if (descriptor != null) {
        ids.add(descriptor.id());
      }
    }
    return ids;
  }

  /** How many current replicas the block has. */
  public int currentReplicas(long blockId) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    return replicas == null ? 0 : replicas.current(this::isLive).size();
  }

  /** How many live replicas of the block are stale (their last entry is older than another replica's). */
  public int staleReplicas(long blockId) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    return replicas == null ? 0 : replicas.staleCount(this::isLive);
  }

  /**
   * Where a block's replicas are, for re-replication: {@code current} — live replicas with the newest last entry,
   * in placement order (copy sources); {@code kept} — replicas with the newest last entry whose DataNode has been
   * heard from within {@code lostAfterNanos} (a silent one is not given up for lost before then); {@code stale} —
   * live replicas with an older last entry; {@code holders} — every DataNode with any replica.
   */
  public ReplicaView replicaView(long blockId, long lostAfterNanos) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    if (replicas == null) {
      return new ReplicaView(List.of(), 0, List.of(), List.of(), List.of());
    }
    List<String> current = replicas.current(this::isLive);
    int kept = 0;
    for (String uuid : replicas.newest()) {
      DatanodeDescriptor descriptor = datanodes.get(uuid);
      if (descriptor != null && nanoTime.getAsLong() - descriptor.lastHeartbeatNanos <= lostAfterNanos) {
        kept++;
      }
    }
    List<String> holders = replicas.all();
    List<String> corrupt = replicas.corrupt();
    List<String> stale = new ArrayList<>();
    for (String uuid : holders) {
      if (isLive(uuid) && !current.contains(uuid) && !corrupt.contains(uuid)) {
        stale.add(uuid);
      }
    }
    return new ReplicaView(current, kept, stale, holders, corrupt);
  }

  /** What {@link #replicaView} finds; {@code corrupt}: replicas reported damaged. */
  public record ReplicaView(List<String> current, int kept, List<String> stale, List<String> holders,
      List<String> corrupt) {}

  /**
   * Marks the replica of {@code blockId} on {@code uuid} damaged (its DataNode quarantined it, or a reader found a
   * checksum mismatch there): it is no longer listed, and the replication monitor copies the block from a good
   * replica and then has this one dropped.
   */
  public void markCorrupt(String uuid, long blockId) {
    replicas(blockId).markCorrupt(uuid);
  }

  /** Each replica of the block with its state now, for fsck: damaged, dead, current or stale. */
  public List<FsckReplicaProto> fsckReplicas(long blockId) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    if (replicas == null) {
      return List.of();
    }
    List<String> current = replicas.current(this::isLive);
    List<FsckReplicaProto> all = new ArrayList<>();
    for (BlockReplicas.Reported replica : replicas.reported()) {
      DatanodeDescriptor descriptor = datanodes.get(replica.uuid());
      if (descriptor == null) {
        continue;
      }
      FsckReplicaStateProto state = replica.corrupt()
          ? FsckReplicaStateProto.FSCK_CORRUPT
          : !isLive(descriptor) ? FsckReplicaStateProto.FSCK_DEAD
          : current.contains(replica.uuid())
              ? FsckReplicaStateProto.FSCK_CURRENT
              : FsckReplicaStateProto.FSCK_STALE;
      all.add(FsckReplicaProto.newBuilder()
          .setDatanode(descriptor.id()).setState(state).setLastEntryHlc(replica.lastEntryHlc())
          .setLength(replica.length()).build());
    }
    return all;
  }

  /** {@link #markCorrupt} for a replica the NameNode knows of; returns whether it was one. */
  public boolean markCorruptIfHeld(String uuid, long blockId) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    if (replicas == null || !replicas.all().contains(uuid)) {
      return false;
    }
    replicas.markCorrupt(uuid);
    return true;
  }

  /** How many replicas of the block are marked damaged. */
  public int corruptReplicas(long blockId) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    return replicas == null ? 0 : replicas.corrupt().size();
  }

  /** Forgets the replica of {@code blockId} on {@code uuid}: it is being dropped there. */
  public void removeReplica(long blockId, String uuid) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    if (replicas != null) {
      replicas.remove(uuid);
    }
  }

  /**
   * Up to {@code n} live, healthy DataNodes other than {@code exclude} to copy a block from {@code sourceUuid} to,
   * the least loaded (fewest blocks) first; only those whose clock is within the max offset of the source's.
   */
  public List<DatanodeIdProto> chooseCopyTargets(int n, String sourceUuid, java.util.Set<String> exclude) {
    DatanodeDescriptor source = sourceUuid == null ? null : datanodes.get(sourceUuid);
    List<DatanodeDescriptor> candidates = new ArrayList<>();
    for (DatanodeDescriptor descriptor : datanodes.values()) {
      if (isLive(descriptor) && descriptor.isHealthy() && !exclude.contains(descriptor.uuid()) && (source == null
          || Math.abs(descriptor.clockOffsetMicros() - source.clockOffsetMicros()) <= maxOffsetMicros)) {
        candidates.add(descriptor);
      }
    }
    candidates.sort(java.util.Comparator.comparingLong(DatanodeDescriptor::blockCount)
        .thenComparing(DatanodeDescriptor::uuid));
    List<DatanodeIdProto> chosen = new ArrayList<>();
    for (int i = 0; i < candidates.size() && chosen.size() < n; i++) {
      chosen.add(candidates.get(i).id());
    }
    return chosen;
  }

  /** The DataNode's address and identity, or null when it is not registered. */
  public DatanodeDescriptor descriptor(String uuid) {
    return datanodes.get(uuid);
  }

  private boolean isLive(String uuid) {
    DatanodeDescriptor descriptor = datanodes.get(uuid);
    return descriptor != null && isLive(descriptor);
  }

  public Collection<DatanodeDescriptor> datanodes() {
    return datanodes.values();
  }

  public int liveCount() {
    int live = 0;
    for (DatanodeDescriptor descriptor : datanodes.values()) {
      if (isLive(descriptor)) {
        live++;
      }
    }
    return live;
  }
}
