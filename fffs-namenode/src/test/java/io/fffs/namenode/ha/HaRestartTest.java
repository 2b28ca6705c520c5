package io.fffs.namenode.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.ha.HaConfigKeys;
import io.fffs.common.ipc.ClientNamenodeProtocolPB;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.CreateRequestProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.CreateResponseProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.RenameRequestProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.RenameResponseProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.VersionProto;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.Client;
import org.apache.hadoop.ipc.ProtobufRpcEngine2;
import org.apache.hadoop.ipc.RPC;
import org.junit.jupiter.api.Test;

/**
 * All three NameNodes stop and start again: each comes back from its snapshot and its Raft log with the same
 * namespace and the same history, a leader is elected, changes resume, and the retry cache neither makes a retried
 * change again nor answers a new call from an old entry.
 */
class HaRestartTest extends ThreeNameNodesTestBase {
  private static final String[] PATHS = {"/r", "/r/d0", "/r/d1", "/r/d0/f0", "/r/d0/f1", "/r/d1/f0", "/r/d1/f1",
      "/r/moved", "/r/retried", "/r/retried-moved"};

  private CreateResponseProto create(ClientNamenodeProtocolPB proxy, String src, int callId, int retry)
      throws Exception {
    Client.setCallIdAndRetryCount(callId, retry, null);
    return proxy.create(null, CreateRequestProto.newBuilder().setHlc(cluster.clientClock.last().toProto())
        .setSrc(src).setPermission(0644).setClientName("writer").setOverwrite(true).setCreateParent(true)
        .setReplication(1).setBlockSize(1 << 20).build());
  }

  private RenameResponseProto rename(ClientNamenodeProtocolPB proxy, String src, String dst, int callId, int retry)
      throws Exception {
    Client.setCallIdAndRetryCount(callId, retry, null);
    return proxy.rename(null, RenameRequestProto.newBuilder().setHlc(cluster.clientClock.last().toProto())
        .setSrc(src).setDst(dst).build());
  }

  private ClientNamenodeProtocolPB proxy(int i) throws IOException {
    Configuration rpcConf = new Configuration(cluster.confs.get(i));
    RPC.setProtocolEngine(rpcConf, ClientNamenodeProtocolPB.class, ProtobufRpcEngine2.class);
    return RPC.getProxy(ClientNamenodeProtocolPB.class, RPC.getProtocolVersion(ClientNamenodeProtocolPB.class),
        cluster.nameNodes[i].rpcAddress(), rpcConf);
  }

  /** What a client reads of {@code PATHS} at each of {@code times}, and the versions of each path. */
  private static Map<String, Object> history(NamenodeClient client, List<TimeSpec> times) throws IOException {
    Map<String, Object> seen = new HashMap<>();
    for (TimeSpec time : times) {
      for (String path : PATHS) {
        FileStatusProto status = client.getFileInfo(path, time);
        seen.put(path + time.toMarker(), status == null ? "absent" : status);
      }
      seen.put("/r listing" + time.toMarker(), client.getListing("/r", time, "", 100).getEntriesList());
    }
    return seen;
  }

  @Test
  void allThreeStopAndStartWithTheSameNamespaceHistoryAndRetryAnswers() throws Exception {
    cluster = new ThreeNameNodes(dir);
    cluster.confs.forEach(conf -> conf.set(HaConfigKeys.SNAPSHOT_ENTRIES_KEY, "24"));
    cluster.startAll();
    int leader = cluster.awaitLeader();
    List<TimeSpec> times = new ArrayList<>();
    List<VersionProto> versions;
    try (NamenodeClient client = cluster.clusterClient()) {
      for (int round = 0; round < 6; round++) {
        for (int d = 0; d < 2; d++) {
          for (int f = 0; f < 2; f++) {
            client.create("/r/d" + d + "/f" + f, 0644, "writer", true, true, 1, 1 << 20, null);
          }
        }
        client.rename("/r/d" + (round % 2) + "/f0", "/r/moved");
        times.add(TimeSpec.system(client.currentTime().physicalMicros()));
      }
      cluster.awaitSnapshotOnEach();
      versions = client.listVersions("/r/moved");
    }

    // Two changes in the log after the snapshots, made with known IPC ids; a proxy keeps the IPC client (its id).
    ClientNamenodeProtocolPB toLeader = proxy(leader);
    int createId = Client.nextCallId();
    int renameId = Client.nextCallId();
    CreateResponseProto created = create(toLeader, "/r/retried", createId, 0);
    assertThat(rename(toLeader, "/r/retried", "/r/retried-moved", renameId, 0).getResult()).isTrue();
    create(toLeader, "/r/retried", Client.nextCallId(), 0);  // made again, the rename would move this one
    cluster.assertSameNamespaces(leader);
    Map<String, Object> before;
    try (NamenodeClient client = cluster.clusterClient()) {
      times.add(TimeSpec.system(client.currentTime().physicalMicros()));
      client.mkdirs("/r/last", 0755, true);  // past the last time read: followers answer every one of them
      before = history(client, times);
    }
    long txid = cluster.nameNodes[leader].namesystem().lastTxid();
    Path[] images = new Path[ThreeNameNodes.COUNT];
    for (int i = 0; i < ThreeNameNodes.COUNT; i++) {
      cluster.awaitApplied(i, txid);
      images[i] = cluster.image(i);
    }

    cluster.close();
    cluster.startAll();
    int next = cluster.awaitLeader();
    for (int i = 0; i < ThreeNameNodes.COUNT; i++) {
      cluster.awaitApplied(i, txid);
      assertThat(java.nio.file.Files.mismatch(images[i], cluster.image(i))).as("nn%d's image across the restart",
          i + 1).isEqualTo(-1);
      try (NamenodeClient direct = cluster.client(i)) {
        assertThat(history(direct, times)).as("history on nn%d", i + 1).isEqualTo(before);
      }
    }
    cluster.assertSameNamespaces(next);

    ClientNamenodeProtocolPB toNext = proxy(next);
    RPC.stopProxy(toLeader);
    try {
      // Made again, the rename would move the later /r/retried over /r/retried-moved; the create would replace it.
      assertThat(rename(toNext, "/r/retried", "/r/retried-moved", renameId, 1).getResult()).isTrue();
      assertThat(create(toNext, "/r/retried-moved", createId, 1).getStatus().getInodeId())
          .isEqualTo(created.getStatus().getInodeId());
      assertThat(cluster.nameNodes[next].namesystem().lastTxid()).isEqualTo(txid);
      // A new call is made, not answered from an entry of before the restart.
      CreateResponseProto fresh = create(toNext, "/r/retried-moved", Client.nextCallId(), 0);
      assertThat(fresh.getStatus().getInodeId()).isNotEqualTo(created.getStatus().getInodeId());
    } finally {
      RPC.stopProxy(toNext);
    }
    try (NamenodeClient client = cluster.clusterClient()) {
      assertThat(client.listVersions("/r/moved").subList(0, versions.size())).isEqualTo(versions);
      assertThat(client.mkdirs("/r/after-restart", 0755, true)).isTrue();
      assertThat(client.rename("/r/moved", "/r/moved-after")).isTrue();
      assertThat(client.getFileInfo("/r/moved-after", TimeSpec.latest())).isNotNull();
    }
    cluster.assertSameNamespaces(cluster.awaitLeader());
  }
}
