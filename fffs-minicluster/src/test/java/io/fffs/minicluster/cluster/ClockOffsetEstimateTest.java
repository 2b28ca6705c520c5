package io.fffs.minicluster.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.time.PhysicalClock;
import io.fffs.datanode.DataNode;
import io.fffs.datanode.nn.ClockOffsetFilter;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.blocks.DatanodeDescriptor;
import java.nio.file.Path;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The clock offset estimate (smallest round trip of the recent NTP-style samples): a DataNode on the NameNode's own
 * clock reports under 1 ms from start-up on, and a skew injected into a DataNode's clock is seen to within 5 ms, by
 * the DataNode and by the NameNode, which calls one beyond the max offset unhealthy.
 */
class ClockOffsetEstimateTest {
  @TempDir
  Path base;

  private static DatanodeDescriptor descriptor(MiniFffsCluster cluster, DataNode dataNode,
      Predicate<DatanodeDescriptor> until) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (true) {
      DatanodeDescriptor descriptor = cluster.getNameNode().namesystem().datanodes().datanodes().stream()
          .filter(d -> d.uuid().equals(dataNode.uuid())).findFirst().orElseThrow();
      if (until.test(descriptor) || System.nanoTime() > deadline) {
        return descriptor;
      }
      dataNode.triggerHeartbeat();
      Thread.sleep(50);
    }
  }

  /**
   * The DataNode's estimate once a sample's round trip bounds its error by {@code error} µs: on a loaded machine
   * the first samples may all be slow, and the filter can only be as good as its fastest one.
   */
  private static ClockOffsetFilter.Estimate estimate(DataNode dataNode, long error) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (true) {
      ClockOffsetFilter.Estimate estimate = dataNode.clockOffset();
      if (estimate.errorMicros() <= error || System.nanoTime() > deadline) {
        return estimate;
      }
      dataNode.triggerHeartbeat();
      Thread.sleep(50);
    }
  }

  @Test
  void aDataNodeOnTheNameNodesClockReportsUnderOneMillisecond() throws Exception {
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).numDataNodes(1).build()) {
      DataNode dataNode = cluster.getDataNode(0);
      ClockOffsetFilter.Estimate estimate = estimate(dataNode, 1_000);
      assertThat(Math.abs(estimate.offsetMicros())).as("%s", estimate).isLessThan(1_000);
      DatanodeDescriptor seen = descriptor(cluster, dataNode,
          d -> d.offsetErrorMicros() >= 0 && Math.abs(d.measuredOffsetMicros()) < 1_000);
      assertThat(Math.abs(seen.measuredOffsetMicros())).as("the NameNode's view").isLessThan(1_000);
      assertThat(seen.clockOffsetMicros()).isZero();
    }
  }

  @Test
  void anInjectedSkewIsSeenWithinFiveMilliseconds() throws Exception {
    long within = 120_000;
    long beyond = -400_000;
    Configuration conf = new Configuration();
    conf.set("fffs.clock.max-offset", "250ms");
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(2)
        .dataNodeClock(0, PhysicalClock.system().offsetBy(within))
        .dataNodeClock(1, PhysicalClock.system().offsetBy(beyond)).build()) {
      assertThat(estimate(cluster.getDataNode(0), 5_000).offsetMicros()).isCloseTo(within,
          org.assertj.core.data.Offset.offset(5_000L));
      assertThat(estimate(cluster.getDataNode(1), 5_000).offsetMicros()).isCloseTo(beyond,
          org.assertj.core.data.Offset.offset(5_000L));
      DatanodeDescriptor skewed = descriptor(cluster, cluster.getDataNode(1),
          d -> d.offsetErrorMicros() >= 0 && d.offsetErrorMicros() <= 5_000 && !d.isHealthy());
      assertThat(skewed.measuredOffsetMicros()).isCloseTo(beyond, org.assertj.core.data.Offset.offset(5_000L));
      assertThat(skewed.unhealthyReason()).contains("behind");
      DatanodeDescriptor fine = descriptor(cluster, cluster.getDataNode(0),
          d -> d.offsetErrorMicros() >= 0 && d.offsetErrorMicros() <= 5_000);
      assertThat(fine.isHealthy()).isTrue();
      assertThat(fine.measuredOffsetMicros()).isCloseTo(within, org.assertj.core.data.Offset.offset(5_000L));
    }
  }
}
