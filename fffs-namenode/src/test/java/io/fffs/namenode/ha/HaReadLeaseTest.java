package io.fffs.namenode.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.GetListingResponseProto;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * A leader that loses its majority (both followers stopped): once its read lease ran out it refuses the latest
 * state with {@code NOT_LEADER}, while the past before its committed frontier is answered as before; once Raft steps
 * it down it no longer says it leads.
 */
class HaReadLeaseTest extends ThreeNameNodesTestBase {
  @Test
  void aLeaderWithoutItsMajorityRefusesTheLatestStateAndStillAnswersThePast() throws Exception {
    cluster = new ThreeNameNodes(dir).startAll();
    int leader = cluster.awaitLeader();
    try (NamenodeClient client = cluster.client(leader)) {
      client.mkdirs("/a", 0755, true);
      client.create("/a/f", 0644, "writer", true, true, 1, 1 << 20, null);
      client.complete("/a/f", client.getFileInfo("/a/f", TimeSpec.latest()).getInodeId(), "writer", null);
      TimeSpec past = TimeSpec.system(client.currentTime().physicalMicros());
      Thread.sleep(2);
      client.mkdirs("/b", 0755, true);  // committed: the leader's frontier passes the past time above
      GetListingResponseProto pastRoot = listing(client, "/", past);
      assertThat(pastRoot.getEntriesCount()).isEqualTo(1);
      assertThat(client.getFileInfo("/b", TimeSpec.latest())).isNotNull();

      ReadLease lease = cluster.nameNodes[leader].ha().stateMachine().readLease();
      ThreeNameNodes.await("the followers' answers hold the leader's lease", lease::holds);

      for (int i = 0; i < ThreeNameNodes.COUNT; i++) {
        if (i != leader) {
          cluster.stop(i);
        }
      }
      ThreeNameNodes.await("the leader refuses the latest state", () -> refused(client));
      assertNotLeader(() -> client.getListing("/", TimeSpec.latest(), "", 100));
      assertNotLeader(() -> client.getBlockLocations("/a/f", TimeSpec.latest(), 0, 1));
      // At or past its frontier (the client's clock has seen the leader's last stamp): the latest state again.
      assertNotLeader(() -> client.getFileInfo("/a", TimeSpec.system(cluster.clientClock.now().physicalMicros())));
      assertThat(listing(client, "/", past)).as("the past below its committed frontier").isEqualTo(pastRoot);
      assertThat(client.getFileInfo("/a/f", past)).isNotNull();

      HaNode ha = cluster.nameNodes[leader].ha();
      ThreeNameNodes.await("Raft steps the leader down", () -> !ha.isLeader());
      assertThat(ha.leaderId()).isNotEqualTo("nn" + (leader + 1));
      assertNotLeader(() -> client.getFileInfo("/b", TimeSpec.latest()));
      assertThat(listing(client, "/", past)).as("the past, as a follower").isEqualTo(pastRoot);
    }
  }

  private static boolean refused(NamenodeClient client) {
    try {
      assertThat(client.getFileInfo("/b", TimeSpec.latest())).as("the latest state, while answered").isNotNull();
      return false;
    } catch (FffsException e) {
      assertThat(e.code()).isEqualTo(ErrorCode.NOT_LEADER);
      return true;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void assertNotLeader(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
    assertThatThrownBy(call).isInstanceOfSatisfying(FffsException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_LEADER));
  }

  /** The listing without the answering NameNode's clock reading. */
  private static GetListingResponseProto listing(NamenodeClient client, String dir, TimeSpec time)
      throws IOException {
    return client.getListing(dir, time, "", 100).toBuilder().clearHlc().buildPartial();
  }
}
