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
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.LongConsumer;

/**
 * The DataNodes and where blocks are: registration, heartbeats with the clock-offset check, block reports,
 * liveness, and the choice of a DataNode for a new block. Block locations are learned from reports and from
 * placements; they are soft state, rebuilt after a restart.
 */
public final class DatanodeManager {
  /** Per block, the newest last entry its writers reported (the namespace keeps them); 0: none. */
  private volatile java.util.function.LongUnaryOperator expectedLastEntry = blockId -> 0;
  private final Map<String, DatanodeDescriptor> datanodes = new ConcurrentHashMap<>();
  private final Map<Long, BlockReplicas> blockReplicas = new ConcurrentHashMap<>();
  private final LongSupplier nanoTime;
  private final long deadIntervalNanos;
  private final long maxOffsetMicros;
  private int nextChoice;
  private volatile LongConsumer blockReported = blockId -> { };
  private volatile HostFilter hosts = HostFilter.allowAll();
  private volatile Decommissions decommissions = Decommissions.inMemory();
  private volatile Topology topology = Topology.singleRack();

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
   * register again on its next heartbeat and reports its blocks afresh to this leader. Where the blocks of
   * {@code placementsKept} were placed is kept, as for new blocks: an empty block being written is in no report.
   */
  public void forgetAll(Set<Long> placementsKept) {
    Map<Long, List<String>> kept = new HashMap<>();
    for (long blockId : placementsKept) {
      BlockReplicas replicas = blockReplicas.get(blockId);
      if (replicas != null && !replicas.all().isEmpty()) {
        kept.put(blockId, replicas.all());
      }
    }
    datanodes.clear();
    blockReplicas.clear();
    kept.forEach(this::placed);
  }

  /** Registers (or re-registers) a DataNode; returns its descriptor. */
  public DatanodeDescriptor register(DatanodeIdProto id, long capacityBytes, long clockOffsetMicros) {
    DatanodeDescriptor descriptor = datanodes.computeIfAbsent(id.getDatanodeUuid(), u -> new DatanodeDescriptor(id));
    descriptor.setId(id);
    descriptor.capacityBytes = capacityBytes;
    // A restarted DataNode (same uuid) measures its clock afresh: the old estimate says nothing of the new process.
    descriptor.offsetErrorMicros = -1;
    descriptor.reportedSinceRegistration = false;
    descriptor.rack = topology.rackOf(id.getHost());
    descriptor.hostAddress = addressOf(id.getHost());
    updateClock(descriptor, clockOffsetMicros, null);
    descriptor.lastHeartbeatNanos = nanoTime.getAsLong();
    decommissions.applyTo(descriptor);
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

  /** Records what a DataNode's segment files hold, as it measured them. */
  public void diskUsage(String uuid, long segmentBytes, long liveSegmentBytes, long currentBytes) {
    DatanodeDescriptor descriptor = datanodes.get(uuid);
    if (descriptor != null) {
      descriptor.segmentBytes = segmentBytes;
      descriptor.liveSegmentBytes = liveSegmentBytes;
      descriptor.currentBytes = currentBytes;
    }
  }

  /** Which DataNodes may register (the include and exclude files). */
  public HostFilter hosts() {
    return hosts;
  }

  public void setHosts(HostFilter filter) {
    this.hosts = filter;
  }

  /** How DataNodes map to racks; applies to registrations from now on. */
  public void setTopology(Topology topology) {
    this.topology = topology;
  }

  private static String addressOf(String host) {
    try {
      return java.net.InetAddress.getByName(host).getHostAddress();
    } catch (java.net.UnknownHostException e) {
      return host;
    }
  }

  /** How many racks the live DataNodes in service are on. */
  public int rackCount() {
    java.util.Set<String> racks = new java.util.HashSet<>();
    for (DatanodeDescriptor descriptor : datanodes.values()) {
      if (isLive(descriptor) && descriptor.adminState.inService()) {
        racks.add(descriptor.rack);
      }
    }
    return racks.size();
  }

  /** The racks of the block's current replicas on DataNodes in service, one per replica. */
  public List<String> racksOf(List<String> uuids) {
    List<String> racks = new ArrayList<>(uuids.size());
    for (String uuid : uuids) {
      DatanodeDescriptor descriptor = datanodes.get(uuid);
      if (descriptor != null && descriptor.adminState.inService()) {
        racks.add(descriptor.rack);
      }
    }
    return racks;
  }

  /** Whether the block's current replicas in service share one rack though there are others (as HDFS's fsck says). */
  public boolean misReplicated(long blockId) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    return replicas != null && BlockPlacement.misplaced(racksOf(replicas.current(this::isLive)), rackCount());
  }

  /** Where the list of decommissioned DataNodes is kept (applied to those registered now). */
  public void setDecommissions(Decommissions list) {
    this.decommissions = list;
    datanodes.values().forEach(list::applyTo);
  }

