package io.fffs.namenode.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.ipc.ClientNamenodeProtocolPB;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.CreateRequestProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.CreateResponseProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.RenameRequestProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.RenameResponseProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockKeysProto;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.NameNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.Client;
import org.apache.hadoop.ipc.ProtobufRpcEngine2;
import org.apache.hadoop.ipc.RPC;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three NameNodes in one Raft group, on loopback: the leader stamps and applies, every NameNode holds the same
 * namespace with the same stamps (their images are byte for byte the same), followers refuse changes naming the
 * leader, a new leader takes over when the leader stops, and a NameNode that was down catches up from a snapshot and
 * the log.
 */
class HaNameNodesTest {
  private static final int NAMENODES = ThreeNameNodes.COUNT;

  @TempDir
  Path dir;

  private ThreeNameNodes cluster;
  private NameNode[] nameNodes;
  private List<Configuration> confs;
  private HybridLogicalClock clientClock;

  private void startCluster() throws Exception {
    cluster = new ThreeNameNodes(dir).startAll();
    nameNodes = cluster.nameNodes;
    confs = cluster.confs;
    clientClock = cluster.clientClock;
  }

  private void start(int i) throws IOException {
    cluster.start(i);
  }

  @AfterEach
  void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    ThreeNameNodes.await(what, condition);
  }

  private int awaitLeader() throws InterruptedException {
    return cluster.awaitLeader();
  }

  private NamenodeClient client(int i) throws IOException {
    return cluster.client(i);
  }

  private void assertSameNamespaces(int leader) throws Exception {
    cluster.assertSameNamespaces(leader);
  }

  private static void changes(NamenodeClient client, String dir, int files) throws IOException {
    client.mkdirs(dir, 0755, true);
    for (int f = 0; f < files; f++) {
      client.create(dir + "/f" + f, 0644, "writer", false, true, 1, 1 << 20, null);
      client.complete(dir + "/f" + f, client.getFileInfo(dir + "/f" + f, TimeSpec.latest()).getInodeId(),
          "writer", null);
    }
    client.rename(dir + "/f0", dir + "/renamed");
    client.delete(dir + "/f1", false);
  }

  @Test
  void everyNameNodeHoldsTheLeadersNamespaceAndANewLeaderTakesOver() throws Exception {
    startCluster();
    // The client names the cluster, not a NameNode: it finds the leader and follows it.
    NamenodeClient client = NamenodeClient.connectHa("mycluster", confs.get(0), clientClock);
    try {
      changes(client, "/first", 12);
      int leader = awaitLeader();
      assertSameNamespaces(leader);
      cluster.awaitSnapshotOnEach();

      int follower = (leader + 1) % NAMENODES;
      try (NamenodeClient toFollower = client(follower)) {
        assertThatThrownBy(() -> toFollower.mkdirs("/refused", 0755, true))
            .isInstanceOfSatisfying(FffsException.class, e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.NOT_LEADER);
              assertThat(e.getMessage()).contains("leader=nn" + (leader + 1));
            });
      }

      // Block keys go through the log: a new leader signs with the keys the old one handed to the DataNodes.
      await("the leader logged its block keys", () -> {
        try {
          return nameNodes[leader].namesystem().delegationState().blockKeys() != null;
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      BlockKeysProto leadersKeys = nameNodes[leader].namesystem().blockTokens.exportKeys();

      FileStatusProto before = client.getFileInfo("/first/renamed", TimeSpec.latest());
      nameNodes[leader].close();
      nameNodes[leader] = null;
      // The same client goes on: its calls fail over to whichever NameNode is elected.
      assertThat(client.getFileInfo("/first/renamed", TimeSpec.latest())).isEqualTo(before);
      assertThat(client.getFileInfo("/first/f1", TimeSpec.latest())).isNull();
      changes(client, "/second", 12);
      int next = awaitLeader();
      assertThat(next).isNotEqualTo(leader);
      assertThat(nameNodes[next].namesystem().blockTokens.exportKeys()).isEqualTo(leadersKeys);

      // The old leader comes back as a follower: it loads its last snapshot and the log brings it up to date.
      start(leader);
      assertSameNamespaces(next);
      assertThat(nameNodes[leader].ha().isLeader()).isFalse();
    } finally {
      client.close();
    }
  }

  private ClientNamenodeProtocolPB proxy(int i) throws IOException {
    Configuration rpcConf = new Configuration(confs.get(i));
    RPC.setProtocolEngine(rpcConf, ClientNamenodeProtocolPB.class, ProtobufRpcEngine2.class);
    return RPC.getProxy(ClientNamenodeProtocolPB.class, RPC.getProtocolVersion(ClientNamenodeProtocolPB.class),
        nameNodes[i].rpcAddress(), rpcConf);
  }

  private CreateResponseProto create(ClientNamenodeProtocolPB proxy, String src, int callId, int retry)
      throws Exception {
    Client.setCallIdAndRetryCount(callId, retry, null);
    return proxy.create(null, CreateRequestProto.newBuilder().setHlc(clientClock.last().toProto()).setSrc(src)
        .setPermission(0644).setClientName("writer").setOverwrite(true).setCreateParent(true).setReplication(1)
        .setBlockSize(1 << 20).build());
  }

  private RenameResponseProto rename(ClientNamenodeProtocolPB proxy, String src, String dst, int callId, int retry)
      throws Exception {
    Client.setCallIdAndRetryCount(callId, retry, null);
    return proxy.rename(null, RenameRequestProto.newBuilder().setHlc(clientClock.last().toProto()).setSrc(src)
        .setDst(dst).build());
  }

  @Test
  void aChangeRetriedOnTheNewLeaderIsNotMadeAgain() throws Exception {
    startCluster();
    int leader = awaitLeader();
    int createId = Client.nextCallId();
    int renameId = Client.nextCallId();
    ClientNamenodeProtocolPB toLeader = proxy(leader);
    CreateResponseProto created = create(toLeader, "/retried/file", createId, 0);
    assertThat(rename(toLeader, "/retried/file", "/retried/moved", renameId, 0).getResult()).isTrue();
    create(toLeader, "/retried/file", Client.nextCallId(), 0);  // a later create of the same name
    assertSameNamespaces(leader);
    long txidBeforeRetries = nameNodes[leader].namesystem().lastTxid();

    nameNodes[leader].close();
    nameNodes[leader] = null;
    int next = awaitLeader();
    ClientNamenodeProtocolPB toNext = proxy(next);
    // Only now: the IPC client (and with it the client id the retries carry) lives while a proxy uses it.
    RPC.stopProxy(toLeader);
    try {
      // Made again, the rename would find /retried/file (the later one) and move it over /retried/moved.
      assertThat(rename(toNext, "/retried/file", "/retried/moved", renameId, 1).getResult()).isTrue();
      assertThat(nameNodes[next].namesystem().lastTxid()).isEqualTo(txidBeforeRetries);
      // Made again, the create would replace the later file with a new one (a new inode id).
      CreateResponseProto retried = create(toNext, "/retried/moved", createId, 1);
      assertThat(retried.getStatus().getInodeId()).isEqualTo(created.getStatus().getInodeId());
    } finally {
      RPC.stopProxy(toNext);
    }
  }

  @Test
  void adminShowsRolesAndMovesTheLead() throws Exception {
    startCluster();
    int leader = awaitLeader();
    Configuration conf = new Configuration(confs.get(0));
    conf.set("fs.defaultFS", "fffs://mycluster");
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    assertThat(io.fffs.client.tools.AdminCommand.run(conf, new String[] {"-haState"}, new java.io.PrintStream(out),
        new java.io.PrintStream(err))).as(err.toString()).isZero();
    List<String> lines = List.of(out.toString().trim().split("\n"));
    assertThat(lines).hasSize(NAMENODES);
    assertThat(lines).filteredOn(line -> line.contains("\tleader\t")).hasSize(1)
        .allMatch(line -> line.startsWith("nn" + (leader + 1) + "\t"));

    int to = (leader + 2) % NAMENODES;
    assertThat(io.fffs.client.tools.AdminCommand.run(conf, new String[] {"-transferLeadership", "nn" + (to + 1)},
        new java.io.PrintStream(out), new java.io.PrintStream(err))).as(err.toString()).isZero();
    await("nn" + (to + 1) + " leads", () -> nameNodes[to].ha().isLeader());
    try (NamenodeClient client = NamenodeClient.connectHa("mycluster", confs.get(0), clientClock)) {
      assertThat(client.mkdirs("/after-transfer", 0755, true)).isTrue();
    }
  }
}
