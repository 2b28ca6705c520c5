package io.fffs.namenode.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.ha.HaConfigKeys;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Closing an HA NameNode releases every thread its Raft server started (Ratis's Netty event loops are not daemons: one
 * left behind keeps the JVM of a test or a benchmark alive), whether it led, moved the lead, was closed mid-election
 * or failed to start.
 */
class RatisShutdownTest extends ThreeNameNodesTestBase {
  private Set<Thread> before;

  @BeforeEach
  void noteThreads() {
    before = Thread.getAllStackTraces().keySet();
  }

  @Test
  void closingAClusterAfterATransferOfTheLeadLeavesNoRatisThreads() throws Exception {
    cluster = new ThreeNameNodes(dir).startAll();
    int leader = cluster.awaitLeader();
    int to = (leader + 1) % ThreeNameNodes.COUNT;
    cluster.nameNodes[leader].ha().transferLeadership("nn" + (to + 1), 10_000);
    ThreeNameNodes.await("nn" + (to + 1) + " leads", () -> cluster.nameNodes[to].ha().isLeader());
    cluster.close();
    awaitNoRatisThreads();
  }

  @Test
  void closingANameNodeThatIsStillElectingLeavesNoRatisThreads() throws Exception {
    cluster = new ThreeNameNodes(dir);
    cluster.start(0);  // alone of three it never wins: it stays a candidate, calling peers that do not answer
    ThreeNameNodes.await("nn1 asks for votes", () -> !ratisThreads().isEmpty()
        && "CANDIDATE".equals(role(0)));
    cluster.stop(0);
    awaitNoRatisThreads();
  }

  @Test
  void aNameNodeWhoseRaftPortIsTakenFailsToStartAndLeavesNoRatisThreads() throws Exception {
    cluster = new ThreeNameNodes(dir);
    String address = cluster.confs.get(0).get(HaConfigKeys.RATIS_ADDRESS_PREFIX + "mycluster.nn1");
    int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    try (ServerSocket taken = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThatThrownBy(() -> cluster.start(0)).isInstanceOf(IOException.class);
    }
    awaitNoRatisThreads();
  }

  @Test
  void aNameNodeWhoseNamespaceDoesNotLoadFailsToStartAndLeavesNoRatisThreads() throws Exception {
    cluster = new ThreeNameNodes(dir);
    Configuration conf = HaNode.resolve(cluster.confs.get(0), "mycluster");
    assertThatThrownBy(() -> HaNode.start(conf, "mycluster", dir.resolve("nn1"), (image, journal, leadership) -> {
      throw new FffsException(ErrorCode.IO_ERROR, "the namespace image does not load");
    }, () -> { })).hasStackTraceContaining("the namespace image does not load");
    awaitNoRatisThreads();
  }

  private String role(int i) {
    try {
      return cluster.nameNodes[i].ha().describe().split(" ")[0];
    } catch (IOException e) {
      return "";
    }
  }

  /** Threads started since the test began that Ratis runs: its Netty loops, or a non-daemon thread of any kind. */
  private List<Thread> ratisThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && !before.contains(t))
        .filter(t -> t.getName().contains("NettyRpcService") || t.getName().contains("NettyClientRpc")
            || t.getName().contains("group-") || !t.isDaemon())
        .collect(Collectors.toList());
  }

  private void awaitNoRatisThreads() throws InterruptedException {
    try {
      ThreeNameNodes.await("no Ratis thread is left", () -> ratisThreads().isEmpty());
    } catch (AssertionError e) {
      assertThat(ratisThreads()).extracting(t -> t.getName() + (t.isDaemon() ? "" : " (non-daemon)")).isEmpty();
    }
  }
}
