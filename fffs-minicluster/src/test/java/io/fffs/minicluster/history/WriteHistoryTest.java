package io.fffs.minicluster.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.ByteRange;
import io.fffs.client.DataNodeDiskUsage;
import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FileVersion;
import io.fffs.client.FileWrite;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.WriteHistory;
import io.fffs.client.tools.AdminCommand;
import io.fffs.client.tools.HistoryCommand;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.DiskUsage;
import io.fffs.datanode.store.MultiLogBlockStore;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writes that changed a file's bytes and the byte ranges changed between two moments, from real DataNodes' block
 * logs (BLOCK_LOG), at replication 2 and across blocks — before and after garbage collection and the segment cleaner.
 */
class WriteHistoryTest {
  static final int BLOCK = 64 * 1024;

  @TempDir
  java.nio.file.Path base;
  MiniFffsCluster cluster;
  FreezeFrameFileSystem fs;
  final Random random = new Random(33);

  @BeforeEach
  void start() throws Exception {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", BLOCK);
    conf.setInt("fffs.replication", 2);
    conf.setLong("fffs.history.gc.interval", 0);
    conf.set("fffs.datanode.segment.file.size", "32k");  // closed files for the cleaner
    conf.set("fffs.datanode.cleaner.interval", "1h");
    conf.set("fffs.datanode.retention.interval", "1h");
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(2).build();
    fs = cluster.getFileSystem();
  }

