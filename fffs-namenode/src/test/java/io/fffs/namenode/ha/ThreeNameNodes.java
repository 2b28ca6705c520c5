package io.fffs.namenode.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.ha.HaConfigKeys;
import io.fffs.common.net.FreePorts;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.namenode.NameNode;
import io.fffs.namenode.NameNodeConfigKeys;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;

/**
 * Three NameNodes of cluster {@code mycluster} in one JVM, on loopback, each with its own name directory under
 * {@code dir}: started, stopped and started again by index, with the checks the HA tests share.
 */
final class ThreeNameNodes implements Closeable {
  static final int COUNT = 3;

  final Path dir;
  final List<Configuration> confs = new ArrayList<>();
  final NameNode[] nameNodes = new NameNode[COUNT];
  final HybridLogicalClock clientClock = new HybridLogicalClock(PhysicalClock.system(), 250_000);

  ThreeNameNodes(Path dir) throws IOException {
    this.dir = dir;
    Configuration shared = new Configuration(false);
    shared.set(HaConfigKeys.NAMESERVICES_KEY, "mycluster");
    shared.set(HaConfigKeys.NAMENODES_PREFIX + "mycluster", "nn1,nn2,nn3");
    // HTTP ports too: one bound as port 0 could take a port picked for a NameNode not started yet.
    int[] ports = FreePorts.pick(3 * COUNT);
    for (int i = 1; i <= COUNT; i++) {
      shared.set(HaConfigKeys.RPC_ADDRESS_PREFIX + "mycluster.nn" + i, "127.0.0.1:" + ports[3 * i - 3]);
      shared.set(HaConfigKeys.RATIS_ADDRESS_PREFIX + "mycluster.nn" + i, "127.0.0.1:" + ports[3 * i - 2]);
      shared.set(HaConfigKeys.HTTP_ADDRESS_PREFIX + "mycluster.nn" + i, "127.0.0.1:" + ports[3 * i - 1]);
    }
    shared.set(HaConfigKeys.SNAPSHOT_ENTRIES_KEY, "16");
    shared.set(HaConfigKeys.ELECTION_TIMEOUT_KEY, "500ms");
    for (int i = 0; i < COUNT; i++) {
      Configuration conf = new Configuration(shared);
      conf.set(HaConfigKeys.NAMENODE_ID_KEY, "nn" + (i + 1));
      conf.set(NameNodeConfigKeys.NAME_DIR_KEY, dir.resolve("nn" + (i + 1)).toString());
      confs.add(conf);
    }
  }

  ThreeNameNodes startAll() throws IOException {
    for (int i = 0; i < COUNT; i++) {
      start(i);
    }
    return this;
  }

  void start(int i) throws IOException {
    nameNodes[i] = NameNode.start(confs.get(i), PhysicalClock.system(), System::nanoTime);
  }

  void stop(int i) throws IOException {
    nameNodes[i].close();
    nameNodes[i] = null;
  }

  @Override
  public void close() throws IOException {
    for (int i = 0; i < COUNT; i++) {
      if (nameNodes[i] != null) {
        stop(i);
      }
    }
  }

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(20);
    }
  }

  int awaitLeader() throws InterruptedException {
    int[] leader = {-1};
    await("one NameNode leads", () -> {
      for (int i = 0; i < COUNT; i++) {
        if (nameNodes[i] != null && nameNodes[i].ha().isLeader()) {
          leader[0] = i;
          return true;
        }
      }
      return false;
    });
    return leader[0];
  }

  /** A client of NameNode {@code i} alone. */
  NamenodeClient client(int i) throws IOException {
    return NamenodeClient.connect(nameNodes[i].rpcAddress(), confs.get(i), clientClock);
  }

  /** A client of the cluster ({@code fffs://mycluster}) with {@code settings} ("key=value") added. */
  NamenodeClient clusterClient(String... settings) throws IOException {
    Configuration conf = new Configuration(confs.get(0));
    for (String setting : settings) {
      int eq = setting.indexOf('=');
      conf.set(setting.substring(0, eq), setting.substring(eq + 1));
    }
    return NamenodeClient.connectHa("mycluster", conf, clientClock);
  }

  /** Waits until NameNode {@code i} has applied txid {@code txid}. */
  void awaitApplied(int i, long txid) throws InterruptedException {
    await("nn" + (i + 1) + " applied txid " + txid, () -> nameNodes[i].namesystem().lastTxid() >= txid);
  }

  /** Waits until every running NameNode has applied as far as {@code leader}, then compares their images. */
  void assertSameNamespaces(int leader) throws Exception {
    long txid = nameNodes[leader].namesystem().lastTxid();
    for (int i = 0; i < COUNT; i++) {
      if (nameNodes[i] != null) {
        awaitApplied(i, txid);
      }
    }
    Path leaderImage = image(leader);
    for (int i = 0; i < COUNT; i++) {
      if (nameNodes[i] != null && i != leader) {
        assertThat(Files.mismatch(leaderImage, image(i))).as("image of nn%d vs the leader's", i + 1).isEqualTo(-1);
      }
    }
  }

  /** Waits until every NameNode has written a Raft snapshot (its namespace image) into its storage. */
  void awaitSnapshotOnEach() throws InterruptedException {
    await("every NameNode has written a snapshot", () -> {
      for (int i = 0; i < COUNT; i++) {
        String[] snapshots = dir.resolve("nn" + (i + 1)).resolve("ratis")
            .resolve(HaNode.groupId("mycluster").getUuid().toString()).resolve("sm")
            .toFile().list((d, name) -> name.startsWith("snapshot.") && !name.endsWith(".md5"));
        if (snapshots == null || snapshots.length == 0) {
          return false;
        }
      }
      return true;
    });
  }

  /** NameNode {@code i}'s namespace image, saved once every op it applied is committed. */
  Path image(int i) throws Exception {
    Path target = dir.resolve("compare-nn" + (i + 1) + "-" + System.nanoTime());
    await("nn" + (i + 1) + " has every op it applied committed",
        () -> {
          try {
            return nameNodes[i].namesystem().saveImageIfSettled(target) >= 0;
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
    return target;
  }
}
