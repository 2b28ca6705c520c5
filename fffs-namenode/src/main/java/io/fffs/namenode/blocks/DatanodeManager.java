package io.fffs.namenode.blocks;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
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
  private final Map<Long, String> blockLocations = new ConcurrentHashMap<>();
  /** Each block's length as its DataNode last reported it (what lease recovery closes a file at). */
  private final Map<Long, Long> reportedLengths = new ConcurrentHashMap<>();
  private final LongSupplier nanoTime;
  private final long deadIntervalNanos;
  private final long maxOffsetMicros;
  private int nextChoice;
  private volatile LongConsumer blockReported = blockId -> { };

  public DatanodeManager(LongSupplier nanoTime, long deadIntervalNanos, long maxOffsetMicros) {
    this.nanoTime = nanoTime;
    this.deadIntervalNanos = deadIntervalNanos;
    this.maxOffsetMicros = maxOffsetMicros;
  }

  /** Called for each block id a DataNode reports (safe mode counts them). */
  public void onBlockReported(LongConsumer listener) {
    this.blockReported = listener;
  }

  /** Registers (or re-registers) a DataNode; returns its descriptor. */
  public DatanodeDescriptor register(DatanodeIdProto id, long capacityBytes, long clockOffsetMicros) {
    DatanodeDescriptor descriptor = datanodes.computeIfAbsent(id.getDatanodeUuid(), u -> new DatanodeDescriptor(id));
    descriptor.setId(id);
    descriptor.capacityBytes = capacityBytes;
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

  /** Replaces what is known of a DataNode's blocks with its full report (ids and current lengths). */
  public void blockReport(String uuid, long[] blockIds, long[] lengths, HlcTimestamp durableHlc)
      throws FffsException {
    DatanodeDescriptor descriptor = require(uuid);
    descriptor.durableHlc = durableHlc;
    descriptor.blockCount = blockIds.length;
    blocksReceived(uuid, blockIds, lengths);
  }

  /** Adds blocks (ids and current lengths) a DataNode reports between full reports. */
  public void blocksReceived(String uuid, long[] blockIds, long[] lengths) throws FffsException {
    require(uuid);
    for (int i = 0; i < blockIds.length; i++) {
      blockLocations.put(blockIds[i], uuid);
      reportedLengths.put(blockIds[i], lengths[i]);
      blockReported.accept(blockIds[i]);
    }
  }

  /**
   * Forgets the length last reported for {@code blockId}: the file was cut in that block, so the report is stale
   * (a lease recovery that trusted it would bring the cut bytes back) until the DataNode reports again.
   */
  public void forgetReportedLength(long blockId) {
    reportedLengths.remove(blockId);
  }

  /** The block's length as its DataNode last reported it, or -1 if it never did. */
  public long reportedLength(long blockId) {
    return reportedLengths.getOrDefault(blockId, -1L);
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
  public synchronized DatanodeDescriptor chooseTarget() throws FffsException {
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
    DatanodeDescriptor chosen = candidates.get(Math.floorMod(nextChoice++, candidates.size()));
    return chosen;
  }

  /** Records that a new block was placed on {@code uuid}. */
  public void placed(long blockId, String uuid) {
    blockLocations.put(blockId, uuid);
  }

  /** Where a block can be read: its DataNode when that is live; empty when unknown or dead. */
  public List<DatanodeIdProto> locations(long blockId) {
    String uuid = blockLocations.get(blockId);
    DatanodeDescriptor descriptor = uuid == null ? null : datanodes.get(uuid);
    return descriptor == null || !isLive(descriptor) ? List.of() : List.of(descriptor.id());
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
