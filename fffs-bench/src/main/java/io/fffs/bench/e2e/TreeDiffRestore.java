package io.fffs.bench.e2e;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.HistoryDifference;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.SnapshotDiffReport;

/**
 * {@code history diff} and {@code history restore} of a tree beside what HDFS offers for the same: a tree of small
 * files in 100 directories, a moment (FFFS) or snapshot (HDFS) taken, then a tenth of the files overwritten, a
 * hundredth deleted and as many created; timed: the differences since the moment ({@code snapshotDiff} on HDFS), and
 * the tree as it was copied back beside it ({@code hdfs dfs -cp -r} from the snapshot on HDFS, which copies every
 * byte through the client; FFFS's restore has the DataNode copy the blocks).
 */
final class TreeDiffRestore {
  /** Seconds each system took, and the differences each found. */
  record Result(int files, double fffsDiffSeconds, double hdfsDiffSeconds, int fffsDifferences,
      int hdfsDifferences, double fffsRestoreSeconds, double hdfsCopySeconds) {}

  private static final int DIRECTORIES = 100;
  private static final int FILE_BYTES = 1024;

  private TreeDiffRestore() {}

  static Result run(Path tmp, int files) throws Exception {
    byte[] data = FileIo.randomBytes(FILE_BYTES, 3);
    Configuration conf = new Configuration();
    conf.set("fffs.history.gc.interval", "0");
    double fffsDiff;
    double fffsRestore;
    int fffsDifferences;
    MiniFffsCluster cluster = Clusters.fffs(tmp.resolve("tree-fffs"), conf, 256L << 20);
    try (FileSystem fs = Clusters.client(cluster)) {
      FreezeFrameFileSystem fffs = (FreezeFrameFileSystem) fs;
      build(fs, files, data);
      HlcTimestamp now = fffs.currentTime();
      while (PhysicalClock.system().currentTimeMicros() <= now.physicalMicros() + 1) {
        Thread.onSpinWait();
      }
      long moment = now.physicalMicros();
      change(fs, files, data);
      long start = System.nanoTime();
      List<HistoryDifference> differences = fffs.diff(new org.apache.hadoop.fs.Path("/tree"),
          TimeSpec.system(moment), TimeSpec.latest());
      fffsDiff = (System.nanoTime() - start) / 1e9;
      fffsDifferences = differences.size();
      start = System.nanoTime();
      fffs.restore(new org.apache.hadoop.fs.Path("/tree"), TimeSpec.system(moment),
          new org.apache.hadoop.fs.Path("/restored"));
      fffsRestore = (System.nanoTime() - start) / 1e9;
      Progress.say("FFFS, %d files: diff %.2f s (%d differences), restore %.2f s", files, fffsDiff,
          fffsDifferences, fffsRestore);
    } finally {
      cluster.close();
    }
    double hdfsDiff;
    double hdfsCopy;
    int hdfsDifferences;
    MiniDFSCluster hdfs = Clusters.hdfs(tmp.resolve("tree-hdfs"), new Configuration());
    try (FileSystem fs = Clusters.client(hdfs)) {
      DistributedFileSystem dfs = (DistributedFileSystem) fs;
      build(fs, files, data);
      org.apache.hadoop.fs.Path tree = new org.apache.hadoop.fs.Path("/tree");
      dfs.allowSnapshot(tree);
      dfs.createSnapshot(tree, "before");
      change(fs, files, data);
      long start = System.nanoTime();
      SnapshotDiffReport report = dfs.getSnapshotDiffReport(tree, "before", "");
      hdfsDiff = (System.nanoTime() - start) / 1e9;
      hdfsDifferences = report.getDiffList().size();
      start = System.nanoTime();
      FileUtil.copy(fs, new org.apache.hadoop.fs.Path("/tree/.snapshot/before"), fs,
          new org.apache.hadoop.fs.Path("/restored"), false, fs.getConf());
      hdfsCopy = (System.nanoTime() - start) / 1e9;
      Progress.say("HDFS, %d files: snapshotDiff %.2f s (%d entries), cp -r from the snapshot %.2f s", files,
          hdfsDiff, hdfsDifferences, hdfsCopy);
    } finally {
      Clusters.shutdown(hdfs);
    }
    return new Result(files, fffsDiff, hdfsDiff, fffsDifferences, hdfsDifferences, fffsRestore, hdfsCopy);
  }

  private static void build(FileSystem fs, int files, byte[] data) throws IOException {
    for (int i = 0; i < files; i++) {
      write(fs, path(i), data);
    }
  }

  /** Overwrites a tenth of the files, deletes a hundredth, creates as many new ones. */
  private static void change(FileSystem fs, int files, byte[] data) throws IOException {
    Random random = new Random(5);
    for (int i = 0; i < files / 10; i++) {
      write(fs, path(random.nextInt(files)), data);
    }
    for (int i = 0; i < files / 100; i++) {
      fs.delete(path(random.nextInt(files)), false);
      write(fs, new org.apache.hadoop.fs.Path("/tree/d" + (i % DIRECTORIES) + "/new-" + i), data);
    }
  }

  private static org.apache.hadoop.fs.Path path(int i) {
    return new org.apache.hadoop.fs.Path("/tree/d" + (i % DIRECTORIES) + "/f" + i);
  }

  private static void write(FileSystem fs, org.apache.hadoop.fs.Path path, byte[] data) throws IOException {
    try (FSDataOutputStream out = fs.create(path, true)) {
      out.write(data);
    }
  }
}
