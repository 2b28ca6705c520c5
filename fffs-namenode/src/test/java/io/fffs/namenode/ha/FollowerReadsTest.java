package io.fffs.namenode.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.ha.HaConfigKeys;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.GetListingResponseProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.VersionProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * Follower reads: a follower answers a query of a past system time that its applied log covers exactly as the
 * leader does, refuses (naming the leader) the times it has not applied and the latest state, and a client with
 * follower reads on gets the leader's answer whenever its follower lags.
 */
class FollowerReadsTest extends ThreeNameNodesTestBase {
  private static final String[] PATHS = {"/h", "/h/a", "/h/b", "/h/a/f0", "/h/a/f1", "/h/a/f2", "/h/b/f0",
      "/h/b/f1", "/h/b/f2", "/h/b/sub", "/h/b/sub/f0", "/h/missing"};
  private static final String[] DIRECTORIES = {"/", "/h", "/h/a", "/h/b", "/h/b/sub"};

  /** Creates, renames, deletes and permission changes under /h, in an order {@code random} picks. */
  private static void history(NamenodeClient client, Random random, int changes) throws IOException {
    client.mkdirs("/h/a", 0755, true);
    client.mkdirs("/h/b/sub", 0755, true);
    for (int i = 0; i < changes; i++) {
      String dirName = random.nextBoolean() ? "/h/a" : random.nextBoolean() ? "/h/b" : "/h/b/sub";
      String file = dirName + "/f" + random.nextInt(3);
      switch (random.nextInt(4)) {
        case 0 -> {
          client.create(file, 0644, "writer", true, true, 1, 1 << 20, null);
          client.complete(file, client.getFileInfo(file, TimeSpec.latest()).getInodeId(), "writer", null);
        }
        case 1 -> client.rename(file, (random.nextBoolean() ? "/h/a" : "/h/b") + "/f" + random.nextInt(3));
        case 2 -> client.delete(file, false);
        default -> client.setPermission(dirName, random.nextBoolean() ? 0755 : 0750);
      }
    }
  }

  private static void assertSameAnswers(NamenodeClient follower, NamenodeClient leader, TimeSpec time)
      throws IOException {
    for (String path : PATHS) {
      assertThat(follower.getFileInfo(path, time)).as("status of %s at %s", path, time)
          .isEqualTo(leader.getFileInfo(path, time));
    }
    for (String path : DIRECTORIES) {
      if (leader.getFileInfo(path, time) != null) {
        assertThat(listing(follower, path, time, "")).as("listing of %s at %s", path, time)
            .isEqualTo(listing(leader, path, time, ""));
        assertThat(listing(follower, path, time, "f0")).as("listing of %s after f0 at %s", path, time)
            .isEqualTo(listing(leader, path, time, "f0"));
        assertThat(follower.getContentSummary(path, time)).as("summary of %s at %s", path, time)
            .isEqualTo(leader.getContentSummary(path, time));
      }
    }
  }

  /** A page of two entries, without the answering NameNode's clock. */
  private static GetListingResponseProto listing(NamenodeClient client, String path, TimeSpec time,
      String startAfter) throws IOException {
    return client.getListing(path, time, startAfter, 2).toBuilder().clearHlc().buildPartial();
  }