  /**
   * Starts decommissioning the DataNodes at {@code nodes} ({@code host:port} of their data port), or, with
   * {@code recommission}, puts them back in service (their replicas count again; extras are dropped by the
   * replication monitor). Returns the registered DataNodes' addresses among them.
   */
  public List<String> decommission(List<String> nodes, boolean recommission) throws java.io.IOException {
    return decommissions.change(nodes, recommission, datanodes.values());
  }

  /** Every DataNode being or already decommissioned, as listed. */
  public List<String> decommissioned() {
    return decommissions.list();
  }

  /** Whether the DataNode takes new replicas and its replicas count toward replication. */
  public boolean inService(String uuid) {
    DatanodeDescriptor descriptor = datanodes.get(uuid);
    return descriptor != null && descriptor.adminState.inService();
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

  /**
   * Forgets a DataNode's own estimate: its heartbeat carried none, as none of its recent samples was quick enough to
   * judge by (a loaded host or network), so an older one shown would be out of date (from before a clock step).
   */
  public void clockNotMeasured(String uuid) {
    DatanodeDescriptor descriptor = datanodes.get(uuid);
    if (descriptor != null) {
      descriptor.offsetErrorMicros = -1;
      descriptor.measuredOffsetMicros = 0;
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
    blockReport(uuid, blockIds, lengths, lastEntryHlcs, durableHlc, new BlockReplicas.Standing[blockIds.length]);
  }

  /**
   * {@link #blockReport(String, long[], long[], long[], HlcTimestamp)} with where each replica stands in its block's
   * write pipeline ({@link BlockReplicas#standing}; null where the report does not say).
   */
  public void blockReport(String uuid, long[] blockIds, long[] lengths, long[] lastEntryHlcs, HlcTimestamp durableHlc,
      BlockReplicas.Standing[] standings) throws FffsException {
    DatanodeDescriptor descriptor = require(uuid);
    descriptor.durableHlc = durableHlc;
    descriptor.blockCount = blockIds.length;
    blocksReceived(uuid, blockIds, lengths, lastEntryHlcs, standings);
    descriptor.reportedSinceRegistration = true;
  }

  /** {@link #blockReport(String, long[], long[], long[], HlcTimestamp)} without last entries. */
  public void blockReport(String uuid, long[] blockIds, long[] lengths, HlcTimestamp durableHlc)
      throws FffsException {
    blockReport(uuid, blockIds, lengths, new long[blockIds.length], durableHlc);
  }

  /** Adds blocks (ids, current lengths, last entries' HLCs or 0) a DataNode reports between full reports. */
  public void blocksReceived(String uuid, long[] blockIds, long[] lengths, long[] lastEntryHlcs)
      throws FffsException {
    blocksReceived(uuid, blockIds, lengths, lastEntryHlcs, new BlockReplicas.Standing[blockIds.length]);
  }

  /**
   * {@link #blocksReceived(String, long[], long[], long[])} with where each replica stands in its block's write
   * pipeline, applied with its report ({@link BlockReplicas#standing}; null where the report does not say).
   */
  public void blocksReceived(String uuid, long[] blockIds, long[] lengths, long[] lastEntryHlcs,
      BlockReplicas.Standing[] standings) throws FffsException {
    require(uuid);
    for (int i = 0; i < blockIds.length; i++) {
      replicas(blockIds[i]).reported(uuid, lengths[i], lastEntryHlcs[i], standings[i]);
      blockReported.accept(blockIds[i]);
    }
  }

  /** {@link #blocksReceived(String, long[], long[], long[])} without last entries. */
  public void blocksReceived(String uuid, long[] blockIds, long[] lengths) throws FffsException {
    blocksReceived(uuid, blockIds, lengths, new long[blockIds.length]);
  }

  private BlockReplicas replicas(long blockId) {
    return blockReplicas.computeIfAbsent(blockId, id -> new BlockReplicas(() -> expectedLastEntry.applyAsLong(id)));
  }

  /**
   * Where the newest last entry of each block its writers reported comes from (packed HLC, 0: none): a replica
   * reporting an older one is not current even when no replica with the newest has reported.
   */
  public void setExpectedLastEntries(java.util.function.LongUnaryOperator expected) {
    this.expectedLastEntry = expected;
  }

  /**
   * A writer's word that {@code uuids}, its pipeline members, hold {@code blockId} up to the entry at
   * {@code lastEntryHlc} with {@code length} bytes: taken as their reports (theirs may still be on the way), for
   * replicas placed there only.
   */
  public void writerReported(long blockId, List<String> uuids, long length, long lastEntryHlc) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    if (replicas == null) {
      return;
    }
    List<String> placed = replicas.all();
    for (String uuid : uuids) {
      if (placed.contains(uuid)) {
        replicas.reported(uuid, length, lastEntryHlc);
      }
    }
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

  /**
   * The block's newest last entry reported, for a lease recovery to record as the writer's: 0 unless every DataNode
   * holding a replica is live (one that is not may hold entries it never reported).
   */
  public long recoveredLastEntry(long blockId) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    return replicas == null ? 0 : replicas.newestIfAllLive(this::isLive);
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

  /** {@link #chooseTargets(int, String)} for a writer on no DataNode's host. */
  public List<DatanodeDescriptor> chooseTargets(int n) throws FffsException {
    return chooseTargets(n, null);
  }

  /**
   * Up to {@code n} distinct live, healthy DataNodes in service for a new block, the primary first, or
   * {@code NO_DATANODE} saying why none fits. The primary is one on {@code writerAddress} (the writer's IP address,
   * null: unknown) when there is one, else the next in turn (round robin); the others follow HDFS's rack rules
   * ({@link BlockPlacement}). Fewer are returned when fewer fit: followers must have a clock within the max offset
   * of the primary's, since a follower refuses a stamp further ahead of its own clock.
   */
  public synchronized List<DatanodeDescriptor> chooseTargets(int n, String writerAddress) throws FffsException {
    return BlockPlacement.forNewBlock(datanodes.values(), this::isLive, n, writerAddress, () -> nextChoice++,
        maxOffsetMicros);
  }

  /** Records that a new block was placed on {@code uuids}, the primary first. */
  public void placed(long blockId, List<String> uuids) {
    replicas(blockId).placed(uuids);
  }

  /** Records that {@code uuid} was added to a block's write pipeline (a replacement; never taken for its primary). */
  public void addedToPipeline(long blockId, String uuid) {
    replicas(blockId).placed(List.of(uuid), false);
  }

  /** Records that a new block was placed on {@code uuid} alone. */
  public void placed(long blockId, String uuid) {
    placed(blockId, List.of(uuid));
  }

  /** Where a block can be read: its current replicas in pipeline order; empty when unknown or all dead. */
  public List<DatanodeIdProto> locations(long blockId) {
    return locations(blockId, true);
  }

  /**
   * The block's current replicas. {@code pipelineOrder} puts first those that may know the newest entries (the
   * block is being written): the DataNodes' standings in the pipeline decide, as their reports said when a replica
   * was opened in a pipeline or its pipeline ended, and after a restart as their full reports said
   * ({@link BlockReplicas#byStanding}: the primary of the newest pipeline first, a replica left out last); replicas
   * that stand alike keep the placement order, or after a restart the order their reports came in. Otherwise the
   * list is rotated by the block id to spread reads, in read order ({@link #readOrder}).
   */
  public List<DatanodeIdProto> locations(long blockId, boolean pipelineOrder) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    if (replicas == null) {
      return List.of();
    }
    List<String> current = replicas.current(this::isLive);
    List<String> ordered = new ArrayList<>(current.size());
    int shift = pipelineOrder || current.isEmpty() ? 0 : (int) Math.floorMod(blockId, (long) current.size());
    for (int i = 0; i < current.size(); i++) {
      ordered.add(current.get((i + shift) % current.size()));
    }
    List<DatanodeIdProto> ids = new ArrayList<>(current.size());
    for (String uuid : pipelineOrder ? replicas.byStanding(ordered) : readOrder(ordered, replicas)) {
      DatanodeDescriptor descriptor = datanodes.get(uuid);
      if (descriptor != null) {
        ids.add(descriptor.id());
      }
    }
    return ids;
  }

  /**
   * Replicas on healthy DataNodes in service first, then decommissioning ones (read last, as HDFS does), then
   * unhealthy ones ({@link BlockPlacement#readRank}), and last those reported left out of a pipeline (they may miss
   * entries), each group in order.
   */
  private List<String> readOrder(List<String> uuids, BlockReplicas replicas) {
    List<String> sorted = new ArrayList<>(uuids);
    sorted.sort(Comparator.<String>comparingInt(uuid -> replicas.leftOut(uuid) ? 1 : 0).thenComparingInt(uuid -> {
      DatanodeDescriptor descriptor = datanodes.get(uuid);
      return descriptor == null ? 3 : BlockPlacement.readRank(descriptor);
    }));
    return sorted;
  }

  /**
   * Every live DataNode holding an undamaged replica of the block, in placement order, current or not: those a cut
   * must reach (a replica not yet reported, or whose last report is older than its log, may hold the same entries).
   */
  public List<DatanodeIdProto> liveHolders(long blockId) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    List<DatanodeIdProto> ids = new ArrayList<>();
    if (replicas != null) {
      List<String> corrupt = replicas.corrupt();
      for (String uuid : replicas.all()) {
        DatanodeDescriptor descriptor = datanodes.get(uuid);
        if (descriptor != null && isLive(descriptor) && !corrupt.contains(uuid)) {
          ids.add(descriptor.id());
        }
      }
    }
    return ids;
  }

