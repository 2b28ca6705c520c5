package io.fffs.minicluster.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.DataNode;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clock faults in a MiniFffsCluster: DataNodes 1 s ahead and 1 s behind are told they are unhealthy, say why, and
 * take no writes while the healthy one does; a clock that jumps back keeps the HLC monotonic and the node is
 * stopped from writing; and with clocks skewed within the max offset, a block's data never appears at a time
 * before the NameNode knew of the block (causal consistency).
 */
class ClockFaultTest {
  @TempDir
  Path base;

  /** A clock that follows the system clock with an offset a test can change (a jump). */
  private static final class AdjustableClock implements PhysicalClock {
    final AtomicLong offset = new AtomicLong();

    AdjustableClock(long initialOffset) {
      offset.set(initialOffset);
    }

    @Override
    public long currentTimeMicros() {
      return PhysicalClock.system().currentTimeMicros() + offset.get();
    }
  }

  private static Configuration conf() {
    Configuration conf = new Configuration();
    conf.set("fffs.datanode.heartbeat.interval", "100ms");
    conf.setLong("fffs.blocksize", 64 * 1024);
    return conf;
  }

  private static String status(MiniFffsCluster cluster) throws Exception {
    try (InputStream in = new URL(cluster.getHttpURI() + "/status").openStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static void awaitUnhealthy(DataNode dataNode) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (dataNode.healthy() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
  }

  @Test
  void skewedDatanodesAreToldAndWritesGoToTheHealthyOne() throws Exception {
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf()).numDataNodes(3)
        .dataNodeClock(0, new AdjustableClock(1_000_000))
        .dataNodeClock(1, new AdjustableClock(-1_000_000))
        .build()) {
      DataNode ahead = cluster.getDataNode(0);
      DataNode behind = cluster.getDataNode(1);
      awaitUnhealthy(ahead);
      awaitUnhealthy(behind);
      assertThat(ahead.healthy()).isFalse();
      assertThat(ahead.unhealthyReason()).contains("ahead");
      assertThat(behind.healthy()).isFalse();
      assertThat(behind.unhealthyReason()).contains("behind");
      assertThat(cluster.getDataNode(2).healthy()).isTrue();
      assertThat(status(cluster)).contains("\"healthy\":false").contains("\"healthy\":true");

      try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
        for (int i = 0; i < 6; i++) {
          org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/skew/f" + i);
          try (FSDataOutputStream out = fs.create(file, true)) {
            out.write(new byte[100_000]);
          }
          FileStatus status = fs.getFileStatus(file);
          for (var location : fs.getFileBlockLocations(status, 0, status.getLen())) {
            assertThat(location.getNames()).containsExactly(cluster.getDataAddress(2).getHostString() + ":"
                + cluster.getDataAddress(2).getPort());
          }
        }
      }
      // The NameNode's clock was not dragged ahead by the DataNode that is 1 s ahead.
      HlcTimestamp nameNodeTime = cluster.getNameNode().namesystem().clock().now();
      assertThat(nameNodeTime.physicalMicros()).isLessThan(PhysicalClock.system().currentTimeMicros() + 500_000);
    }
  }

  @Test
  void clockThatJumpsBackKeepsTheHlcMonotonicAndStopsWrites() throws Exception {
    AdjustableClock clock = new AdjustableClock(0);
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf()).numDataNodes(1)
        .dataNodeClock(0, clock).build();
        FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      DataNode dataNode = cluster.getDataNode(0);
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/jump/f");
      FSDataOutputStream out = fs.create(file, true);
      out.write(new byte[1000]);
      out.hflush();
      HlcTimestamp beforeJump = dataNode.clock().now();

      clock.offset.set(-5_000_000);
      HlcTimestamp afterJump = dataNode.clock().tick();
      assertThat(afterJump).isGreaterThan(beforeJump);
      awaitUnhealthy(dataNode);
      assertThat(dataNode.healthy()).isFalse();
      assertThat(dataNode.unhealthyReason()).contains("behind");
      assertThatThrownBy(() -> {
        out.write(new byte[1000]);
        out.hflush();
      }).isInstanceOfSatisfying(FffsException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.NODE_UNHEALTHY);
        assertThat(e.getMessage()).contains("behind");
      });
      // What was written before the jump is still readable: reads are served whatever the clocks say.
      try (var in = fs.open(file)) {
        assertThat(in.readAllBytes()).hasSize(1000);
      }

      clock.offset.set(0);
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (!dataNode.healthy() && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(dataNode.healthy()).as("healthy again once the clock is back").isTrue();
    }
  }

  @Test
  void blockDataNeverAppearsBeforeItsMetadata() throws Exception {
    for (long skew : new long[] {-200_000, 200_000}) {
      Path dir = base.resolve("skew" + skew);
      try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(dir).conf(conf()).numDataNodes(1)
          .dataNodeClock(0, new AdjustableClock(skew)).build();
          FreezeFrameFileSystem fs = cluster.getFileSystem()) {
        assertThat(cluster.getDataNode(0).healthy()).isTrue();
        long start = PhysicalClock.system().currentTimeMicros() - 400_000;
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/causal/f");
        try (FSDataOutputStream out = fs.create(file, true)) {
          for (int i = 0; i < 20; i++) {
            out.write(new byte[10_000]);
            out.hflush();
          }
        }
        long end = PhysicalClock.system().currentTimeMicros() + 400_000;
        Thread.sleep(700);
        long blockId = cluster.getDataNode(0).store().blockReport().get(0).blockId();
        int checked = 0;
        for (long t = start; t <= end; t += (end - start) / 200) {
          boolean dataExists = cluster.getDataNode(0).store().info(blockId, TimeSpec.system(t)).exists();
          if (!dataExists) {
            continue;
          }
          checked++;
          var located = cluster.getNameNode().namesystem().queries.getBlockLocations(
              new io.fffs.namenode.permission.Caller("admin", java.util.List.of("supergroup")), "/causal/f",
              TimeSpec.system(t), 0, Long.MAX_VALUE);
          assertThat(located).as("the NameNode knows the file at %d, where its block has data (skew %d µs)", t,
              skew).isNotNull();
          assertThat(located.getBlocksList()).extracting(b -> b.getBlock().getBlockId()).contains(blockId);
        }
        assertThat(checked).as("some sampled times see the block's data").isGreaterThan(10);
      }
    }
  }
}
