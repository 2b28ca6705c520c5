package io.fffs.namenode.fs;

import static io.fffs.namenode.fs.NamesystemFixture.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.NameNodeConfigKeys;
import io.fffs.namenode.namespace.BlockRetention;
import io.fffs.namenode.namespace.GcPass;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** Garbage collection of the namespace: what a pass drops, what it keeps exact, across restarts. */
class HistoryGcTest extends NamesystemTestBase {
  private static final long SECOND = 1_000_000L;

  private String answer(String path, long micros) throws Exception {
    try {
      FileStatusProto status = nn.fs.queries.getFileInfo(ADMIN, path, TimeSpec.system(micros));
      return status == null ? "none" : status.getLength() + "@" + status.getInodeId();
    } catch (FffsException e) {
      return e.code().name();
    }
  }

  @Test
  void aPassDropsWhatNoKeptMomentSeesAndKeepsEveryKeptAnswer() throws Exception {
    long[] moments = new long[6];
    for (int i = 0; i < moments.length; i++) {
      nn.writeFile("/g/f", 10 + i);
      nn.advance(SECOND);
      moments[i] = nn.now();
      nn.advance(SECOND);
    }
    nn.writeFile("/g/deleted", 1);
    nn.fs.directories.delete(ADMIN, "/g/deleted", false).await();
    nn.advance(SECOND);
    List<String> before = new ArrayList<>();
    for (long moment : moments) {
      before.add(answer("/g/f", moment));
    }
    nn.fs.history.setRetention(ADMIN, "/g", RetentionRule.parse("5s")).await();
    int inodes = nn.fs.inodeCount();

    GcPass.Result result = nn.fs.collectHistory(null);

    assertThat(result.versionsDropped()).isGreaterThan(0);
    assertThat(result.inodesRemoved()).as("the older files and the deleted one").isGreaterThanOrEqualTo(4);
    assertThat(nn.fs.inodeCount()).isEqualTo(inodes - result.inodesRemoved());
    for (int i = 0; i < moments.length; i++) {
      String after = answer("/g/f", moments[i]);
      if (moments[i] >= nn.now() - 5 * SECOND) {
        assertThat(after).as("moment %d in the window", i).isEqualTo(before.get(i)).doesNotContain("EXPIRED");
      } else {
        assertThat(after).as("moment %d before the horizon", i).isEqualTo("HISTORY_EXPIRED");
      }
    }
    // Lengthening the rule cannot bring collected history back: such reads say it was collected.
    nn.fs.history.setRetention(ADMIN, "/g", RetentionRule.parse("1h")).await();
    assertThatThrownBy(() -> nn.fs.queries.getFileInfo(ADMIN, "/g/f", TimeSpec.system(moments[0])))
        .hasMessageContaining("HISTORY_EXPIRED").hasMessageContaining("garbage-collected");
  }

  @Test
  void pinnedAndNewestVersionsSurviveAPassAndARestart() throws Exception {
    long[] moments = new long[5];  // the moments of the versions themselves: what "keep N versions" keeps
    for (int i = 0; i < moments.length; i++) {
      nn.writeFile("/p/f", 100 + i);
      moments[i] = nn.now();
      nn.advance(2 * SECOND);
    }
    nn.fs.history.pin(ADMIN, "/p", TimeSpec.system(moments[0]), "oldest").await();
    nn.fs.history.setRetention(ADMIN, "/p", RetentionRule.parse("1s 2v")).await();
    nn.advance(10 * SECOND);
    nn.fs.collectHistory(null);
    List<String> expected = List.of("100", "EXPIRED", "EXPIRED", "103", "104");
    assertThat(lengths("/p/f", moments)).containsExactlyElementsOf(expected);
    nn.restart();  // the pass replays from the edit log
    assertThat(lengths("/p/f", moments)).containsExactlyElementsOf(expected);
    nn.fs.checkpoint();
    nn.restart();  // and loads from the image
    assertThat(lengths("/p/f", moments)).containsExactlyElementsOf(expected);

    nn.fs.history.unpin(ADMIN, "oldest").await();
    nn.fs.collectHistory(null);
    assertThat(lengths("/p/f", moments)).containsExactly("EXPIRED", "EXPIRED", "EXPIRED", "103", "104");
  }

  private List<String> lengths(String path, long[] moments) throws Exception {
    List<String> out = new ArrayList<>();
    for (long moment : moments) {
      String answer = answer(path, moment);
      out.add(answer.contains("EXPIRED") ? "EXPIRED" : answer.substring(0, answer.indexOf('@')));
    }
    return out;
  }