  /**
   * {@code locations} in the order a reader at {@code readerAddress} should try them, as HDFS sorts by network
   * distance: healthy DataNodes in service, then decommissioning ones, then unhealthy ones, and within each a
   * DataNode on the reader's host,
   * then those on its rack, then the rest, each group in the order given. Unknown reader (null): unchanged.
   */
  public List<DatanodeIdProto> nearestFirst(List<DatanodeIdProto> locations, String readerAddress) {
    if (readerAddress == null || locations.size() < 2) {
      return locations;
    }
    return BlockPlacement.nearestFirst(locations, datanodes::get, readerAddress, topology.rackOf(readerAddress));
  }

  /**
   * Where a writer reopening a file writes the block: its current replicas (pipeline order), then other live
   * holders of undamaged replicas up to {@code replication} in all. The writer asks each for its last entry and
   * leaves out those that are behind, so a replica whose report is only late still takes the writes.
   */
  public List<DatanodeIdProto> writerLocations(long blockId, int replication) {
    List<DatanodeIdProto> ids = new ArrayList<>(locations(blockId, true));
    for (DatanodeIdProto holder : liveHolders(blockId)) {
      if (ids.size() < replication
          && ids.stream().noneMatch(id -> id.getDatanodeUuid().equals(holder.getDatanodeUuid()))) {
        ids.add(holder);
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
   * in placement order (copy sources); {@code kept} — how many replicas with the newest last entry are on DataNodes
   * in service heard from within {@code lostAfterNanos} (a silent one is not given up for lost before then);
   * {@code stale} — live replicas with an older last entry; {@code holders} — every DataNode with any replica;
   * {@code retiring} — the current replicas on decommissioning or decommissioned DataNodes (sources, never counted).
   */
  public ReplicaView replicaView(long blockId, long lostAfterNanos) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    if (replicas == null) {
      return new ReplicaView(List.of(), 0, List.of(), List.of(), List.of(), List.of());
    }
    List<String> current = replicas.current(this::isLive);
    int kept = 0;
    for (String uuid : replicas.newest()) {
      DatanodeDescriptor descriptor = datanodes.get(uuid);
      if (descriptor != null && descriptor.adminState.inService()
          && nanoTime.getAsLong() - descriptor.lastHeartbeatNanos <= lostAfterNanos) {
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
    List<String> retiring = new ArrayList<>();
    for (String uuid : current) {
      if (!inService(uuid)) {
        retiring.add(uuid);
      }
    }
    return new ReplicaView(current, kept, stale, holders, corrupt, retiring);
  }

  /** The live replicas of {@code blockId} in a pipeline at its recorded last entry ({@link BlockReplicas#unended}). */
  public List<BlockReplicas.Unended> unended(long blockId) {
    BlockReplicas replicas = blockReplicas.get(blockId);
    return replicas == null ? List.of() : replicas.unended(this::isLive);
  }

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
          .setLength(replica.length()).setAdminState(descriptor.adminState.toProto()).setRack(descriptor.rack)
          .build());
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

  /** {@link #chooseCopyTargets(int, String, java.util.Set, List)} with no rack to spread from. */
  public List<DatanodeIdProto> chooseCopyTargets(int n, String sourceUuid, java.util.Set<String> exclude) {
    return chooseCopyTargets(n, sourceUuid, exclude, List.of());
  }

  /**
   * Up to {@code n} live, healthy DataNodes in service other than {@code exclude} to copy a block from
   * {@code sourceUuid} to, the least loaded (fewest blocks) first, but one on another rack first while the block's
   * current replicas ({@code replicaUuids}) share one; only those whose clock is within the max offset of the
   * source's.
   */
  public List<DatanodeIdProto> chooseCopyTargets(int n, String sourceUuid, java.util.Set<String> exclude,
      List<String> replicaUuids) {
    List<DatanodeIdProto> chosen = new ArrayList<>();
    for (DatanodeDescriptor descriptor : BlockPlacement.forCopy(datanodes.values(), this::isLive,
        sourceUuid == null ? null : datanodes.get(sourceUuid), exclude, racksOf(replicaUuids), n, maxOffsetMicros)) {
      chosen.add(descriptor.id());
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

  /** Live, healthy DataNodes in service: the most replicas a block can have on DataNodes that stay. */
  public int inServiceLiveCount() {
    int count = 0;
    for (DatanodeDescriptor descriptor : datanodes.values()) {
      if (isLive(descriptor) && descriptor.isHealthy() && descriptor.adminState.inService()) {
        count++;
      }
    }
    return count;
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
