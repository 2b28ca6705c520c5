package io.fffs.minicluster.shortcircuit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.client.data.ShortCircuitStats;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.net.FreePorts;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.security.BlockAccessMode;
import io.fffs.common.security.BlockKey;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.NodeProcess;
import io.fffs.minicluster.RandomFiles;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Short-circuit reads against a NameNode and a DataNode each in a process of its own, the client in this JVM on the
 * same host: it copies the bytes from the DataNode's arena (tmpfs) and segment files itself, at the latest state and
 * at past ones; a page evicted and its slot reused while the client copies it is caught by the arena's eviction
 * frontier and read through the data port instead; without a valid block token the DataNode says nothing.
 */
class ShortCircuitReadTest {
  private static final int ARENA = 4 << 20;
  /** {@code fffs.client.read.shortcircuit.request-size} here. */
  private static final int PIECE = 256 << 10;

  @TempDir
  static Path base;
  static NodeProcess nameNode;
  static NodeProcess dataNode;
  static Path memory;
  static int dataPort;
  static Configuration conf;
  static FreezeFrameFileSystem fs;

  @BeforeAll
  static void start() throws IOException {
    int[] ports = FreePorts.pick(2);
    int rpcPort = ports[0];
    dataPort = ports[1];
    memory = Path.of("/dev/shm", "fffs-shortcircuit-" + ProcessHandle.current().pid());
    Path log = base.resolve("nodes.log");
    nameNode = NodeProcess.start("io.fffs.namenode.NameNodeMain", "-Xmx256m", log,
        "fffs.namenode.name.dir=" + base.resolve("name"), "fffs.namenode.rpc-address=127.0.0.1:" + rpcPort,
        "fffs.namenode.http-address=127.0.0.1:0", "fffs.namenode.safemode.timeout=20s",
        "fffs.datanode.heartbeat.interval=200ms", "fffs.replication=1");
    dataNode = NodeProcess.start("io.fffs.datanode.DataNodeMain", "-Xmx256m", log,
        "fffs.namenode.rpc-address=127.0.0.1:" + rpcPort, "fffs.datanode.data.dir=" + base.resolve("data"),
        "fffs.datanode.memory.dir=" + memory, "fffs.datanode.memory.capacity=" + ARENA,
        "fffs.datanode.data-address=127.0.0.1:" + dataPort, "fffs.datanode.heartbeat.interval=200ms");
    conf = new Configuration();
    conf.set("fs.defaultFS", "fffs://127.0.0.1:" + rpcPort);
    conf.setLong("fffs.blocksize", 1 << 20);
    conf.setInt("fffs.replication", 1);
    conf.setBoolean("fs.fffs.impl.disable.cache", true);
    conf.setInt("fffs.client.read.shortcircuit.request-size", PIECE);
    fs = (FreezeFrameFileSystem) FileSystem.newInstance(URI.create(conf.get("fs.defaultFS")), conf);
  }