  @Test
  void theBlocksTableListsTheBlocksOfKeptVersionsOnly() throws Exception {
    long gone = nn.writeFile("/t/f", 5);
    nn.advance(SECOND);
    long current = nn.writeFile("/t/f", 6);
    long untouched = nn.writeFile("/u/f", 7);
    nn.fs.history.setRetention(ADMIN, "/t", RetentionRule.parse("2s")).await();
    nn.advance(10 * SECOND);
    assertThat(nn.fs.blockRetention()).isSameAs(BlockRetention.NONE);
    nn.fs.collectHistory(null);
    BlockRetention table = nn.fs.blockRetention();
    assertThat(table.generation()).isGreaterThan(0);
    assertThat(table.nextBlockId()).isGreaterThan(untouched);
    assertThat(table.blocks()).doesNotContainKey(gone).containsKeys(current, untouched);
    MomentSet kept = table.blocks().get(current);
    assertThat(kept.floor()).isEqualTo(nn.now() - 2 * SECOND);
    assertThat(table.blocks().get(untouched).contains(nn.now() - 9 * SECOND)).isTrue();
    nn.restart();
    assertThat(nn.fs.blockRetention()).isEqualTo(table);
  }

  @Test
  void aPassFollowedByACheckpointLetsTheOldEditsGo() throws Exception {
    for (int i = 0; i < 50; i++) {
      nn.writeFile("/e/f" + i, i);
      nn.fs.directories.delete(ADMIN, "/e/f" + i, false).await();
    }
    nn.fs.history.setRetention(ADMIN, "/e", RetentionRule.parse("1s")).await();
    nn.fs.checkpoint();
    nn.advance(5 * SECOND);
    nn.fs.collectHistory(null);  // drops the 50 files and checkpoints
    try (var files = Files.list(dir.resolve("current"))) {
      assertThat(files.filter(f -> f.getFileName().toString().startsWith("fsimage_")).count()).isEqualTo(2);
    }
    long size = Files.size(newestImage());
    assertThat(nn.fs.inodeCount()).isEqualTo(2);  // the root and /e
    nn.restart();
    assertThat(nn.fs.inodeCount()).isEqualTo(2);
    assertThat(size).isLessThan(4096);
  }

  private Path newestImage() throws Exception {
    try (var files = Files.list(dir.resolve("current"))) {
      return files.filter(f -> f.getFileName().toString().startsWith("fsimage_")).sorted()
          .reduce((a, b) -> b).orElseThrow();
    }
  }

  @Test
  void passesRunBesideWritesAndReadsOfKeptMoments() throws Exception {
    runBesideWritesAndReads(nn);
  }

  /** The same with passes reading 3 units per read-lock hold: their cursors go on across the writer's changes. */
  @Test
  void passesInTinyStepsRunBesideWritesAndReadsOfKeptMoments() throws Exception {
    Configuration conf = NamesystemFixture.conf();
    conf.setInt(NameNodeConfigKeys.HISTORY_GC_BATCH_INODES_KEY, 3);
    try (NamesystemFixture small = new NamesystemFixture(dir.resolve("small"), conf)) {
      runBesideWritesAndReads(small);
      assertThat(small.fs.history.lastReadHolds().holds()).as("a pass read in many holds").isGreaterThan(10);
    }
  }

