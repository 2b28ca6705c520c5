package io.fffs.client.data;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.time.ClockSkewException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the client takes in from the HLCs of DataNode answers. A DataNode whose clock runs more than the max offset
 * ahead is reported unhealthy by the NameNode and gets no new blocks, but it still holds replicas and answers
 * reads; merging its HLC would carry that clock to the NameNode and to every healthy DataNode, which would then
 * refuse this client's changes as {@code CLOCK_SKEW}. So such an HLC is never merged:
 * <ul>
 *   <li>an answer to a <em>read</em> is used (its bytes are checked end to end and need no causal merge, as a
 *       DataNode serves a skewed reader's read) — the HLC is left out, logged, and the DataNode is remembered for
 *       {@link #REMEMBER_MICROS} so readers try its replicas last ({@link #skewed});</li>
 *   <li>an answer to a <em>change</em> (a write's ack, a sync, a cut, joining a pipeline) is refused as
 *       {@code CLOCK_SKEW} naming the DataNode: the change was stamped in the cluster's future, where reads as of now
 *       would not see it, so the writer must treat that replica as failed.</li>
 * </ul>
 * Thread-safe.
 */
public final class DataNodeClocks {
  /** About ten NameNode heartbeats: long enough to steer reads away, short enough to try a repaired node again. */
  static final long REMEMBER_MICROS = 30_000_000L;
  private static final Logger LOG = LoggerFactory.getLogger(DataNodeClocks.class);

  private final HybridLogicalClock clock;
  /** DataNode UUID → the local physical time of its last answer beyond the max offset. */
  private final ConcurrentHashMap<String, Long> skewedAt = new ConcurrentHashMap<>();

  public DataNodeClocks(HybridLogicalClock clock) {
    this.clock = clock;
  }

  /** The client's clock, to send on requests. */
  public HybridLogicalClock clock() {
    return clock;
  }

  /**
   * Takes in the HLC of {@code datanode}'s answer to a read: merged when within the max offset; otherwise left out
   * and reported (a warning the first time in a row).
   *
   * @return whether it was merged
   */
  public boolean observeRead(DatanodeIdProto datanode, HlcTimestamp hlc) {
    if (clock.mergeIfWithinOffset(hlc)) {
      forgive(datanode);
      return true;
    }
    long now = clock.physicalClock().currentTimeMicros();
    if (skewedAt.put(datanode.getDatanodeUuid(), now) == null) {
      LOG.warn("DataNode {} answered a read with clock {}, {} µs ahead of this client's clock, beyond the max offset"
          + " of {} µs: its bytes are used, its clock is not taken in, and its replicas are read last",
          ReplicaPipeline.address(datanode), hlc, hlc.physicalMicros() - now, clock.maxOffsetMicros());
    }
    return false;
  }

  /**
   * Takes in the HLC of {@code datanode}'s answer to a change: merged when within the max offset, else refused.
   *
   * @throws FffsException {@code CLOCK_SKEW} naming the DataNode; the client's clock is then unchanged
   */
  public void observeChange(DatanodeIdProto datanode, HlcTimestamp hlc) throws FffsException {
    try {
      clock.checkSkew(hlc);
    } catch (ClockSkewException e) {
      skewedAt.put(datanode.getDatanodeUuid(), e.localMicros());
      throw new FffsException(ErrorCode.CLOCK_SKEW, "DataNode " + ReplicaPipeline.address(datanode) + ": "
          + e.getMessage(), e);
    }
    clock.observe(hlc);
    forgive(datanode);
  }

  /** Whether {@code datanode} answered with a clock beyond the max offset within the last {@link #REMEMBER_MICROS}. */
  public boolean skewed(DatanodeIdProto datanode) {
    Long at = skewedAt.get(datanode.getDatanodeUuid());
    return at != null && clock.physicalClock().currentTimeMicros() - at < REMEMBER_MICROS;
  }

  private void forgive(DatanodeIdProto datanode) {
    if (!skewedAt.isEmpty()) {
      skewedAt.remove(datanode.getDatanodeUuid());
    }
  }
}
