package io.fffs.namenode.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.rpc.NamenodeClient;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The list of decommissioned DataNodes goes through the log: every NameNode holds it, a new leader goes on with it
 * after the old one stops, and a NameNode restarted from its snapshot has it.
 */
class HaDecommissionTest extends ThreeNameNodesTestBase {
  private static final String NODE = "10.20.30.40:9866";

  @Test
  void theDecommissionListSurvivesAFailoverAndARestartFromASnapshot() throws Exception {
    cluster = new ThreeNameNodes(dir).startAll();
    int leader = cluster.awaitLeader();
    cluster.nameNodes[leader].namesystem().datanodes().decommission(List.of(NODE), false);
    long txid = cluster.nameNodes[leader].namesystem().lastTxid();
    long logged = cluster.nameNodes[leader].ha().commitIndex();  // at or after the change's Raft entry
    for (int i = 0; i < ThreeNameNodes.COUNT; i++) {
      cluster.awaitApplied(i, txid);
      assertThat(cluster.nameNodes[i].namesystem().datanodes().decommissioned()).as("nn" + (i + 1))
          .containsExactly(NODE);
    }

    cluster.stop(leader);
    int next = cluster.awaitLeader();
    assertThat(cluster.nameNodes[next].namesystem().datanodes().decommissioned()).containsExactly(NODE);

    // Past the snapshot threshold, so that a restarted NameNode loads the list from its snapshot's image.
    try (NamenodeClient client = cluster.clusterClient()) {
      for (int i = 0; i < 40; i++) {
        client.mkdirs("/d" + i, 0755, true);
      }
    }
    int follower = (next + 1) % ThreeNameNodes.COUNT == leader ? (next + 2) % ThreeNameNodes.COUNT
        : (next + 1) % ThreeNameNodes.COUNT;
    ThreeNameNodes.await("a snapshot after the change on nn" + (follower + 1), () -> {
      org.apache.ratis.statemachine.SnapshotInfo snapshot =
          cluster.nameNodes[follower].ha().stateMachine().getLatestSnapshot();
      return snapshot != null && snapshot.getIndex() > logged;
    });
    cluster.start(leader);  // a majority stays up while the follower restarts
    cluster.awaitApplied(leader, cluster.nameNodes[next].namesystem().lastTxid());
    cluster.stop(follower);
    cluster.start(follower);
    cluster.awaitApplied(follower, cluster.nameNodes[next].namesystem().lastTxid());
    assertThat(cluster.nameNodes[follower].namesystem().datanodes().decommissioned()).containsExactly(NODE);

    cluster.nameNodes[next].namesystem().datanodes().decommission(List.of(NODE), true);
    cluster.awaitApplied(follower, cluster.nameNodes[next].namesystem().lastTxid());
    assertThat(cluster.nameNodes[next].namesystem().datanodes().decommissioned()).isEmpty();
    assertThat(cluster.nameNodes[follower].namesystem().datanodes().decommissioned()).isEmpty();
  }
}