  /** A writer and a reader of a kept moment run while 20 passes run; every read answers as before. */
  private static void runBesideWritesAndReads(NamesystemFixture nn) throws Exception {
    nn.fs.history.setRetention(ADMIN, "/", RetentionRule.parse("3s")).await();
    nn.writeFile("/c/stable", 42);
    nn.advance(SECOND);
    long stable = nn.now();
    nn.advance(SECOND);  // reads at it need the clock past it
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch started = new CountDownLatch(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      // Each thread counts down once it did one round, so the passes below run beside both, however they are
      // scheduled.
      Future<Integer> writer = pool.submit(() -> {
        int writes = 0;
        do {
          nn.writeFile("/c/churn" + (writes % 7), writes);
          nn.fs.directories.delete(ADMIN, "/c/churn" + ((writes + 3) % 7), false).await();
          if (writes++ == 0) {
            started.countDown();
          }
        } while (!stop.get());
        return writes;
      });
      Future<Integer> reader = pool.submit(() -> {
        int reads = 0;
        do {
          assertThat(answer(nn, "/c/stable", stable)).startsWith("42@");
          if (reads++ == 0) {
            started.countDown();
          }
        } while (!stop.get());
        return reads;
      });
      if (!started.await(60, TimeUnit.SECONDS)) {
        writer.get(1, TimeUnit.SECONDS);  // a first round that failed: its cause
        reader.get(1, TimeUnit.SECONDS);
        throw new AssertionError("the writer and the reader not under way after 60 s");
      }
      for (int pass = 0; pass < 20; pass++) {
        nn.fs.collectHistory(null);
      }
      stop.set(true);
      assertThat(writer.get(30, TimeUnit.SECONDS)).isGreaterThan(0);
      assertThat(reader.get(30, TimeUnit.SECONDS)).isGreaterThan(0);
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
    assertThat(answer(nn, "/c/stable", stable)).startsWith("42@");
  }

  @Test
  void aCreateGoesOnWhileAPassIsHeldBetweenItsBatchesAndReplayDropsTheSame() throws Exception {
    Configuration conf = NamesystemFixture.conf();
    conf.setInt(NameNodeConfigKeys.HISTORY_GC_BATCH_INODES_KEY, 2);
    conf.setBoolean(NameNodeConfigKeys.HISTORY_GC_CHECKPOINT_KEY, false);  // replay goes through the batches
    try (NamesystemFixture batched = new NamesystemFixture(dir.resolve("batched"), conf)) {
      long[] moments = fourGenerationsKeepingThreeSeconds(batched);
      CountDownLatch held = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger batches = new AtomicInteger();
      batched.fs.history.setBatchHook(holdAt(2, batches, held, release));  // after the first batch was applied
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        Future<GcPass.Result> pass = pool.submit(() -> batched.fs.collectHistory(null));
        assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
        batched.writeFile("/b/created-during-the-pass", 99);  // would wait for the lock if the pass held it
        assertThat(pass.isDone()).isFalse();
        release.countDown();
        GcPass.Result result = pass.get(30, TimeUnit.SECONDS);
        assertThat(batches.get()).as("several batches and the last").isGreaterThan(3);
        assertThat(result.versionsDropped()).isGreaterThan(0);
        assertThat(result.inodesRemoved()).as("the replaced files").isGreaterThan(0);
      } finally {
        release.countDown();
        pool.shutdownNow();
      }
      List<String> after = answers(batched, moments);
      assertThat(after.subList(0, 8)).containsOnly("HISTORY_EXPIRED");
      assertThat(after.subList(12, 16)).doesNotContain("HISTORY_EXPIRED");
      assertThat(batched.fs.queries.getFileInfo(ADMIN, "/b/created-during-the-pass", TimeSpec.latest()).getLength())
          .isEqualTo(99);
      int inodes = batched.fs.inodeCount();
      batched.restart();
      assertThat(batched.fs.inodeCount()).isEqualTo(inodes);
      assertThat(answers(batched, moments)).isEqualTo(after);
    }
  }

