package io.fffs.minicluster.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.net.FreePorts;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.NodeProcess;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash consistency with real processes: a NameNode and a DataNode each in its own JVM; a writer appends with
 * {@code hsync} at random points; at random moments the NameNode or the DataNode is killed with SIGKILL and
 * restarted. Every hsync'd byte stays readable, every acknowledged namespace change is there, and every read at a
 * time at or before an hsync returns exactly what it returned before the crash. {@code FFFS_CRASH_ROUNDS} sets the
 * number of kills (CI runs a short loop; {@code dev-support/crash-loop.sh} runs the long one).
 */
class ProcessCrashTest {
  @TempDir
  Path base;

  /** What a test knows about one file: bytes hsync'd, and answers read at past times before any crash. */
  private static final class Written {
    final org.apache.hadoop.fs.Path path;
    byte[] synced = new byte[0];
    final List<long[]> answers = new ArrayList<>();  // {time µs, length read then}
    final List<byte[]> contents = new ArrayList<>();
    /** Whether a later round replaced the file: only its answers at past times are checked then. */
    boolean replaced;

    Written(org.apache.hadoop.fs.Path path) {
      this.path = path;
    }
  }

  private int rpcPort;
  private int httpPort;
  private Path log;
  /** Whether the nodes collect history: a short default rule, frequent passes, a slow cleaner often in flight. */
  private boolean collecting;

  private NodeProcess startNameNode() throws IOException {
    List<String> options = new ArrayList<>(List.of(
        "fffs.namenode.name.dir=" + base.resolve("name"),
        "fffs.namenode.rpc-address=127.0.0.1:" + rpcPort,
        "fffs.namenode.http-address=127.0.0.1:" + httpPort,
        "fffs.namenode.safemode.timeout=20s",
        "fffs.datanode.heartbeat.interval=200ms"));
    if (collecting) {
      options.addAll(List.of("fffs.history.retention.default=3s", "fffs.history.gc.interval=300ms"));
    }
    return NodeProcess.start("io.fffs.namenode.NameNodeMain", log, options.toArray(new String[0]));
  }

  private NodeProcess startDataNode(Path memory, int dataPort) throws IOException {
    List<String> options = new ArrayList<>(List.of(
        "fffs.namenode.rpc-address=127.0.0.1:" + rpcPort,
        "fffs.datanode.data.dir=" + base.resolve("data"),
        "fffs.datanode.memory.dir=" + memory,
        "fffs.datanode.memory.capacity=" + (64 << 20),
        "fffs.datanode.data-address=127.0.0.1:" + dataPort,
        "fffs.datanode.heartbeat.interval=200ms"));
    if (collecting) {
      options.addAll(List.of("fffs.datanode.retention.interval=300ms", "fffs.datanode.cleaner.interval=300ms",
          "fffs.datanode.segment.file.size=128k", "fffs.datanode.cleaner.bytes-per-second=1m"));
    }
    return NodeProcess.start("io.fffs.datanode.DataNodeMain", log, options.toArray(new String[0]));
  }

  @Test
  void hsyncedBytesAndAnsweredPastsSurviveKillNine() throws Exception {
    crashLoop(false);
  }

  /**
   * The same with history collected on both nodes (a 3 s default rule, passes every 300 ms) and the segment cleaner
   * copying slowly, so that kills land in passes and in cleaning: each file is replaced every round, every answered
   * past moment is pinned right after it is read, and must read the same after every kill.
   */
  @Test
  void pinnedPastsSurviveKillNineWhileHistoryIsCollectedAndCleaned() throws Exception {
    collecting = true;
    crashLoop(true);
  }

