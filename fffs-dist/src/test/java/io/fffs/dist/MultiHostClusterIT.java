package io.fffs.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeConfigKeys;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.jupiter.api.io.TempDir;

/**
 * FFFS on several hosts: a NameNode and four DataNodes, each in its own network namespace with its own address on
 * one bridge, started with {@code bin/fffs --daemon} from the unpacked tarball (dev-support/cluster-test.sh runs
 * this alone). From the host namespace: temporal and random-write behaviour, FsShell and {@code bin/fffs admin};
 * then faults — a DataNode's link cut mid-write, a DataNode killed with -9, the NameNode restarted, a DataNode's
 * clock moved 2 s ahead (libfaketime) — after which nothing acknowledged is lost, past reads are unchanged, and the
 * skewed DataNode is reported unhealthy, given no writes, read last, and its clock not taken in by a client that
 * reads from it. Runs when this machine allows network namespaces (root
 * and {@code ip netns}), else is skipped saying why.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiHostClusterIT {
  private static final int DATANODES = 4;
  private static final int SKEWED = 4;

  private java.nio.file.Path work;
  /** The offset libfaketime gives the skewed DataNode's clock, re-read every second. */
  private java.nio.file.Path skewedClock;

  private java.nio.file.Path home;
  private NetnsCluster cluster;
  private FreezeFrameFileSystem fs;
  /** Every file written and acknowledged, with its bytes now. */
  private final Map<Path, byte[]> acknowledged = new LinkedHashMap<>();
  private TimeSpec beforeOverwrite;
  private byte[] firstVersion;

  /** A failed test prints the end of every daemon's log, which goes with the test's directory. */
  @RegisterExtension
  final TestWatcher logsOnFailure = new TestWatcher() {
    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
      if (cluster != null) {
        System.out.println(context.getDisplayName() + " failed; the daemons' logs end with:\n"
            + cluster.logTails(300));
      }
    }
  };

  @BeforeAll
  void startCluster(@TempDir java.nio.file.Path dir) throws Exception {
    work = dir;
    String unavailable = NetnsCluster.unavailableReason();
    assumeTrue(unavailable == null, () -> "multi-host test skipped: " + unavailable);
    home = Tarball.unpack(work);
    cluster = NetnsCluster.create(home, work.resolve("nodes"), DATANODES);
    Tarball.Result nameNode = cluster.daemon(0, "start");
    assertThat(nameNode.exit()).as(nameNode.output()).isZero();
    skewedClock = Files.writeString(work.resolve("skewed-clock"), "+0s\n");
    ExecutorService starters = Executors.newFixedThreadPool(DATANODES);
    try {
      List<Future<Tarball.Result>> started = new ArrayList<>();
      for (int node = 1; node <= DATANODES; node++) {
        int n = node;
        // The last DataNode runs on the true clock, taking replicas like the others, until the skew test moves it
        // 2 s ahead through the file libfaketime reads (the library itself: the faketime wrapper waits for every
        // process it started to end).
        Map<String, String> clock = n == SKEWED && libfaketime() != null ? Map.of("LD_PRELOAD",
            libfaketime().toString(), "FAKETIME_TIMESTAMP_FILE", skewedClock.toString(), "FAKETIME_CACHE_DURATION",
            "1", "FAKETIME_DONT_FAKE_MONOTONIC", "1") : Map.of();
        started.add(starters.submit(() -> cluster.daemon(n, "start", List.of(), clock)));
      }
      for (Future<Tarball.Result> result : started) {
        assertThat(result.get().exit()).as(result.get().output()).isZero();
      }
    } finally {
      starters.shutdown();
    }
    Configuration conf = new Configuration();
    conf.set("fs.defaultFS", cluster.nameNodeUri());
    conf.set("fffs.client.connect.timeout", "5s");
    // Long enough for a loaded CI machine, short enough that a cut link costs the test little.
    conf.set("fffs.client.response.timeout", "10s");
    conf.setBoolean("fs.fffs.impl.disable.cache", true);
    fs = (FreezeFrameFileSystem) FileSystem.get(URI.create(cluster.nameNodeUri()), conf);
    admin("-safemode", "wait");
  }

  @AfterAll
  void stopCluster() throws IOException {
    try {
      if (fs != null) {
        fs.close();
      }
    } finally {
      if (cluster != null) {
        cluster.close();
      }
    }
  }

  private String admin(String... args) throws Exception {
    return cluster.admin(args);
  }

  private byte[] read(Path file, TimeSpec time) throws IOException {
    return FileContents.read(fs, file, time);
  }

  private static byte[] bytes(int size, int seed) {
    return FileContents.bytes(size, seed);
  }

  private void write(Path file, byte[] data) throws IOException {
    try (FSDataOutputStream out = fs.create(file, true)) {
      out.write(data);
    }
    acknowledged.put(file, data);
  }

  private void assertNothingAcknowledgedIsLost() throws IOException {
    for (Map.Entry<Path, byte[]> file : acknowledged.entrySet()) {
      assertThat(read(file.getKey(), null)).as("%s", file.getKey()).isEqualTo(file.getValue());
    }
    assertThat(read(new Path("/temporal/f"), beforeOverwrite)).as("the past is unchanged").isEqualTo(firstVersion);
  }

  @Test
  @Order(1)
  void addressesAreAdvertisedAndTheClusterServesTemporalAndRandomWrites() throws Exception {
    String report = admin("-report");
    assertThat(report).contains("Live datanodes (" + DATANODES + "):");
    for (int node = 1; node <= DATANODES; node++) {
      assertThat(report).contains("Name: " + cluster.ip(node) + ":" + NetnsCluster.DN_PORT)
          .contains("HTTP: http://" + cluster.ip(node) + ":" + NetnsCluster.HTTP_PORT + "/");
    }
    try (InputStream in = URI.create("http://" + cluster.ip(1) + ":" + NetnsCluster.HTTP_PORT + "/status").toURL()
        .openStream()) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).contains("\"registered\":true");
    }

    firstVersion = bytes(300_000, 1);
    write(new Path("/temporal/f"), firstVersion);
    HlcTimestamp between = fs.currentTime();
    beforeOverwrite = TimeSpec.system(between.physicalMicros());
    Thread.sleep(5);
    write(new Path("/temporal/f"), bytes(200_000, 2));
    assertThat(read(new Path("/temporal/f"), beforeOverwrite)).isEqualTo(firstVersion);
    assertThat(fs.listStatus(new Path("/temporal"), beforeOverwrite)[0].getLen()).isEqualTo(300_000);

    // A write in place: the new state has the patch, the state before it has not.
    byte[] patched = bytes(200_000, 2);
    HlcTimestamp beforePatch = fs.currentTime();
    Thread.sleep(5);
    try (FffsDataOutputStream out = fs.openForWrite(new Path("/temporal/f"))) {
      out.seek(1000);
      out.write(new byte[] {1, 2, 3, 4});
    }
    System.arraycopy(new byte[] {1, 2, 3, 4}, 0, patched, 1000, 4);
    acknowledged.put(new Path("/temporal/f"), patched);
    assertThat(read(new Path("/temporal/f"), null)).isEqualTo(patched);
    assertThat(read(new Path("/temporal/f"), TimeSpec.system(beforePatch.physicalMicros())))
        .isEqualTo(bytes(200_000, 2));

    // FsShell from the tarball, the past by its path marker.
    java.nio.file.Path local = work.resolve("shell.txt");
    Files.writeString(local, "from the shell\n");
    Map<String, String> env = Map.of("JAVA_HOME", System.getProperty("java.home"));
    assertThat(Tarball.run(home, env, List.of(), 120, "dfs", "-put", local.toString(), "/shell.txt", "-D",
        "fs.defaultFS=" + cluster.nameNodeUri()).exit()).isZero();
    Tarball.Result past = Tarball.run(home, env, List.of(), 120, "dfs", "-stat", "%b",
        "/temporal/f@s" + beforeOverwrite.micros() / 1000 + "." + String.format("%03d",
            beforeOverwrite.micros() % 1000), "-D", "fs.defaultFS=" + cluster.nameNodeUri());
    assertThat(past.exit()).as(past.output()).isZero();
    assertThat(past.output()).as("the size of the past state").containsPattern("(?m)^300000$");
    acknowledged.put(new Path("/shell.txt"), "from the shell\n".getBytes(StandardCharsets.UTF_8));
    assertNothingAcknowledgedIsLost();
  }

  @Test
  @Order(2)
  void aLinkCutMidWriteLosesNothingAcknowledged() throws Exception {
    Path file = new Path("/faults/link");
    byte[] data = bytes(400_000, 3);
    int cut;
    try (FSDataOutputStream out = fs.create(file, true)) {
      out.write(data, 0, 200_000);
      out.hflush();
      FileStatus open = fs.getFileStatus(file);
      BlockLocation[] locations = fs.getFileBlockLocations(open, 0, Math.max(1, open.getLen()));
      String[] names = locations[locations.length - 1].getNames();
      assertThat(names).as("a replicated block").hasSizeGreaterThan(1);
      String follower = names[names.length - 1];
      cut = nodeOf(follower);
      cluster.link(cut, false);
      try {
        out.write(data, 200_000, 200_000);
        out.hflush();
        out.close();
      } finally {
        cluster.link(cut, true);  // also when the write failed: the tests after this one need the link
      }
    }
    acknowledged.put(file, data);
    assertNothingAcknowledgedIsLost();
  }

  private int nodeOf(String hostPort) {
    for (int node = 1; node <= DATANODES; node++) {
      if (hostPort.startsWith(cluster.ip(node) + ":")) {
        return node;
      }
    }
    throw new AssertionError("no DataNode at " + hostPort);
  }

  @Test
  @Order(3)
  void aDataNodeKilledWithSigkillLosesNothingAcknowledged() throws Exception {
    long pid = cluster.pid(2);
    ProcessHandle.of(pid).orElseThrow().destroyForcibly();
    ProcessHandle.of(pid).ifPresent(p -> p.onExit().join());
    assertNothingAcknowledgedIsLost();
    awaitStatus(2, "\"live\":false");
    write(new Path("/faults/after-kill"), bytes(100_000, 4));
    Tarball.Result restarted = cluster.daemon(2, "start");
    assertThat(restarted.exit()).as("a stale pid file does not stop a start: %s", restarted.output()).isZero();
    assertNothingAcknowledgedIsLost();
  }

  /**
   * Waits until DataNode {@code node}'s entry in the NameNode's /status contains {@code field} (e.g. live); returns
   * the entry.
   */
  private String awaitStatus(int node, String field) throws Exception {
    String address = "\"address\":\"" + cluster.ip(node) + ":" + NetnsCluster.DN_PORT + "\"";
    String status = null;
    // A deadline, not a count: on a loaded machine a NameNode restarted by an earlier test can take a minute to
    // answer, and each unanswered poll takes its own timeouts.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      status = cluster.nameNodeStatus(0);
      if (status != null) {
        int at = status.indexOf(address);
        if (at >= 0 && status.substring(at, status.indexOf('}', at)).contains(field)) {
          return status.substring(at, status.indexOf('}', at));
        }
      }
      Thread.sleep(100);
    }
    if (status == null) {
      throw new IOException("the NameNode's /status did not answer for 120 s");
    }
    throw new AssertionError("DataNode " + node + " never showed " + field + ": " + status);
  }

  private static long number(String json, String field) {
    java.util.regex.Matcher value = java.util.regex.Pattern.compile("\"" + field + "\":(-?\\d+)").matcher(json);
    assertThat(value.find()).as("%s in %s", field, json).isTrue();
    return Long.parseLong(value.group(1));
  }

  @Test
  @Order(4)
  void aRestartedNameNodeKeepsEverything() throws Exception {
    assertThat(cluster.daemon(0, "stop").output()).contains("stopped namenode");
    Tarball.Result started = cluster.daemon(0, "start");
    assertThat(started.exit()).as(started.output()).isZero();
    admin("-safemode", "wait");
    assertNothingAcknowledgedIsLost();
    write(new Path("/faults/after-restart"), bytes(100_000, 5));
  }

  private static java.nio.file.Path libfaketime() throws IOException {
    try (var dirs = Files.newDirectoryStream(java.nio.file.Path.of("/usr/lib"))) {
      for (java.nio.file.Path dir : dirs) {
        java.nio.file.Path library = dir.resolve("faketime/libfaketime.so.1");
        if (Files.isRegularFile(library)) {
          return library;
        }
      }
    }
    return null;
  }

  @Test
  @Order(5)
  void aDataNodeBeyondTheMaxOffsetIsUnhealthyAndGetsNoWrites() throws Exception {
    java.nio.file.Path libfaketime = libfaketime();
    assumeTrue(libfaketime != null, "clock-skew part skipped: no libfaketime.so.1 under /usr/lib/*/faketime"
        + " (Debian package faketime; dev-support/test.sh installs it)");
    int skewed = SKEWED;
    Files.writeString(skewedClock, "+2s\n");
    String node = awaitStatus(skewed, "\"healthy\":false");
    assertThat(node).contains("ahead");
    // The offset the NameNode judges by is past the max offset (judged as the step is taken in, it has read as
    // little as 0.98 s of the 2 s under load), and the DataNode's own estimate, once one came back quickly enough to
    // judge by, is the 2 s it was skewed by, within its own error bound.
    assertThat(number(node, "clockOffsetMicros")).isGreaterThan(TimeConfigKeys.MAX_OFFSET_DEFAULT_MILLIS * 1_000);
    // The DataNode's own estimate follows the step once the samples from before it left its filter's window
    // (eight heartbeats of 500 ms), which may be after the NameNode judged it.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    long error = number(node, "offsetErrorMicros");
    while (error >= 0 && Math.abs(number(node, "measuredOffsetMicros") - 2_000_000L) > error + 1_000
        && System.nanoTime() < deadline) {
      Thread.sleep(200);
      node = awaitStatus(skewed, "\"healthy\":false");
      error = number(node, "offsetErrorMicros");
    }
    if (error >= 0) {
      assertThat(number(node, "measuredOffsetMicros")).isCloseTo(2_000_000L,
          org.assertj.core.data.Offset.offset(error + 1_000));
    }
    String skewedName = cluster.ip(skewed) + ":";
    int heldBySkewed = 0;
    for (Path file : acknowledged.keySet()) {
      FileStatus status = fs.getFileStatus(file);
      for (BlockLocation location : fs.getFileBlockLocations(status, 0, Math.max(1, status.getLen()))) {
        String[] names = location.getNames();
        for (int i = 0; i < names.length - 1; i++) {
          assertThat(names[i]).as("%s: the unhealthy DataNode is read last", file).doesNotStartWith(skewedName);
        }
        heldBySkewed += names.length > 1 && names[names.length - 1].startsWith(skewedName) ? 1 : 0;
      }
    }
    assertThat(heldBySkewed).as("blocks written before the skew with a replica on it").isPositive();
    assertSkewedReplicaServesWithoutDraggingTheClock(skewed);
    assertNothingAcknowledgedIsLost();

    write(new Path("/skew/f"), bytes(50_000, 10));
    FileStatus status = fs.getFileStatus(new Path("/skew/f"));
    for (BlockLocation location : fs.getFileBlockLocations(status, 0, status.getLen())) {
      assertThat(location.getNames()).as("no new block on it").noneMatch(name -> name.startsWith(skewedName));
    }
    assertNothingAcknowledgedIsLost();
  }

  /**
   * Reads a replica straight from the skewed DataNode with a client clock of its own: the bytes are the file's, and
   * the client's clock stays within the max offset of the true time (taking in the DataNode's would put it 2 s ahead,
   * and the NameNode and healthy DataNodes would refuse the client's changes).
   */
  private void assertSkewedReplicaServesWithoutDraggingTheClock(int skewed) throws Exception {
    Configuration conf = new Configuration();
    HybridLogicalClock clock = new HybridLogicalClock(PhysicalClock.system(), conf);
    URI nameNode = URI.create(cluster.nameNodeUri());
    try (NamenodeClient nn = NamenodeClient.connect(new InetSocketAddress(nameNode.getHost(), nameNode.getPort()),
            conf, clock);
        DataTransferClient data = DataTransferClients.tcp(conf, clock)) {
      for (Map.Entry<Path, byte[]> file : acknowledged.entrySet()) {
        for (LocatedBlockProto block : nn.getBlockLocations(file.getKey().toUri().getPath(), TimeSpec.latest(), 0,
            Long.MAX_VALUE).getBlocksList()) {
          for (DatanodeIdProto replica : block.getLocationsList()) {
            if (!replica.getHost().equals(cluster.ip(skewed))) {
              continue;
            }
            ByteBuffer dst = ByteBuffer.allocate((int) block.getBlock().getNumBytes());
            data.read(replica, block.getBlock().getBlockId(),
                block.hasToken() ? BlockToken.fromProto(block.getToken()) : null, 0, dst, TimeSpec.latest());
            int from = (int) block.getOffset();
            assertThat(dst.array()).as("%s read from the skewed DataNode", file.getKey())
                .isEqualTo(Arrays.copyOfRange(file.getValue(), from, from + dst.capacity()));
            assertThat(clock.last().physicalMicros() - PhysicalClock.system().currentTimeMicros())
                .as("the client's clock was not dragged ahead").isLessThan(clock.maxOffsetMicros());
            assertThat(data.skewedAhead(replica)).as("remembered, so its replicas are read last").isTrue();
            return;
          }
        }
      }
    }
    throw new AssertionError("no block with a replica on the skewed DataNode");
  }
}