  @Test
  void aFollowerAnswersEveryTimeItAppliedAsTheLeaderDoes() throws Exception {
    cluster = new ThreeNameNodes(dir).startAll();
    int leader = cluster.awaitLeader();
    int follower = (leader + 1) % ThreeNameNodes.COUNT;
    long seed = System.nanoTime();
    Random random = new Random(seed);
    long start;
    try (NamenodeClient writer = cluster.clusterClient()) {
      start = writer.currentTime().physicalMicros() - 1;
      history(writer, random, 60);
    }
    cluster.awaitApplied(follower, cluster.nameNodes[leader].namesystem().lastTxid());
    long frontier = cluster.nameNodes[follower].ha().committedFrontier().physicalMicros();

    try (NamenodeClient toFollower = cluster.client(follower); NamenodeClient toLeader = cluster.client(leader)) {
      // The moments the names changed, and a microsecond either side, are where a wrong frontier would show.
      List<Long> times = new ArrayList<>();
      for (String path : DIRECTORIES) {
        for (VersionProto version : toLeader.listVersions(path)) {
          long micros = HlcTimestamp.fromProto(version.getHlc()).physicalMicros();
          if (micros > 0) {  // the root's first version is stamped at the epoch
            times.add(micros - 1);
          }
          times.add(micros);
          times.add(micros + 1);
        }
      }
      java.util.Collections.shuffle(times, random);
      times = new ArrayList<>(times.subList(0, Math.min(45, times.size())));
      for (int i = 0; i < 45; i++) {
        times.add(start + (long) (random.nextDouble() * (frontier - start)));
      }
      long before = cluster.nameNodes[follower].ha().pastReadsServed();
      int asked = 0;
      for (long micros : times) {
        if (micros < frontier) {
          try {
            assertSameAnswers(toFollower, toLeader, TimeSpec.system(micros));
          } catch (AssertionError e) {
            throw new AssertionError("history of seed " + seed + ": " + e.getMessage(), e);
          }
          asked++;
        }
      }
      assertThat(asked).as("times below the frontier (seed %d)", seed).isGreaterThan(45);
      assertThat(cluster.nameNodes[follower].ha().pastReadsServed() - before).as("answered by the follower")
          .isGreaterThanOrEqualTo((long) asked * PATHS.length);

      // Its own frontier's microsecond, the present and the latest state are the leader's to answer.
      for (TimeSpec time : List.of(TimeSpec.system(frontier), TimeSpec.latest(),
          TimeSpec.system(toLeader.currentTime().physicalMicros()))) {
        assertThatThrownBy(() -> toFollower.getFileInfo("/h", time))
            .isInstanceOfSatisfying(FffsException.class, e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.NOT_LEADER);
              assertThat(e.getMessage()).contains("leader=nn" + (leader + 1));
            });
      }
      // Block locations come from the DataNodes, which report to the leader only.
      assertThatThrownBy(() -> toFollower.getBlockLocations("/h/a/f0", TimeSpec.system(frontier - 1), 0, 1))
          .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_LEADER));
    }
  }

  @Test
  void aClientReadsThePastFromItsFollowerAndTheLeaderWhenTheFollowerLags() throws Exception {
    cluster = new ThreeNameNodes(dir).startAll();
    int leader = cluster.awaitLeader();
    int follower = (leader + 1) % ThreeNameNodes.COUNT;
    HaNode followerHa = cluster.nameNodes[follower].ha();
    try (NamenodeClient client = cluster.clusterClient(HaConfigKeys.CLIENT_FOLLOWER_READS_KEY + "=true",
        HaConfigKeys.CLIENT_FOLLOWER_READS_NAMENODE_KEY + "=nn" + (follower + 1))) {
      client.mkdirs("/early", 0755, true);
      long afterEarly = client.currentTime().physicalMicros();
      client.mkdirs("/marker", 0755, true);
      cluster.awaitApplied(follower, cluster.nameNodes[leader].namesystem().lastTxid());
      long served = followerHa.pastReadsServed();
      assertThat(client.getFileInfo("/early", TimeSpec.system(afterEarly))).isNotNull();
      assertThat(followerHa.pastReadsServed()).as("served by the follower").isEqualTo(served + 1);

      // The follower stops applying the log (its namespace lock is held); the others go on.
      CountDownLatch stalled = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Thread staller = new Thread(() -> {
        try {
          cluster.nameNodes[follower].namesystem().whilePaused(() -> {
            stalled.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return null;
          });
        } catch (IOException | RuntimeException e) {
          throw new AssertionError(e);
        }
      });
      staller.start();
      stalled.await();
      try {
        client.mkdirs("/late", 0755, true);
        long afterLate = client.currentTime().physicalMicros();
        // The latest state is the leader's; so is a past time the follower has not applied yet.
        assertThat(client.getFileInfo("/late", TimeSpec.latest())).isNotNull();
        assertThat(client.getFileInfo("/late", TimeSpec.system(afterLate))).isNotNull();
        assertThat(client.getListing("/", TimeSpec.system(afterLate), "", 100).getEntriesList())
            .extracting(status -> status.getPath()).contains("/late");
        assertThat(followerHa.pastReadsServed()).as("nothing answered by the stalled follower")
            .isEqualTo(served + 1);
        try (NamenodeClient toFollower = cluster.client(follower)) {
          assertThatThrownBy(() -> toFollower.getFileInfo("/late", TimeSpec.latest()))
              .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_LEADER));
        }
        release.countDown();
        staller.join();
        cluster.awaitApplied(follower, cluster.nameNodes[leader].namesystem().lastTxid());
        client.mkdirs("/later", 0755, true);  // the frontier passes afterLate once an op stamped after it is applied
        cluster.awaitApplied(follower, cluster.nameNodes[leader].namesystem().lastTxid());
        assertThat(client.getFileInfo("/late", TimeSpec.system(afterLate))).isNotNull();
        assertThat(followerHa.pastReadsServed()).as("served by the follower again").isEqualTo(served + 2);
      } finally {
        release.countDown();
      }
    }
  }
}