  /** A hook that, on its {@code call}-th run, counts {@code held} down and waits for {@code release}. */
  private static Runnable holdAt(int call, AtomicInteger calls, CountDownLatch held, CountDownLatch release) {
    return () -> {
      if (calls.incrementAndGet() == call) {
        held.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
  }

  /**
   * Four generations of /b/d0..d3/f two seconds apart, then a rule keeping three seconds on /b; returns the moment
   * of each generation.
   */
  private static long[] fourGenerationsKeepingThreeSeconds(NamesystemFixture fixture) throws Exception {
    long[] moments = new long[4];
    for (int i = 0; i < moments.length; i++) {
      for (int f = 0; f < 4; f++) {
        fixture.writeFile("/b/d" + f + "/f", 10 * i + f);
      }
      fixture.advance(SECOND);
      moments[i] = fixture.now();
      fixture.advance(SECOND);
    }
    fixture.fs.history.setRetention(ADMIN, "/b", RetentionRule.parse("3s")).await();
    fixture.advance(SECOND);
    return moments;
  }

  /** What a status of each /b/dN/f answers at each moment, moment by moment. */
  private static List<String> answers(NamesystemFixture fixture, long[] moments) throws Exception {
    List<String> answers = new ArrayList<>();
    for (long moment : moments) {
      for (int f = 0; f < 4; f++) {
        answers.add(answer(fixture, "/b/d" + f + "/f", moment));
      }
    }
    return answers;
  }

  /**
   * A pass reads the namespace for its plan a few inodes at a time under the read lock: held by a latch in the middle
   * of its plan, it lets a create (in a directory not read yet), a rename and a read of a kept moment go on, and then
   * drops what the same pass without them drops.
   */
  @Test
  void aCreateARenameAndAReadGoOnWhileAPassIsPlanningAndItDropsTheSame() throws Exception {
    Configuration conf = NamesystemFixture.conf();
    conf.setInt(NameNodeConfigKeys.HISTORY_GC_BATCH_INODES_KEY, 2);
    List<String> reference;
    try (NamesystemFixture quiet = new NamesystemFixture(dir.resolve("quiet"), conf)) {
      long[] moments = fourGenerationsKeepingThreeSeconds(quiet);
      assertThat(quiet.fs.collectHistory(null).versionsDropped()).isGreaterThan(0);
      reference = answers(quiet, moments);
    }
    try (NamesystemFixture planned = new NamesystemFixture(dir.resolve("planned"), conf)) {
      long[] moments = fourGenerationsKeepingThreeSeconds(planned);
      int inodes = planned.fs.inodeCount();
      CountDownLatch held = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger steps = new AtomicInteger();
      planned.fs.history.setPlanHook(holdAt(3, steps, held, release));  // two steps of its reading done
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        Future<GcPass.Result> pass = pool.submit(() -> planned.fs.collectHistory(null));
        assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
        // On a thread of its own: were the plan holding the lock, the wait below would fail, not hang.
        Future<String> beside = pool.submit(() -> {
          planned.writeFile("/b/d3/created-during-the-plan", 99);
          planned.fs.directories.rename(ADMIN, "/b/d2/f", "/b/d3/renamed-during-the-plan").await();
          return answer(planned, "/b/d3/f", moments[3]);
        });
        assertThat(beside.get(30, TimeUnit.SECONDS)).as("a kept moment read while the plan is held").startsWith("33@");
        assertThat(pass.isDone()).as("still held in its plan").isFalse();
        release.countDown();
        assertThat(pass.get(30, TimeUnit.SECONDS).versionsDropped()).isGreaterThan(0);
        assertThat(steps.get()).as("the plan read the namespace in several steps").isGreaterThan(5);
        HistoryOps.ReadHolds holds = planned.fs.history.lastReadHolds();
        assertThat(holds.largest()).as("a hold visits 2 units and at most one name's entries").isLessThan(2 + 8);
        assertThat(holds.units()).as("each inode listed, read and checked").isGreaterThan(3L * inodes);
        assertThat(holds.holds()).isEqualTo(steps.get());
      } finally {
        release.countDown();
        pool.shutdownNow();
      }
      assertThat(answers(planned, moments)).isEqualTo(reference);
      assertThat(planned.fs.queries.getFileInfo(ADMIN, "/b/d3/created-during-the-plan", TimeSpec.latest())
          .getLength()).isEqualTo(99);
      assertThat(planned.fs.queries.getFileInfo(ADMIN, "/b/d3/renamed-during-the-plan", TimeSpec.latest())
          .getLength()).isEqualTo(32);
    }
  }

  private static String answer(NamesystemFixture fixture, String path, long micros) throws Exception {
    try {
      FileStatusProto status = fixture.fs.queries.getFileInfo(ADMIN, path, TimeSpec.system(micros));
      return status == null ? "none" : status.getLength() + "@" + status.getInodeId();
    } catch (FffsException e) {
      return e.code().name();
    }
  }

  /**
   * A batch is cut by the work applying it goes through, not by its inodes alone: 30 files of 3 versions each with a
   * budget of 8 units take two files a batch, where 8 inodes a batch would take 4 batches.
   */
  @Test
  void aBatchGoesThroughAboutItsBudgetOfUnits() throws Exception {
    Configuration conf = NamesystemFixture.conf();
    conf.setInt(NameNodeConfigKeys.HISTORY_GC_BATCH_INODES_KEY, 8);
    try (NamesystemFixture small = new NamesystemFixture(dir.resolve("units"), conf)) {
      for (int i = 0; i < 30; i++) {
        small.writeFile("/w/f" + i, i);
      }
      small.fs.history.setRetention(ADMIN, "/w", RetentionRule.parse("1s")).await();
      small.advance(5 * SECOND);
      AtomicInteger batches = new AtomicInteger();
      small.fs.history.setBatchHook(batches::incrementAndGet);
      assertThat(small.fs.collectHistory(null).versionsDropped()).isGreaterThan(30);
      assertThat(batches.get()).as("keeping batches of two files, and the removing one").isGreaterThanOrEqualTo(15);
    }
  }

  @Test
  void onlyTheSuperuserRunsAPass() {
    assertThatThrownBy(() -> nn.fs.collectHistory(NamesystemFixture.ALICE))
        .satisfies(e -> assertThat(((FffsException) e).code()).isEqualTo(ErrorCode.ACCESS_DENIED));
  }
}
