package io.fffs.namenode.blocks;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.time.HlcTimestamp;

/** What the NameNode knows of one DataNode. Mutated by {@link DatanodeManager} under its lock. */
public final class DatanodeDescriptor {
  private volatile DatanodeIdProto id;
  volatile long capacityBytes;
  volatile long memoryUsedBytes;
  volatile long blockCount;
  volatile long lastHeartbeatNanos;
  volatile long clockOffsetMicros;
  volatile String unhealthyReason;
  volatile HlcTimestamp durableHlc = HlcTimestamp.ZERO;
  volatile long scrubPasses;
  volatile long scrubBytesVerified;
  volatile long scrubCorruptions;
  volatile String scrubLastCorruption;
  volatile long measuredOffsetMicros;
  volatile long offsetErrorMicros = -1;
  volatile AdminState adminState = AdminState.NORMAL;
  volatile String rack = org.apache.hadoop.net.NetworkTopology.DEFAULT_RACK;
  /** The advertised host resolved to an address, to find the DataNode on a writer's host. */
  volatile String hostAddress;
  volatile long decommissionBlocksLeft;
  /** Whether a full block report came since it registered (before that, what it holds is not known). */
  volatile boolean reportedSinceRegistration;
  /** Its segment files' size, the records entries point to, the latest states' bytes (0 before a report). */
  volatile long segmentBytes;
  volatile long liveSegmentBytes;
  volatile long currentBytes;

  DatanodeDescriptor(DatanodeIdProto id) {
    this.id = id;
  }

  public DatanodeIdProto id() {
    return id;
  }

  void setId(DatanodeIdProto newId) {
    id = newId;
  }

  public String uuid() {
    return id.getDatanodeUuid();
  }

  public String address() {
    return id.getHost() + ":" + id.getDataPort();
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  public long memoryUsedBytes() {
    return memoryUsedBytes;
  }

  public long blockCount() {
    return blockCount;
  }

  public long lastHeartbeatNanos() {
    return lastHeartbeatNanos;
  }

  /** DataNode physical clock minus the NameNode's, as seen at the last heartbeat (µs). */
  public long clockOffsetMicros() {
    return clockOffsetMicros;
  }

  /** The DataNode's own NTP-style estimate of its offset (µs); meaningful when {@link #offsetErrorMicros} >= 0. */
  public long measuredOffsetMicros() {
    return measuredOffsetMicros;
  }

  /** Half the round trip of that estimate: the most it may be off (µs); -1 before the DataNode sent one. */
  public long offsetErrorMicros() {
    return offsetErrorMicros;
  }

  /** Null when healthy; otherwise why the DataNode must not take writes. */
  public String unhealthyReason() {
    return unhealthyReason;
  }

  public boolean isHealthy() {
    return unhealthyReason == null;
  }

  public HlcTimestamp durableHlc() {
    return durableHlc;
  }

  /** Full passes of the DataNode's segment scrubber. */
  public long scrubPasses() {
    return scrubPasses;
  }

  public long scrubBytesVerified() {
    return scrubBytesVerified;
  }

  /** The DataNode's segment files' size, as it last reported it. */
  public long segmentBytes() {
    return segmentBytes;
  }

  /** The records its block-log entries point to (the rest of the segment files is reclaimable). */
  public long liveSegmentBytes() {
    return liveSegmentBytes;
  }

  /** The bytes of its blocks' latest states (the rest of the live records is history). */
  public long currentBytes() {
    return currentBytes;
  }

  /** Damaged segment records the scrubber found. */
  public long scrubCorruptions() {
    return scrubCorruptions;
  }

  /** File, offset and failure of the last damage found, or null. */
  public String scrubLastCorruption() {
    return scrubLastCorruption;
  }

  public AdminState adminState() {
    return adminState;
  }

  /** While decommissioning: the blocks it holds that do not yet have enough replicas on DataNodes in service. */
  public long decommissionBlocksLeft() {
    return decommissionBlocksLeft;
  }

  /** The rack its host maps to ({@link Topology}). */
  public String rack() {
    return rack;
  }
}
