package io.fffs.minicluster.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.NameNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing a mini cluster of three NameNodes, after the lead moved, leaves none of Ratis's threads: its Netty event
 * loops are not daemons, and one left behind keeps a test or benchmark JVM alive after its main thread ends.
 */
class HaMiniClusterShutdownTest {
  @TempDir
  Path dir;

  @Test
  void closingTheClusterAfterATransferOfTheLeadLeavesNoRatisThreads() throws Exception {
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    Configuration conf = new Configuration();
    conf.setInt("fffs.replication", 1);
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().conf(conf).numNameNodes(3).numDataNodes(1)
        .baseDir(dir).build()) {
      NameNode leader = cluster.getNameNode();
      String to = leader.ha().id().equals("nn1") ? "nn2" : "nn1";
      leader.ha().transferLeadership(to, 10_000);
      assertThat(cluster.getNameNode().ha().id()).isEqualTo(to);
      assertThat(ratisThreads(before)).as("what the check looks for, while the cluster runs")
          .anyMatch(name -> name.startsWith("NettyRpcService-workerGroup"));
    }
    // One look decides: a look after the loop could catch a thread that starts and ends on its own (Netty's
    // globalEventExecutor, which ends after a quiet second) and fail where the loop would have waited it out.
    long deadline = System.nanoTime() + 30_000_000_000L;
    List<String> left = ratisThreads(before);
    while (!left.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
      left = ratisThreads(before);
    }
    assertThat(left).isEmpty();
  }

  /** Ratis's threads started since {@code before}: its Netty loops, a Raft group's threads, or any non-daemon one. */
  private static List<String> ratisThreads(Set<Thread> before) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && !before.contains(t))
        .filter(t -> t.getName().contains("NettyRpcService") || t.getName().contains("NettyClientRpc")
            || t.getName().contains("group-") || !t.isDaemon())
        .map(t -> t.getName() + (t.isDaemon() ? "" : " (non-daemon)"))
        .collect(Collectors.toList());
  }
}
