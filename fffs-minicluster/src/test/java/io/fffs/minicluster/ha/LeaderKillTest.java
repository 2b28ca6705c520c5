package io.fffs.minicluster.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.GetListingResponseProto;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three NameNode processes; eight clients create, rename and delete as fast as they can, each checking every answer
 * against its model of its own directory, while the leader is killed with SIGKILL. Every acknowledged change is
 * there afterwards and none was made twice (a create made twice fails, a rename or delete made twice answers false);
 * reads at a past time recorded before the kill answer the same after it; changes resume on the new leader; the
 * killed NameNode comes back as a follower and catches up.
 */
class LeaderKillTest {
  private static final int CLIENTS = 8;

  @TempDir
  Path dir;

  private static List<String> names(NamenodeClient nn, String dir, TimeSpec time) throws IOException {
    GetListingResponseProto listing = nn.getListing(dir, time, "", 100_000);
    List<String> names = new ArrayList<>();
    for (FileStatusProto entry : listing.getEntriesList()) {
      names.add(entry.getPath().substring(entry.getPath().lastIndexOf('/') + 1) + "#" + entry.getInodeId()
          + "@" + entry.getModificationTime());
    }
    return names;
  }

  @Test
  void killingTheLeaderLosesNoAcknowledgedChangeAndMakesNoneTwice() throws Exception {
    try (HaProcessCluster cluster = new HaProcessCluster(dir, 3)) {
      Configuration conf = cluster.clientConf();
      HybridLogicalClock clock = new HybridLogicalClock(PhysicalClock.system(), conf);
      int leader = cluster.awaitLeader(30_000);
      NamenodeClient admin = NamenodeClient.connectHa(HaProcessCluster.NAMESERVICE, conf, clock);
      admin.mkdirs("/storm", 0755, true);

      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch warmedUp = new CountDownLatch(CLIENTS);
      List<MetadataStorm> storms = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        MetadataStorm storm = new MetadataStorm(c, NamenodeClient.connectHa(HaProcessCluster.NAMESERVICE, conf,
            new HybridLogicalClock(PhysicalClock.system(), conf)), stop, warmedUp);
        storms.add(storm);
        Thread thread = new Thread(storm, "storm-" + c);
        threads.add(thread);
        thread.start();
      }
      warmedUp.await();

      // Reads at a moment in the storm's past, recorded before the kill.
      long pastMicros = clock.now().physicalMicros();
      Thread.sleep(200);
      TimeSpec past = TimeSpec.system(pastMicros);
      List<List<String>> before = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        before.add(names(admin, "/storm/c" + c, past));
      }

      cluster.kill(leader);
      long killed = System.nanoTime();
      admin.mkdirs("/after-kill", 0755, true);  // fails over with the storm
      long failoverMs = (System.nanoTime() - killed) / 1_000_000;
      int[] atFailover = storms.stream().mapToInt(s -> s.acknowledged.get()).toArray();
      // Every client goes on through the new leader, a few changes each.
      StormClient.awaitProgress(() -> storms.stream().allMatch(s -> s.acknowledged.get() > atFailover[s.client] + 5),
          storms);
      stop.set(true);
      for (Thread thread : threads) {
        thread.join(60_000);
      }
      for (MetadataStorm storm : storms) {
        assertThat(storm.failure).as("client %d (cluster log:\n%s)", storm.client, cluster.logTail()).isNull();
        assertThat(storm.acknowledged.get()).as("client %d's changes acknowledged after the failover", storm.client)
            .isGreaterThan(atFailover[storm.client] + 5);
      }
      int acknowledged = storms.stream().mapToInt(s -> s.acknowledged.get()).sum();
      System.out.printf("leader nn%d killed: first change on the new leader after %d ms; %d rounds acknowledged%n",
          leader + 1, failoverMs, acknowledged);

      for (MetadataStorm storm : storms) {
        List<String> now = new ArrayList<>();
        for (String entry : names(admin, storm.dir(), TimeSpec.latest())) {
          now.add(entry.substring(0, entry.indexOf('#')));
        }
        assertThat(new TreeSet<>(now)).as("directory of client %d", storm.client).isEqualTo(storm.model);
        assertThat(now).doesNotHaveDuplicates();
      }
      for (int c = 0; c < CLIENTS; c++) {
        assertThat(names(admin, "/storm/c" + c, past)).as("past read of client %d's directory", c)
            .isEqualTo(before.get(c));
      }

      cluster.restart(leader);
      int now = cluster.awaitLeader(30_000);
      assertThat(now).isNotEqualTo(leader);
      long target = cluster.lastTxid(now);
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (cluster.lastTxid(leader) < target && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(cluster.lastTxid(leader)).as("the restarted NameNode caught up").isGreaterThanOrEqualTo(target);
      for (MetadataStorm storm : storms) {
        storm.nn.close();
      }
      admin.close();
    }
  }
}