  @AfterEach
  void stop() throws Exception {
    if (fs != null) {
      fs.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  long pastMoment() throws IOException {
    HlcTimestamp now = fs.currentTime();
    while (PhysicalClock.system().currentTimeMicros() <= now.physicalMicros() + 1) {
      Thread.onSpinWait();
    }
    return now.physicalMicros();
  }

  byte[] bytes(int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  /** The writes of {@code history} stamped within (from, to], as ranges. */
  static List<ByteRange> written(WriteHistory history, long from, long to) {
    return history.writes().stream().filter(w -> w.kind() == FileWrite.Kind.WRITE)
        .filter(w -> w.hlc().physicalMicros() > from && w.hlc().physicalMicros() <= to)
        .map(w -> new ByteRange(w.offset(), w.length())).toList();
  }

  @Test
  void listsWritesAndChangedRangesAcrossBlocksTruncateAndCollection() throws Exception {
    Path dir = new Path("/w");
    Path file = new Path(dir, "data");
    try (FSDataOutputStream out = fs.create(file, true)) {
      out.write(bytes(100_000));
    }
    long t1 = pastMoment();
    assertThat(fs.truncate(file, 50_000)).isTrue();
    long t2 = pastMoment();
    try (FffsDataOutputStream out = fs.openForWrite(file)) {
      out.seek(5_000);
      out.write(bytes(300));
      out.hflush();
      pastMoment();
      out.seek(40_000);
      out.write(bytes(100));
    }
    long t3 = pastMoment();
    try (FffsDataOutputStream out = fs.openForWrite(file)) {
      out.seek(45_000);
      out.write(bytes(25_000));  // into a new second block
    }
    long t4 = pastMoment();

    WriteHistory all = fs.listWrites(file, Long.MIN_VALUE, Long.MAX_VALUE);
    assertThat(all.completeFromMicros()).isZero();
    assertThat(all.writes()).isSortedAccordingTo((a, b) -> a.hlc().compareTo(b.hlc()));
    // The first second block was cut away by the truncate; its writes are still listed.
    assertThat(union(written(all, 0, t1))).containsExactly(new ByteRange(0, 100_000));
    assertThat(all.writes().stream().filter(w -> w.kind() == FileWrite.Kind.TRUNCATE))
        .allMatch(w -> w.hlc().physicalMicros() > t1 && w.hlc().physicalMicros() <= t2)
        .extracting(FileWrite::offset).containsExactly(50_000L);
    assertThat(written(all, t2, t3)).containsExactly(new ByteRange(5_000, 300), new ByteRange(40_000, 100));
    assertThat(union(written(all, t3, t4))).containsExactly(new ByteRange(45_000, 25_000));
    assertThat(fs.listWrites(file, t2 + 1, t3).writes()).hasSize(2);

    assertThat(fs.changedRanges(file, TimeSpec.system(t1), TimeSpec.system(t2)))
        .containsExactly(new ByteRange(50_000, 50_000));
    assertThat(fs.changedRanges(file, TimeSpec.system(t2), TimeSpec.system(t3)))
        .containsExactly(new ByteRange(5_000, 300), new ByteRange(40_000, 100));
    assertThat(fs.changedRanges(file, TimeSpec.system(t3), TimeSpec.system(t2)))
        .as("either order").containsExactly(new ByteRange(5_000, 300), new ByteRange(40_000, 100));
    assertThat(fs.changedRanges(file, TimeSpec.system(t1), TimeSpec.latest())).containsExactly(
        new ByteRange(5_000, 300), new ByteRange(40_000, 100), new ByteRange(45_000, 55_000));
    assertThat(fs.changedRanges(file, TimeSpec.system(t4), TimeSpec.latest())).isEmpty();

    assertThat(diff(file + TimeSpec.system(t2).toMarker(), file + TimeSpec.system(t3).toMarker()))
        .contains("M\t/w/data", "bytes [5000, 5300) [40000, 40100)");

    // Garbage collection keeps the newest two versions; the cleaner compacts the segments.
    List<FileVersion> versions = fs.listVersions(file);
    TimeSpec v1 = versions.get(versions.size() - 2).time();
    TimeSpec v2 = versions.get(versions.size() - 1).time();
    assertThat(fs.changedRanges(file, TimeSpec.system(t3), v2)).containsExactly(new ByteRange(45_000, 25_000));
    List<ByteRange> exact = fs.changedRanges(file, v1, v2);
    fs.pin(dir, v2, "last");  // stays readable after the next write
    fs.setRetention(dir, RetentionRule.parse("0s 2v"));
    fs.collectHistory();
    MultiLogBlockStore store0 = (MultiLogBlockStore) cluster.getDataNode(0).store();
    store0.sync(store0.blockReport().stream().map(b -> b.blockId()).toList());
    DiskUsage before = store0.diskUsage();
    assertThat(before.historyBytes()).as("overwritten and cut bytes").isGreaterThan(0);
    // The block the truncate cut off the file is history only the NameNode knows as such, until collection.
    assertThat(before.currentBytes()).isEqualTo(70_000 + 100_000 - BLOCK);
    for (int i = 0; i < 2; i++) {
      assertThat(cluster.getDataNode(i).pullRetention()).isGreaterThan(0);
    }
    DiskUsage dropped = store0.diskUsage();
    assertThat(dropped.liveBytes()).as("entries dropped").isLessThan(before.liveBytes());
    assertThat(dropped.reclaimableBytes()).isGreaterThan(before.reclaimableBytes());
    assertThat(dropped.currentBytes()).isEqualTo(70_000);
    for (int i = 0; i < 2; i++) {
      ((MultiLogBlockStore) cluster.getDataNode(i).store()).cleanSegments();
    }
    DiskUsage cleaned = store0.diskUsage();
    assertThat(cleaned.reclaimableBytes()).as("the cleaner freed them").isLessThan(dropped.reclaimableBytes());
    assertThat(cleaned.liveBytes()).isEqualTo(dropped.liveBytes());
    Configuration client = new Configuration(cluster.getConfiguration());
    client.set("fs.defaultFS", cluster.getURI().toString());
    // A DataNode measures every tenth heartbeat, on its link's thread: trigger them until the figures are in.
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
    while (fs.dataNodeDiskUsage().segmentBytes() < cleaned.segmentBytes() && System.nanoTime() < deadline) {
      for (int i = 0; i < 10; i++) {
        cluster.getDataNode(0).triggerHeartbeat();
      }
      Thread.sleep(100);
    }
    DataNodeDiskUsage summed = fs.dataNodeDiskUsage();
    assertThat(summed.datanodes()).isEqualTo(2);
    assertThat(summed.segmentBytes()).isGreaterThanOrEqualTo(cleaned.segmentBytes());
    ByteArrayOutputStream report = new ByteArrayOutputStream();
    assertThat(AdminCommand.run(client, new String[] {"-report"}, new PrintStream(report, true),
        new PrintStream(new ByteArrayOutputStream(), true))).isZero();
    assertThat(report.toString(StandardCharsets.UTF_8)).contains("in segment files: live ", ", history ",
        ", reclaimable ");
    ByteArrayOutputStream du = new ByteArrayOutputStream();
    assertThat(HistoryCommand.run(client, new String[] {"du", "/w"}, new PrintStream(du, true),
        new PrintStream(new ByteArrayOutputStream(), true))).isZero();
    assertThat(du.toString(StandardCharsets.UTF_8)).contains("bytes in the segment files of 2 DataNodes: ");
    int page = ((MultiLogBlockStore) cluster.getDataNode(0).store()).pageSize();
    List<ByteRange> collected = fs.changedRanges(file, v1, v2);
    assertThat(union(concat(exact, collected))).as("what changed is still covered").isEqualTo(union(collected));
    assertThat(collected)
        .allMatch(r -> r.offset() % page == 0 || exact.stream().anyMatch(e -> e.offset() == r.offset()));
    try (FffsDataOutputStream out = fs.openForWrite(file)) {
      out.seek(1_000);
      out.write(bytes(10));
    }
    pastMoment();
    WriteHistory after = fs.listWrites(file, Long.MIN_VALUE, Long.MAX_VALUE);
    assertThat(after.completeFromMicros()).isGreaterThan(t4);
    assertThat(after.writes()).extracting(FileWrite::offset, FileWrite::length)
        .containsExactly(Tuple.tuple(1_000L, 10L));
    assertThat(fs.changedRanges(file, v2, TimeSpec.latest()))
        .as("before the DataNodes' horizon a change is known to its page").containsExactly(new ByteRange(0, page));
  }

  @Test
  void aFileReplacedByAnotherListsTheWritesOfBoth() throws Exception {
    Path file = new Path("/r/data");
    try (FSDataOutputStream out = fs.create(file, true)) {
      out.write(bytes(BLOCK + 1_000));  // two blocks
    }
    long t1 = pastMoment();
    try (FSDataOutputStream out = fs.create(file, true)) {  // deletes the old file, creates a new one
      out.write(bytes(500));
    }
    long t2 = pastMoment();
    WriteHistory history = fs.listWrites(file, Long.MIN_VALUE, Long.MAX_VALUE);
    assertThat(union(written(history, 0, t1))).as("the first file's blocks")
        .containsExactly(new ByteRange(0, BLOCK + 1_000));
    assertThat(written(history, t1, t2)).containsExactly(new ByteRange(0, 500));
    assertThat(fs.changedRanges(file, TimeSpec.system(t1), TimeSpec.system(t2)))
        .as("a new file: every byte of it, and the old tail gone").containsExactly(new ByteRange(0, BLOCK + 1_000));
    assertThat(fs.listWrites(new Path("/r"), Long.MIN_VALUE, Long.MAX_VALUE).writes()).as("a directory").isEmpty();
  }

  static List<ByteRange> concat(List<ByteRange> a, List<ByteRange> b) {
    List<ByteRange> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  static List<ByteRange> union(List<ByteRange> ranges) {
    List<ByteRange> sorted = new ArrayList<>(ranges);
    sorted.sort(Comparator.comparingLong(ByteRange::offset));
    List<ByteRange> joined = new ArrayList<>();
    for (ByteRange range : sorted) {
      ByteRange last = joined.isEmpty() ? null : joined.get(joined.size() - 1);
      if (last != null && range.offset() <= last.end()) {
        joined.set(joined.size() - 1, new ByteRange(last.offset(),
            Math.max(last.end(), range.end()) - last.offset()));
      } else {
        joined.add(range);
      }
    }
    return joined;
  }

  String diff(String first, String second) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Configuration conf = new Configuration(cluster.getConfiguration());
    int code = HistoryCommand.run(conf, new String[] {"diff", first, second}, new PrintStream(out, true),
        new PrintStream(err, true));
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(1);
    return out.toString(StandardCharsets.UTF_8);
  }
}
