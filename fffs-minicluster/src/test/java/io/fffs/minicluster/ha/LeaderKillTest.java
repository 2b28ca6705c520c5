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

  /** One client's changes in its own directory, each answer checked; the names its directory must hold. */
  private static final class Storm implements Runnable {
    final int client;
    final NamenodeClient nn;
    final TreeSet<String> model = new TreeSet<>();
    final AtomicBoolean stop;
    final AtomicInteger acknowledged = new AtomicInteger();
    final CountDownLatch warmedUp;
    volatile Throwable failure;

    Storm(int client, NamenodeClient nn, AtomicBoolean stop, CountDownLatch warmedUp) {
      this.client = client;
      this.nn = nn;
      this.stop = stop;
      this.warmedUp = warmedUp;
    }

    String dir() {
      return "/storm/c" + client;
    }

    @Override
    public void run() {
      try {
        for (int n = 0; !stop.get(); n++) {
          String file = dir() + "/f" + n;
          FileStatusProto created = nn.create(file, 0644, "client-" + client, false, true, 1, 1 << 20, null);
          check(created != null && created.getPath().equals(file), "create " + file + " answered " + created);
          nn.complete(file, created.getInodeId(), "client-" + client, null);
          model.add("f" + n);
          if (n % 3 == 1) {
            check(nn.rename(file, dir() + "/r" + n), "rename of " + file + " answered false");
            model.remove("f" + n);
            model.add("r" + n);
          }
          if (n % 5 == 2) {
            String name = model.contains("f" + n) ? "f" + n : "r" + n;
            check(nn.delete(dir() + "/" + name, false), "delete of " + name + " answered false");
            model.remove(name);
          }
          if (acknowledged.incrementAndGet() == 20) {
            warmedUp.countDown();
          }
        }
      } catch (Throwable t) {
        failure = t;
        warmedUp.countDown();
      }
    }

    private static void check(boolean ok, String what) {
      if (!ok) {
        throw new AssertionError(what);
      }
    }
  }

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
      List<Storm> storms = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        Storm storm = new Storm(c, NamenodeClient.connectHa(HaProcessCluster.NAMESERVICE, conf,
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
      int acknowledgedAtFailover = storms.stream().mapToInt(s -> s.acknowledged.get()).sum();
      Thread.sleep(1_000);
      stop.set(true);
      for (Thread thread : threads) {
        thread.join(60_000);
      }
      for (Storm storm : storms) {
        assertThat(storm.failure).as("client %d (cluster log:\n%s)", storm.client, cluster.logTail()).isNull();
      }
      int acknowledged = storms.stream().mapToInt(s -> s.acknowledged.get()).sum();
      assertThat(acknowledged).as("changes acknowledged after the failover").isGreaterThan(acknowledgedAtFailover);
      System.out.printf("leader nn%d killed: first change on the new leader after %d ms; %d rounds acknowledged%n",
          leader + 1, failoverMs, acknowledged);

      for (Storm storm : storms) {
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
      for (Storm storm : storms) {
        storm.nn.close();
      }
      admin.close();
    }
  }
}
