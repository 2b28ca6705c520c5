package io.fffs.namenode.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.MkdirsOp;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.NameNode;
import io.fffs.namenode.fs.Namesystem;
import io.fffs.namenode.permission.Caller;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * A NameNode that lost the lead holding an op of its own that the cluster never committed: the log then brings
 * another leader's op under the same txid. It must not take that op for its own and apply the entries after it on
 * top of its phantom (its namespace, and a snapshot of it, would mix two histories); it applies, snapshots and serves
 * nothing more, reloads, and comes back with the leader's namespace.
 */
class HaReloadTest extends ThreeNameNodesTestBase {
  @Test
  void anotherLeadersOpUnderTheTxidOfAnUncommittedOwnOpIsNotAppliedAndTheNameNodeReloads() throws Exception {
    cluster = new ThreeNameNodes(dir).startAll();
    int leader = cluster.awaitLeader();
    int deposed = (leader + 1) % ThreeNameNodes.COUNT;
    try (NamenodeClient client = cluster.clusterClient()) {
      client.mkdirs("/before", 0755, true);
      cluster.awaitApplied(deposed, cluster.nameNodes[leader].namesystem().lastTxid());

      // What a leader does with a change, then loses the lead before the commit: stamp, apply, append. Meanwhile
      // the others go on, and their entries reach this NameNode's log. Holding its monitor keeps its reload's stop
      // waiting, and its write lock keeps its state machine from applying, until those entries are committed here.
      NameNode node = cluster.nameNodes[deposed];
      Namesystem namesystem = node.namesystem();
      NamenodeStateMachine stateMachine = node.ha().stateMachine();
      long txid = namesystem.lastTxid() + 1;
      long leaderCommit;
      synchronized (node) {
        leaderCommit = namesystem.whilePaused(() -> {
          HlcTimestamp stamp = namesystem.clock().tick();
          EditOpProto phantom = EditOpProto.newBuilder().setMkdirs(MkdirsOp.newBuilder().setPath("/phantom")
              .addInodeIds(1_000_000).setPermission(0755).setOwner("nobody").setGroup("nobody")).build();
          assertThat(namesystem.applyReplicated(txid, stamp, phantom)).isTrue();
          try {
            stateMachine.journal().append(txid, stamp, phantom);
            stateMachine.journal().flush();  // refused: this NameNode does not lead
          } catch (io.fffs.common.error.FffsException refused) {
            // refused at once rather than by the reply: the same loss of the lead
          }
          for (int i = 0; i < 5; i++) {
            client.mkdirs("/real" + i, 0755, true);  // the leader's ops, from txid on
          }
          long committed = cluster.nameNodes[leader].ha().commitIndex();
          try {
            ThreeNameNodes.await("the leader's entries are committed on the deposed NameNode", () -> {
              try {
                return node.ha().commitIndex() >= committed;
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
          } catch (InterruptedException e) {
            throw new java.io.InterruptedIOException();
          }
          return committed;
        });
        ThreeNameNodes.await("the deposed NameNode's state machine has seen every committed entry",
            () -> stateMachine.getLastAppliedTermIndex().getIndex() >= leaderCommit);
      }
      assertThat(stateMachine.isStale()).isTrue();
      assertThat(namesystem.lastTxid()).as("ops applied on top of the phantom").isEqualTo(txid);
      assertThat(namesystem.queries.getFileInfo(Caller.current(), "/real4", TimeSpec.latest())).isNull();

      node.close();  // waits for the reload's own stop
      cluster.start(deposed);
      cluster.assertSameNamespaces(cluster.awaitLeader());
      assertThat(cluster.nameNodes[deposed].namesystem().queries.getFileInfo(Caller.current(), "/phantom",
          TimeSpec.latest())).isNull();
    }
  }
}
