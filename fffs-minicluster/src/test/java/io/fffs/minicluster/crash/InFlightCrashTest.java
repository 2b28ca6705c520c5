package io.fffs.minicluster.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kill -9 at any instant: a NameNode and three DataNodes in processes of their own, files with two replicas, and
 * while two writers append and hsync, a third client creates, renames, deletes and truncates, and a fourth writes
 * and deletes files whose history is collected at once (so that collection passes and the segment cleaner run), the
 * NameNode, a DataNode or both are killed at a random moment. A killed DataNode stays down for a random while (its replicas are
 * re-replicated after 3 s) before it restarts. After every round: every hsync'd byte and every acknowledged
 * namespace change is there, the one call each client had in flight left one of its possible outcomes, and every
 * read at a past time answered before any crash answers the same. {@code FFFS_CRASH_ROUNDS} sets the number of
 * rounds (CI runs 3; {@code dev-support/crash-loop.sh} runs the long loop).
 */
class InFlightCrashTest {
  private static final int WRITERS = 2;

  @TempDir
  Path base;

  @Test
  void acknowledgedWorkAndAnsweredPastsSurviveKillsWhileWorkIsInFlight() throws Exception {
    run(Integer.parseInt(System.getenv().getOrDefault("FFFS_CRASH_ROUNDS", "3")), false);
  }

  /**
   * The same rounds, each kill a power loss of the killed node: its arena is gone and each of its log files keeps
   * only what it had fsync'd, sometimes with a torn part of the rest ({@link PowerLoss}). Every hsync'd byte and
   * every acknowledged change is still there: the surviving DataNodes hold the replicas of what was acknowledged
   * but not yet synced on the killed one. {@code FFFS_CRASH_POWER_ROUNDS} rounds (CI runs 3).
   */
  @Test
  void acknowledgedWorkAndAnsweredPastsSurvivePowerLossOfTheKilledNodes() throws Exception {
    run(Integer.parseInt(System.getenv().getOrDefault("FFFS_CRASH_POWER_ROUNDS", "3")), true);
  }

  private void run(int rounds, boolean powerLoss) throws Exception {
    Random random = new Random(Long.getLong("fffs.crash.seed", 7));
    try (ProcessCluster cluster = new ProcessCluster(base, 3, powerLoss ? new Random(random.nextLong()) : null)) {
      Configuration conf = new Configuration();
      conf.set("fs.defaultFS", cluster.defaultFs());
      conf.setLong("fffs.blocksize", 256 * 1024);
      conf.setInt("fffs.replication", 2);
      conf.setBoolean("fs.fffs.impl.disable.cache", true);
      NamespaceChurn churn = new NamespaceChurn(conf, random.nextLong());
      HistoryChurn collected = new HistoryChurn(conf, random.nextLong());
      try (FreezeFrameFileSystem fs = (FreezeFrameFileSystem) FileSystem.newInstance(URI.create(
          cluster.defaultFs()), conf)) {
        fs.mkdirs(HistoryChurn.DIR);
        fs.setRetention(HistoryChurn.DIR, RetentionRule.parse(HistoryChurn.RULE));
      }
      List<HsyncWriter> writers = new ArrayList<>();
      int[] outcomes = new int[2];  // calls interrupted, rounds in which every call was acknowledged
      for (int round = 0; round < rounds; round++) {
        List<HsyncWriter> active = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        churn.reset();
        collected.reset();
        threads.add(new Thread(churn, "churn"));
        threads.add(new Thread(collected, "collected"));
        for (int w = 0; w < WRITERS; w++) {
          HsyncWriter writer = new HsyncWriter(conf, "/w/r" + round + "-" + w, random.nextLong());
          active.add(writer);
          threads.add(new Thread(writer, "writer-" + w));
        }
        threads.forEach(Thread::start);
        long started = System.nanoTime();
        Thread.sleep(300 + random.nextInt(1500));

        // Each kind of kill at first, so even the short CI loop has all three; then at random.
        int kind = round < 3 ? round : random.nextInt(3);  // 0 NameNode, 1 a DataNode, 2 both
        int dataNode = random.nextInt(cluster.dataNodeCount());
        String what = switch (kind) {
          case 0 -> "the NameNode";
          case 1 -> "DataNode " + dataNode;
          default -> "the NameNode and DataNode " + dataNode;
        };
        if (kind != 1) {
          cluster.killNameNode();
        }
        if (kind != 0) {
          cluster.killDataNode(dataNode);
          Thread.sleep(random.nextInt(4500));  // writes go on; past 3 s its replicas are copied elsewhere
        }
        if (kind != 1) {
          cluster.restartNameNode();
        }
        if (kind != 0) {
          cluster.restartDataNode(dataNode);
        }
        Thread.sleep(random.nextInt(800));  // work resumes where the clients can; re-replication may run
        active.forEach(writer -> writer.stop = true);
        churn.stop = true;
        collected.stop = true;
        for (Thread thread : threads) {
          thread.join(120_000);
          assertThat(thread.isAlive()).as("%s ended within 120 s after killing %s in round %d", thread.getName(),
              what, round).isFalse();
        }
        String when = "after killing " + what + " in round " + round;
        System.out.printf("round %d: killed %s; work ran %d ms%n", round, what,
            (System.nanoTime() - started) / 1_000_000);
        for (Worker worker : concat(active, churn, collected)) {
          if (worker.bug != null) {
            throw new AssertionError("a wrong answer while work was in flight " + when, worker.bug);
          }
          outcomes[worker.interrupted != null ? 0 : 1]++;
          if (worker.interrupted != null) {
            System.out.printf("  a call failed, unacknowledged: %s%n", worker.interrupted);
          }
        }
        writers.addAll(active);
        try {
          verify(conf, writers, churn, collected, when, cluster);
        } catch (Exception | AssertionError e) {
          throw new AssertionError("checks failed " + when + "; the nodes' log: " + cluster.logPath(), e);
        }
      }
      System.out.printf("in-flight crash loop%s: %d rounds, %d calls interrupted, %d workers unhurt%s; "
          + "%d collection passes dropped history, %d cleaner passes copied live records, %d blocks re-replicated%n",
          powerLoss ? " with power loss" : "", rounds, outcomes[0], outcomes[1],
          powerLoss ? ", " + cluster.filesCut() + " log files cut back to their last fsync" : "",
          cluster.logged("History garbage collection:", ": 0 inodes removed, 0 versions and 0 names"),
          cluster.logged("Segment cleaner:", ", 0 live records"), cluster.logged("copying its history from", "\n"));
    }
  }