  private void crashLoop(boolean replaceFiles) throws Exception {
    int rounds = Integer.parseInt(System.getenv().getOrDefault("FFFS_CRASH_ROUNDS", "3"));
    int[] ports = FreePorts.pick(3);
    rpcPort = ports[0];
    httpPort = ports[1];
    int dataPort = ports[2];
    log = base.resolve("nodes.log");
    Path memory = Path.of("/dev/shm", "fffs-crash-" + ProcessHandle.current().pid());
    Random random = new Random(Long.getLong("fffs.crash.seed", 7));
    Configuration conf = new Configuration();
    conf.set("fs.defaultFS", "fffs://127.0.0.1:" + rpcPort);
    conf.setLong("fffs.blocksize", 256 * 1024);
    conf.setBoolean("fs.fffs.impl.disable.cache", true);
    List<Written> files = new ArrayList<>();
    NodeProcess nameNode = startNameNode();
    NodeProcess dataNode = startDataNode(memory, dataPort);
    try {
      for (int round = 0; round < rounds; round++) {
        Written file = new Written(new org.apache.hadoop.fs.Path("/crash/round-" + round));
        if (replaceFiles) {
          file = new Written(new org.apache.hadoop.fs.Path("/crash/file-" + round % 2));
          for (Written earlier : files) {
            earlier.replaced |= earlier.path.equals(file.path);  // its pinned pasts stay readable
          }
        }
        files.add(file);
        writeUntilCrash(conf, file, random);
        if (replaceFiles) {
          Thread.sleep(random.nextInt(1500));  // passes and cleaning run; the kill lands somewhere in them
        }
        // Alternate at first, so even the short CI loop kills both; then at random.
        boolean killNameNode = round < 2 ? round == 1 : random.nextBoolean();
        if (killNameNode) {
          nameNode.kill();
          nameNode = startNameNode();
        } else {
          dataNode.kill();
          dataNode = startDataNode(memory, dataPort);
        }
        verify(conf, files, "after killing the " + (killNameNode ? "NameNode" : "DataNode") + " in round " + round);
      }
    } finally {
      dataNode.close();
      nameNode.close();
      if (Files.exists(memory)) {
        try (var paths = Files.walk(memory)) {
          paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
  }

  /** Writes random chunks with hsync now and then; records what each hsync made durable and answers at times. */
  private void writeUntilCrash(Configuration conf, Written file, Random random) throws Exception {
    try (FreezeFrameFileSystem fs = (FreezeFrameFileSystem) FileSystem.newInstance(URI.create(
        conf.get("fs.defaultFS")), conf)) {
      FSDataOutputStream out = fs.create(file.path, true);
      byte[] content = new byte[0];
      int syncs = 2 + random.nextInt(4);
      for (int s = 0; s < syncs; s++) {
        byte[] chunk = new byte[1 + random.nextInt(150_000)];
        random.nextBytes(chunk);
        out.write(chunk);
        content = concat(content, chunk);
        out.hsync();
        file.synced = content;
        long at = settle(fs);
        byte[] asOf;
        try (FSDataInputStream in = fs.open(file.path, TimeSpec.system(at))) {
          asOf = in.readAllBytes();
        }
        assertThat(asOf).as("read at %d right after hsync %d", at, s).isEqualTo(content);
        if (collecting) {
          fs.pin(file.path, TimeSpec.system(at), "p" + at);  // else a 3 s rule collects it
        }
        file.answers.add(new long[] {at, asOf.length});
        file.contents.add(asOf);
      }
      // Unsynced bytes in flight when the crash comes: they may or may not survive, never half-visible in the past.
      out.write(new byte[1 + random.nextInt(50_000)]);
      out.hflush();
    }
  }

  private void verify(Configuration conf, List<Written> files, String when) throws Exception {
    try (FreezeFrameFileSystem fs = (FreezeFrameFileSystem) FileSystem.newInstance(URI.create(
        conf.get("fs.defaultFS")), conf)) {
      awaitReadable(fs, files.get(files.size() - 1).path, when);
      for (Written file : files) {
        assertThat(fs.exists(file.path)).as("%s exists %s", file.path, when).isTrue();
        if (file.replaced) {
          checkAnswers(fs, file, when);
          continue;
        }
        byte[] now;
        try (FSDataInputStream in = fs.open(file.path)) {
          now = in.readAllBytes();
        }
        assertThat(now.length).as("%s keeps its hsync'd bytes %s", file.path, when)
            .isGreaterThanOrEqualTo(file.synced.length);
        assertThat(Arrays.copyOf(now, file.synced.length)).as("%s hsync'd bytes %s", file.path, when)
            .isEqualTo(file.synced);
        checkAnswers(fs, file, when);
      }
    }
  }

  private static void checkAnswers(FreezeFrameFileSystem fs, Written file, String when) throws IOException {
    for (int i = 0; i < file.answers.size(); i++) {
      long at = file.answers.get(i)[0];
      try (FSDataInputStream in = fs.open(file.path, TimeSpec.system(at))) {
        assertThat(in.readAllBytes()).as("%s at %d %s", file.path, at, when).isEqualTo(file.contents.get(i));
      }
    }
  }

  /** After a restart the NameNode may sit in safe mode and the DataNode re-register: wait until reads work. */
  private static void awaitReadable(FreezeFrameFileSystem fs, org.apache.hadoop.fs.Path path, String when)
      throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (true) {
      try (FSDataInputStream in = fs.open(path)) {
        in.readAllBytes();
        return;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("not readable 60 s " + when, e);
        }
        Thread.sleep(200);
      }
    }
  }

  private static long settle(FreezeFrameFileSystem fs) throws IOException {
    HlcTimestamp now = fs.currentTime();
    while (PhysicalClock.system().currentTimeMicros() <= now.physicalMicros() + 1) {
      Thread.onSpinWait();
    }
    return now.physicalMicros();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] joined = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, joined, a.length, b.length);
    return joined;
  }
}
