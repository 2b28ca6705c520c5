package io.fffs.minicluster.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.NameNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lead is handed over three times while four clients create, rename and delete: the leader stamps nothing more
 * and commits what it applied, then hands over; the calls that waited go to the new leader with the same call ids.
 * Afterwards every acknowledged change is there exactly once and every NameNode holds the same namespace, byte for
 * byte, and no NameNode had to reload.
 *
 * <p>A leader deposed by an election nobody asked for (its heartbeats held up longer than the election timeout, by a
 * long GC pause or a starved machine) rightly reloads when it held ops not yet committed: that is no failure of a
 * transfer. The election timeout here is long, so that only a pause of seconds causes one, and the no-reload check
 * holds whenever the Raft term rose by exactly one per transfer, i.e. no other election took place.
 */
class LeadershipTransferTest {
  private static final int CLIENTS = 4;
  private static final int MOVES = 3;

  @TempDir
  Path dir;

  private static int leader(MiniFffsCluster cluster) {
    NameNode leader = cluster.getNameNode();
    for (int i = 0; i < cluster.getNumNameNodes(); i++) {
      if (cluster.getNameNode(i) == leader) {
        return i;
      }
    }
    throw new AssertionError("the leader is none of the NameNodes");
  }

  /**
   * Waits until all three NameNodes run: a leader that stepped down with ops not yet committed stopped itself to
   * reload, and the cluster starts it again when asked for its leader.
   */
  private static void awaitAllRunning(MiniFffsCluster cluster) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (System.nanoTime() < deadline) {
      cluster.getNameNode();
      boolean all = true;
      for (int i = 0; i < cluster.getNumNameNodes(); i++) {
        all &= cluster.getNameNode(i) != null && !cluster.getNameNode(i).reloadWanted();
      }
      if (all) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("a NameNode did not come back from its reload");
  }

  /** How a test moves the lead from NameNode {@code from} to {@code to}. */
  private interface Move {
    void move(MiniFffsCluster cluster, int from, int to) throws Exception;
  }

  @Test
  void movingTheLeadDuringAStormKeepsEveryAcknowledgedChangeOnce() throws Exception {
    storm((cluster, from, to) -> cluster.getNameNode(from).ha().transferLeadership("nn" + (to + 1), 10_000));
  }

  private void storm(Move mover) throws Exception {
    Path base = Files.createTempDirectory(dir, "cluster");
    Configuration settings = new Configuration();
    settings.set(io.fffs.common.ha.HaConfigKeys.ELECTION_TIMEOUT_KEY, "2s");
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().numNameNodes(3).numDataNodes(0).baseDir(base)
        .conf(settings).build()) {
      Configuration conf = cluster.getConfiguration();
      NameNode[] started = new NameNode[cluster.getNumNameNodes()];
      for (int i = 0; i < started.length; i++) {
        started[i] = cluster.getNameNode(i);
      }
      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch warmedUp = new CountDownLatch(CLIENTS);
      List<MetadataStorm> storms = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        MetadataStorm storm = new MetadataStorm(c, NamenodeClient.connectHa(MiniFffsCluster.NAMESERVICE, conf,
            new HybridLogicalClock(PhysicalClock.system(), conf)), stop, warmedUp);
        storms.add(storm);
        threads.add(new Thread(storm, "storm-" + c));
      }
      threads.forEach(Thread::start);
      warmedUp.await();
      long termBefore = cluster.getNameNode().ha().term();
      for (int move = 0; move < MOVES; move++) {
        awaitAllRunning(cluster);
        int from = leader(cluster);
        int to = (from + 1) % cluster.getNumNameNodes();
        int before = storms.stream().mapToInt(s -> s.acknowledged.get()).sum();
        mover.move(cluster, from, to);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (storms.stream().mapToInt(s -> s.acknowledged.get()).sum() < before + 2 * CLIENTS
            && storms.stream().allMatch(s -> s.failure == null) && System.nanoTime() < deadline) {
          Thread.sleep(10);
        }
      }
      stop.set(true);
      awaitAllRunning(cluster);
      long elections = cluster.getNameNode().ha().term() - termBefore;
      assertThat(elections).as("Raft elections during the storm").isGreaterThanOrEqualTo(MOVES);
      for (Thread thread : threads) {
        thread.join(60_000);
      }
      for (MetadataStorm storm : storms) {
        assertThat(storm.failure).as("client %d", storm.client).isNull();
      }

      HybridLogicalClock clock = new HybridLogicalClock(PhysicalClock.system(), conf);
      try (NamenodeClient nn = NamenodeClient.connectHa(MiniFffsCluster.NAMESERVICE, conf, clock)) {
        for (MetadataStorm storm : storms) {
          List<String> names = new ArrayList<>();
          for (FileStatusProto entry : nn.getListing(storm.dir(), TimeSpec.latest(), "", 100_000)
              .getEntriesList()) {
            names.add(entry.getPath().substring(entry.getPath().lastIndexOf('/') + 1));
          }
          assertThat(new TreeSet<>(names)).as("directory of client %d", storm.client).isEqualTo(storm.model);
        }
        storms.forEach(s -> s.nn.close());
      }

      int leader = leader(cluster);
      long txid = cluster.getNameNode(leader).namesystem().lastTxid();
      Path leaderImage = base.resolve("image-leader");
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (cluster.getNameNode(leader).namesystem().saveImageIfSettled(leaderImage) < 0
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      for (int i = 0; i < cluster.getNumNameNodes(); i++) {
        NameNode nameNode = cluster.getNameNode(i);
        if (elections == MOVES) {
          assertThat(nameNode).as("nn%d was not restarted by a reload", i + 1).isSameAs(started[i]);
        }
        while (nameNode.namesystem().lastTxid() < txid && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        Path image = base.resolve("image-" + i);
        assertThat(nameNode.namesystem().saveImageIfSettled(image)).isGreaterThanOrEqualTo(0);
        assertThat(Files.mismatch(leaderImage, image)).as("image of nn%d vs the leader's", i + 1).isEqualTo(-1);
      }
    }
  }
}