  private static List<Worker> concat(List<HsyncWriter> writers, Worker... others) {
    List<Worker> all = new ArrayList<>(writers);
    all.addAll(List.of(others));
    return all;
  }

  private static void verify(Configuration conf, List<HsyncWriter> writers, NamespaceChurn churn,
      HistoryChurn collected, String when, ProcessCluster cluster) throws Exception {
    try (FreezeFrameFileSystem fs = (FreezeFrameFileSystem) FileSystem.newInstance(URI.create(
        conf.get("fs.defaultFS")), conf)) {
      awaitServing(fs, when, cluster);
      for (HsyncWriter writer : writers) {
        for (Map.Entry<org.apache.hadoop.fs.Path, byte[]> file : writer.synced.entrySet()) {
          byte[] now = Worker.awaitAnswer(() -> {
            try (FSDataInputStream in = fs.open(file.getKey())) {
              return in.readAllBytes();
            }
          });
          assertThat(now).as("%s, created, %s", file.getKey(), when).isNotNull();
          byte[] synced = file.getValue();
          assertThat(now.length).as("%s keeps its hsync'd bytes %s", file.getKey(), when)
              .isGreaterThanOrEqualTo(synced.length);
          assertThat(Arrays.copyOf(now, synced.length)).as("%s hsync'd bytes %s", file.getKey(), when)
              .isEqualTo(synced);
        }
      }
      churn.verify(fs, when);
      collected.verify(fs, when);
      for (Worker worker : concat(writers, churn)) {
        for (Worker.KeptRead read : worker.pastReads) {
          byte[] now = readAt(fs, read);
          assertThat(now == null ? -1 : now.length).as("length of %s at %d %s", read.path(), read.micros(), when)
              .isEqualTo(read.length());
          assertThat(Worker.KeptRead.digest(now)).as("SHA-256 of %s at %d %s", read.path(), read.micros(), when)
              .isEqualTo(read.sha256());
        }
      }
    }
  }

  private static byte[] readAt(FreezeFrameFileSystem fs, Worker.KeptRead read) throws IOException {
    return Worker.awaitAnswer(() -> {
      try (FSDataInputStream in = fs.open(read.path(), TimeSpec.system(read.micros()))) {
        return in.readAllBytes();
      }
    });
  }

  /** After a restart the NameNode may sit in safe mode and DataNodes re-register: wait until a write works. */
  private static void awaitServing(FreezeFrameFileSystem fs, String when, ProcessCluster cluster) throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    org.apache.hadoop.fs.Path probe = new org.apache.hadoop.fs.Path("/probe");
    while (true) {
      try {
        fs.create(probe, true).close();
        return;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("not serving 60 s " + when + "\n" + cluster.logTail(), e);
        }
        Thread.sleep(200);
      }
    }
  }
}
