package io.fffs.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.GetListingResponseProto;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three HA NameNodes and two DataNodes, each in its own network namespace ({@link NetnsCluster}), started with
 * {@code bin/fffs --daemon} from the tarball. The leader's link is cut while a client beside it (in its namespace,
 * {@link PartitionedClient}) sends it changes: none is acknowledged, and none is ever applied; the other two elect a
 * leader and the cluster's clients and DataNodes go on with it; once the link is back the old leader follows the new
 * one, holds the same log, and answers past reads exactly as the new leader does. Then the new leader is cut off
 * without a change of its own: once the other two made a change, a client beside it asks it for the latest state and
 * never gets the answer without that change (refused with {@code NOT_LEADER}; its {@code /status} says follower).
 * Runs when this machine allows network namespaces (root and {@code ip netns}), else is skipped saying why.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HaPartitionIT {
  private static final int NAMENODES = 3;
  private static final int DATANODES = 2;
  private static final Pattern ROLE = Pattern.compile("\"haRole\"\\s*:\\s*\"(\\w+)\"");
  private static final Pattern LEADER = Pattern.compile("\"haLeader\"\\s*:\\s*\"(\\w+)\"");
  private static final Pattern LAST_TXID = Pattern.compile("\"lastTxid\"\\s*:\\s*(\\d+)");

  private java.nio.file.Path work;
  private NetnsCluster cluster;
  private FreezeFrameFileSystem fs;

  @BeforeAll
  void startCluster(@TempDir java.nio.file.Path dir) throws Exception {
    work = dir;
    String unavailable = NetnsCluster.unavailableReason();
    assumeTrue(unavailable == null, () -> "HA partition test skipped: " + unavailable);
    java.nio.file.Path home = Tarball.unpack(work);
    cluster = NetnsCluster.create(home, work.resolve("nodes"), NAMENODES, DATANODES);
    // The NameNodes start together: a NameNode serves once a leader is elected, which takes a majority.
    startAll(0, NAMENODES);
    startAll(NAMENODES, NAMENODES + DATANODES);
    Configuration conf = new Configuration();
    for (String setting : cluster.haSettings()) {
      conf.set(setting.substring(0, setting.indexOf('=')), setting.substring(setting.indexOf('=') + 1));
    }
    conf.set("fs.defaultFS", cluster.nameNodeUri());
    conf.set("fffs.client.connect.timeout", "2s");
    conf.set("fffs.client.response.timeout", "10s");
    conf.set("fffs.client.failover.timeout", "60s");
    conf.setBoolean("fs.fffs.impl.disable.cache", true);
    fs = (FreezeFrameFileSystem) FileSystem.get(URI.create(cluster.nameNodeUri()), conf);
    cluster.admin("-safemode", "wait");
  }

  private void startAll(int from, int to) throws Exception {
    ExecutorService starters = Executors.newFixedThreadPool(to - from);
    try {
      List<Future<Tarball.Result>> started = new ArrayList<>();
      for (int node = from; node < to; node++) {
        int n = node;
        started.add(starters.submit(() -> cluster.daemon(n, "start")));
      }
      for (Future<Tarball.Result> result : started) {
        assertThat(result.get().exit()).as(result.get().output()).isZero();
      }
    } finally {
      starters.shutdown();
    }
  }

  @AfterAll
  void stopCluster() {
    org.apache.hadoop.io.IOUtils.closeStream(fs);  // null-safe; a failure is logged and the cluster still goes
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aPartitionedLeaderAcknowledgesNothingAndRejoinsWithTheSameHistory() throws Exception {
    byte[] first = bytes(100_000, 1);
    write(new Path("/h/f"), first);
    TimeSpec beforeOverwrite = TimeSpec.system(fs.currentTime().physicalMicros());
    Thread.sleep(5);
    write(new Path("/h/f"), bytes(50_000, 2));
    fs.mkdirs(new Path("/h/d"));
    int leader = awaitLeader(-1);

    Process partitioned = startPartitionedClient(leader, "/partitioned/first", "/partitioned/second");
    try {
      cluster.link(leader, false);
      long cut = System.nanoTime();
      try (OutputStream go = partitioned.getOutputStream()) {
        go.write("go\n".getBytes(StandardCharsets.UTF_8));
      }
      // The cluster's clients go on with the other two NameNodes.
      try {
        fs.mkdirs(new Path("/h/after-cut"));
      } catch (IOException e) {
        throw new AssertionError("the majority's first change after nn" + (leader + 1) + " was cut off failed "
            + (System.nanoTime() - cut) / 1_000_000 + " ms after the cut; what each NameNode answers now:\n"
            + NameNodeAnswers.describe(cluster, NAMENODES, "/h/after-cut"), e);
      }
      long failoverMs = (System.nanoTime() - cut) / 1_000_000;
      byte[] during = bytes(80_000, 3);
      write(new Path("/h/g"), during);
      int newLeader = awaitLeader(leader);  // one of the majority side
      System.out.printf("leader nn%d cut off: first change acknowledged by the majority after %d ms%n", leader + 1,
          failoverMs);

      assertThat(partitioned.waitFor(90, TimeUnit.SECONDS)).as("the partitioned client finished").isTrue();
      String answers = new String(partitioned.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      System.out.print("partitioned client: " + answers);
      assertThat(answers).as("nothing is acknowledged across the partition")
          .doesNotContainPattern("(?m)^acknowledged ").contains("refused /partitioned/first").contains("refused /partitioned/second");
      for (String line : answers.strip().split("\n")) {
        assertThat(line).as("refused as not the leader, or timed out")
            .containsPattern("NOT_LEADER|[Tt]imeout|timed out");
      }

      TimeSpec duringPartition = TimeSpec.system(fs.currentTime().physicalMicros());
      Thread.sleep(5);
      assertThat(fs.delete(new Path("/h/d"), true)).isTrue();
      // Before the last change, so below the frontier of every NameNode that applied it.
      TimeSpec beforeHeal = TimeSpec.system(fs.currentTime().physicalMicros());
      Thread.sleep(5);

      cluster.link(leader, true);
      fs.mkdirs(new Path("/healed"));
      long target = lastTxid(newLeader);
      awaitFollowing(leader, target);
      for (String path : List.of("/partitioned", "/partitioned/first", "/partitioned/second")) {
        assertThat(fs.exists(new Path(path))).as("%s was never applied", path).isFalse();
      }
      assertThat(read(new Path("/h/f"), beforeOverwrite)).isEqualTo(first);
      assertThat(read(new Path("/h/g"), null)).isEqualTo(during);
      assertSamePast(leader, newLeader, List.of(beforeOverwrite, duringPartition, beforeHeal));
      aCutLeaderNeverAnswersTheLatestStateWithoutTheMajoritysChange(newLeader);
    } finally {
      partitioned.destroyForcibly();
      cluster.link(leader, true);
    }
  }

  /**
   * The leader cut off again, this time holding no change of its own (so it does not reload and goes on as it was):
   * once the other two made a change, a client beside it asks it for the latest state and never gets the answer
   * without that change: it refuses the latest state once its read lease ran out, and says follower once Raft
   * stepped it down.
   */
  private void aCutLeaderNeverAnswersTheLatestStateWithoutTheMajoritysChange(int leader) throws Exception {
    Process reader = startPartitionedClient(leader, "--read", "/h/second-cut",
        String.valueOf(NetnsCluster.NN_HTTP_PORT));
    try (OutputStream control = reader.getOutputStream()) {
      cluster.link(leader, false);
      control.write("go\n".getBytes(StandardCharsets.UTF_8));
      control.flush();
      fs.mkdirs(new Path("/h/second-cut"));
      control.write("read\n".getBytes(StandardCharsets.UTF_8));
      control.flush();
      assertThat(reader.waitFor(90, TimeUnit.SECONDS)).as("the reader beside the cut leader finished").isTrue();
      String answers = new String(reader.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      System.out.print("reader beside the cut leader: " + answers);
      assertThat(answers).as("never the latest state without the majority's change")
          .doesNotContainPattern("(?m)^answered .* absent$")
          .containsPattern("(?m)^(refused|answered) status /h/second-cut ")
          .containsPattern("(?m)^(refused|answered) listing /h ")
          .containsPattern("(?m)^(refused|answered) present-time status /h/second-cut ")
          .as("the cut leader no longer says it leads").containsPattern("(?m)^role follower$");
      for (String line : answers.strip().split("\n")) {
        assertThat(line).as("refused as not the leader, or timed out; or the new answer")
            .containsPattern("NOT_LEADER|[Tt]imeout|timed out|^role |^answered .* present$");
      }
    } finally {
      reader.destroyForcibly();
      cluster.link(leader, true);
    }
  }

  /** {@link PartitionedClient} inside {@code leader}'s namespace with {@code args}, connected, waiting for its go. */
  private Process startPartitionedClient(int leader, String... args) throws Exception {
    List<String> command = cluster.inside(leader);
    command.addAll(List.of(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx128m", "-cp", System.getProperty("java.class.path"), PartitionedClient.class.getName(),
        cluster.ip(leader), String.valueOf(NetnsCluster.NN_PORT)));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command)
        .redirectError(ProcessBuilder.Redirect.appendTo(work.resolve("partitioned-client.err").toFile())).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String ready = CompletableFuture.supplyAsync(() -> {
      try {
        return out.readLine();
      } catch (IOException e) {
        return e.toString();
      }
    }).get(120, TimeUnit.SECONDS);
    assertThat(ready).as("the partitioned client connected").isEqualTo("ready");
    return process;
  }

  /** Waits until a NameNode other than {@code not} says it leads; returns it. */
  private int awaitLeader(int not) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      for (int node = 0; node < NAMENODES; node++) {
        String status = node == not ? null : cluster.nameNodeStatus(node);
        if (status != null && "leader".equals(field(ROLE, status))) {
          return node;
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no NameNode leads; what each NameNode answers now:\n"
        + NameNodeAnswers.describe(cluster, NAMENODES, "/h/no-leader"));
  }

  private long lastTxid(int node) {
    String status = cluster.nameNodeStatus(node);
    String txid = status == null ? null : field(LAST_TXID, status);
    return txid == null ? -1 : Long.parseLong(txid);
  }

  /** Waits until {@code node} follows another NameNode and has applied {@code target}. */
  private void awaitFollowing(int node, long target) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String status = null;
    while (System.nanoTime() < deadline) {
      status = cluster.nameNodeStatus(node);
      if (status != null && "follower".equals(field(ROLE, status))
          && !("nn" + (node + 1)).equals(field(LEADER, status))
          && Long.parseLong(field(LAST_TXID, status)) >= target) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("nn" + (node + 1) + " did not follow and reach txid " + target + ": " + status);
  }

  private static String field(Pattern pattern, String json) {
    Matcher matched = pattern.matcher(json);
    return matched.find() ? matched.group(1) : null;
  }

  /**
   * The old leader, now a follower, answers listings at past times itself (its log covers them), and exactly as the
   * new leader does.
   */
  private void assertSamePast(int old, int current, List<TimeSpec> times) throws IOException {
    Configuration conf = new Configuration();
    HybridLogicalClock clock = new HybridLogicalClock(PhysicalClock.system(), conf);
    try (NamenodeClient follower = direct(old, conf, clock); NamenodeClient leader = direct(current, conf, clock)) {
      for (TimeSpec time : times) {
        for (String dir : List.of("/", "/h")) {
          // Everything but the answering NameNode's clock reading.
          GetListingResponseProto expected = leader.getListing(dir, time, "", 1000).toBuilder().clearHlc().buildPartial();
          assertThat(follower.getListing(dir, time, "", 1000).toBuilder().clearHlc().buildPartial())
              .as("%s at %s", dir, time).isEqualTo(expected);
        }
        assertThat(follower.getFileInfo("/partitioned", time)).as("never applied, at %s", time).isNull();
      }
    }
  }

  private NamenodeClient direct(int node, Configuration conf, HybridLogicalClock clock) throws IOException {
    return NamenodeClient.connect(new InetSocketAddress(cluster.ip(node), NetnsCluster.NN_PORT), conf, clock);
  }

  private void write(Path file, byte[] data) throws IOException {
    try (FSDataOutputStream out = fs.create(file, true, 4096, (short) DATANODES, 64L << 20)) {
      out.write(data);
    }
  }

  private byte[] read(Path file, TimeSpec time) throws IOException {
    return FileContents.read(fs, file, time);
  }

  private static byte[] bytes(int size, int seed) {
    return FileContents.bytes(size, seed);
  }
}