  @AfterAll
  static void stop() throws IOException {
    if (fs != null) {
      fs.close();
    }
    if (dataNode != null) {
      dataNode.close();
    }
    if (nameNode != null) {
      nameNode.close();
    }
    if (memory != null && Files.exists(memory)) {
      try (var paths = Files.walk(memory)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** Waits (up to 30 s) until {@code counter} exceeds {@code value}. */
  private static void awaitAbove(LongAdder counter, long value) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (counter.sum() <= value && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(counter.sum()).isGreaterThan(value);
  }

  /** Waits (up to 30 s) until {@code counter} has not changed for 300 ms. */
  private static void awaitSteady(LongAdder counter) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    long seen = counter.sum();
    long since = System.nanoTime();
    while (System.nanoTime() - since < 300_000_000L && System.nanoTime() < deadline) {
      Thread.sleep(20);
      if (counter.sum() != seen) {
        seen = counter.sum();
        since = System.nanoTime();
      }
    }
  }

  private static byte[] readAll(FSDataInputStream in, int length, int call) throws IOException {
    byte[] all = new byte[length];
    for (int at = 0; at < length; ) {
      int n = in.read(all, at, Math.min(call, length - at));
      assertThat(n).as("bytes at %d", at).isPositive();
      at += n;
    }
    assertThat(in.read()).isEqualTo(-1);
    return all;
  }

  @Test
  void readsLatestAndPastStatesFromTheDataNodesFiles() throws Exception {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("/sc/replaced");
    byte[] first = RandomFiles.write(fs, path.toString(), 3 * ARENA / 2 + 777, 1);  // more than the arena
    long between = fs.currentTime().physicalMicros();
    byte[] second = RandomFiles.write(fs, path.toString(), 5 * ARENA / 4 + 12_345, 2);
    ShortCircuitStats stats = fs.shortCircuitStats();
    long segmentBefore = stats.segmentBytes.sum();
    long staleBefore = stats.stale.sum();

    try (FSDataInputStream in = fs.open(path)) {
      assertThat(readAll(in, second.length, 100_000)).isEqualTo(second);
    }
    awaitSteady(stats.requests);  // the latest-state read's pieces located ahead are done
    long requestsBeforePast = stats.requests.sum();
    try (FSDataInputStream in = fs.open(path, TimeSpec.system(between))) {
      byte[] past = new byte[first.length];
      in.readFully(past, 0, PIECE);
      // Past the first piece's middle: the next pieces were located ahead.
      awaitAbove(stats.requests, requestsBeforePast + 1);
      in.readFully(past, PIECE, past.length - PIECE);
      assertThat(in.read()).isEqualTo(-1);
      assertThat(past).isEqualTo(first);
    }
    try (FSDataInputStream in = fs.open(path)) {
      byte[] piece = new byte[200_000];
      for (int at : new int[] {second.length - piece.length, 3, ARENA / 2 + 4095}) {
        in.readFully(at, piece);
        assertThat(piece).isEqualTo(java.util.Arrays.copyOfRange(second, at, at + piece.length));
      }
    }
    assertThat(stats.bytes.sum()).isGreaterThanOrEqualTo(first.length + second.length);
    // The past state was written first and evicted first: its pages came from segment files, checked.
    assertThat(stats.segmentBytes.sum() - segmentBefore).isGreaterThan(ARENA / 2);
    assertThat(stats.stale.sum() - staleBefore).isZero();
  }

  @Test
  void evictedPagesOfMegabytePiecesAreBroughtInByReadAheadBeforeTheyAreCopied() throws Exception {
    Configuration megabytePieces = new Configuration(conf);
    megabytePieces.setInt("fffs.client.read.shortcircuit.request-size", 1 << 20);
    try (FreezeFrameFileSystem reader = (FreezeFrameFileSystem) FileSystem.newInstance(
        URI.create(conf.get("fs.defaultFS")), megabytePieces)) {
      String path = "/sc/read-ahead";
      byte[] written = RandomFiles.write(reader, path, 3 * ARENA + 5, 11);  // two thirds of it evicted
      ShortCircuitStats stats = reader.shortCircuitStats();
      try (FSDataInputStream in = reader.open(new org.apache.hadoop.fs.Path(path))) {
        assertThat(readAll(in, written.length, 256 << 10)).isEqualTo(written);
      }
      // Every piece of a whole 1 MiB block in the segment files: its pages and CRCs, brought in before the copy
      // (by the ahead threads, or by the reader for the pieces it located itself).
      assertThat(stats.warmedBytes.sum()).isGreaterThan(ARENA);
      assertThat(stats.segmentBytes.sum()).isGreaterThan(ARENA);
      assertThat(stats.stale.sum()).isZero();
    }
  }

  /**
   * A short read of a large evicted piece the reader located itself brings little more than it reads into the page
   * cache; reading on brings the rest in as the reads reach it.
   */
  @Test
  void aShortReadOfALargeEvictedPieceBringsInLittleOfIt() throws Exception {
    Configuration largePieces = new Configuration(conf);
    largePieces.setLong("fffs.blocksize", 8 << 20);
    largePieces.setInt("fffs.client.read.shortcircuit.request-size", 8 << 20);
    try (FreezeFrameFileSystem reader = (FreezeFrameFileSystem) FileSystem.newInstance(
        URI.create(conf.get("fs.defaultFS")), largePieces)) {
      String path = "/sc/short-read";
      byte[] written = RandomFiles.write(reader, path, 16 << 20, 12);  // the first block evicted
      ShortCircuitStats stats = reader.shortCircuitStats();
      long before = stats.warmedBytes.sum();
      try (FSDataInputStream in = reader.open(new org.apache.hadoop.fs.Path(path))) {
        byte[] head = new byte[64 << 10];
        in.readFully(head);
        assertThat(head).isEqualTo(java.util.Arrays.copyOf(written, head.length));
        // One step (and the records' CRCs within it), not the 8 MiB piece.
        assertThat(stats.warmedBytes.sum() - before).isPositive().isLessThan(4 << 20);
        byte[] rest = new byte[(8 << 20) - head.length];
        in.readFully(rest);
        assertThat(rest).isEqualTo(java.util.Arrays.copyOfRange(written, head.length, 8 << 20));
        assertThat(stats.warmedBytes.sum() - before).isGreaterThan(6 << 20);
      }
      assertThat(stats.stale.sum()).isZero();
    }
  }

  /**
   * {@code fffs.client.read.shortcircuit.direct-io}: the pages the DataNode wrote to its segment files with O_DIRECT
   * are read around the page cache too, by the reader and ahead of it into the client's buffers (nothing is read
   * just to warm the page cache), and arrive checked, at the latest state and at a past one.
   */
  @Test
  void withDirectIoEvictedPagesAreReadAroundThePageCache() throws Exception {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("/sc/direct");
    byte[] first = RandomFiles.write(fs, path.toString(), 2 * ARENA + 4321, 8);  // more than the arena
    long between = fs.currentTime().physicalMicros();
    byte[] second = RandomFiles.write(fs, path.toString(), ARENA + 999, 9);
    Configuration directConf = new Configuration(conf);
    directConf.setBoolean("fffs.client.read.shortcircuit.direct-io", true);
    try (FreezeFrameFileSystem direct = (FreezeFrameFileSystem) FileSystem.newInstance(
        URI.create(conf.get("fs.defaultFS")), directConf)) {
      ShortCircuitStats stats = direct.shortCircuitStats();
      try (FSDataInputStream in = direct.open(path, TimeSpec.system(between))) {
        assertThat(readAll(in, first.length, 1 << 20)).isEqualTo(first);
      }
      try (FSDataInputStream in = direct.open(path)) {
        assertThat(readAll(in, second.length, 100_000)).isEqualTo(second);
      }
      // The past state was written first and evicted first: most of it came from segment files, read directly,
      // much of it ahead of the reader.
      assertThat(stats.directBytes.sum()).isGreaterThan(ARENA);
      assertThat(stats.preloadedBytes.sum()).isGreaterThan(PIECE);
      assertThat(stats.stale.sum()).isZero();
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (stats.preloadBuffersLent.sum() != 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(stats.preloadBuffersLent.sum()).as("every buffer back once the streams are closed").isZero();
    }
  }

  @Test
  void aPieceLocatedAheadWhoseArenaPagesWereEvictedMeanwhileIsLocatedAgain() throws Exception {
    int piece = PIECE;
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("/sc/ahead");
    byte[] data = RandomFiles.write(fs, path.toString(), 3 * piece, 6);  // one block: the first piece and two ahead
    ShortCircuitStats stats = fs.shortCircuitStats();
    awaitSteady(stats.requests);  // no piece another test's reader had located ahead still under way
    long staleBefore = stats.stale.sum();
    long relocatedBefore = stats.relocated.sum();
    long requestsBefore = stats.requests.sum();
    AtomicInteger copies = new AtomicInteger();
    try (FreezeFrameFileSystem writer = (FreezeFrameFileSystem) FileSystem.newInstance(
        URI.create(conf.get("fs.defaultFS")), conf)) {
      stats.beforeCopy = () -> {
        if (copies.incrementAndGet() == 2) {
          try {
            // The second piece was located ahead, from the arena; now every one of its pages is evicted.
            RandomFiles.write(writer, "/sc/flood-ahead", 2 * ARENA, 7);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
      };
      byte[] read = new byte[data.length];
      try (FSDataInputStream in = fs.open(path)) {
        assertThat(in.read(read, 0, piece)).as("the first piece, in one copy").isEqualTo(piece);
        awaitAbove(stats.requests, requestsBefore + 2);  // the next two pieces located ahead
        for (int at = piece; at < read.length; ) {
          int n = in.read(read, at, read.length - at);
          assertThat(n).isPositive();
          at += n;
        }
      } finally {
        stats.beforeCopy = null;
      }
      assertThat(read).isEqualTo(data);
    }
    assertThat(copies.get()).isGreaterThanOrEqualTo(2);
    long relocated = stats.relocated.sum() - relocatedBefore;
    assertThat(relocated).as("pieces located again").isPositive();
    assertThat(stats.stale.sum() - staleBefore).as("every failed copy was of a piece located ahead, located again")
        .isEqualTo(relocated);
  }

  @Test
  void aSlotReusedWhileItIsCopiedIsCaughtAndReadThroughTheDataPort() throws Exception {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("/sc/resident");
    byte[] data = RandomFiles.write(fs, path.toString(), 300_000, 3);
    ShortCircuitStats stats = fs.shortCircuitStats();
    long staleBefore = stats.stale.sum();
    long relocatedBefore = stats.relocated.sum();
    AtomicBoolean once = new AtomicBoolean();
    try (FreezeFrameFileSystem writer = (FreezeFrameFileSystem) FileSystem.newInstance(
        URI.create(conf.get("fs.defaultFS")), conf)) {
      stats.beforeCopy = () -> {
        if (once.compareAndSet(false, true)) {
          try {
            // Twice the arena written after the file: all of its pages are evicted and their slots reused.
            RandomFiles.write(writer, "/sc/flood", 2 * ARENA, 4);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
      };
      try (FSDataInputStream in = fs.open(path)) {
        assertThat(readAll(in, data.length, 50_000)).isEqualTo(data);
      } finally {
        stats.beforeCopy = null;
      }
    }
    assertThat(once).isTrue();
    // One copy failed and the read went on through the data port; a piece located ahead of the flood may have
    // failed too, and been located again.
    assertThat(stats.stale.sum() - staleBefore - (stats.relocated.sum() - relocatedBefore)).isEqualTo(1);
  }

  @Test
  void withoutAValidTokenTheDataNodeTellsNothing() throws Exception {
    byte[] data = RandomFiles.write(fs, "/sc/guarded", 10_000, 5);
    try (DataTransferClient raw = DataTransferClients.tcp(conf,
        new HybridLogicalClock(PhysicalClock.system(), conf))) {
      DatanodeIdProto dn = DatanodeIdProto.newBuilder().setDatanodeUuid("unknown").setHost("127.0.0.1")
          .setDataPort(dataPort).setIpcPort(0).build();
      BlockToken ownKey = BlockToken.sign(new BlockKey(7, new byte[32], Long.MAX_VALUE), 1L << 40,
          BlockAccessMode.READ, "mallory", Long.MAX_VALUE);
      for (BlockToken token : new BlockToken[] {null, ownKey}) {
        assertThatThrownBy(() -> raw.read(dn, 1L << 40, token, 0, ByteBuffer.allocate(data.length),
            TimeSpec.latest())).isInstanceOfSatisfying(FffsException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED));
      }
      assertThat(raw.shortCircuitStats().requests.sum()).isZero();
      assertThat(raw.shortCircuitStats().bytes.sum()).isZero();
    }
  }
}
