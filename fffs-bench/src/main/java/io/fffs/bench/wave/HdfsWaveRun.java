package io.fffs.bench.wave;

import io.fffs.bench.Closeables;
import io.fffs.common.time.PhysicalClock;
import io.fffs.plugins.WaveRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * The HDFS side, as the paper ran it: a real {@link MiniDFSCluster} (one DataNode, replication 1, edit log
 * fsync'd like FFFS's), sensors that close and reopen their file after every record, and a thread that takes a
 * snapshot of the directory every frame period while they write; frame k is rendered from snapshot k. The writers
 * stop when the last snapshot is taken: what had not reached HDFS by then is not in any frame.
 */
final class HdfsWaveRun {
  private static final Path DIR = new Path("/wave");
  private static final Path WARMUP_DIR = new Path("/warmup");

  private final WaveSettings settings;
  private final PhysicalClock clock;
  private final WaveProgress progress;

  HdfsWaveRun(WaveSettings settings, PhysicalClock clock, WaveProgress progress) {
    this.settings = settings;
    this.clock = clock;
    this.progress = progress;
  }

  Movie run(java.nio.file.Path baseDir) throws IOException, InterruptedException {
    Configuration conf = new HdfsConfiguration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, baseDir.toString());
    conf.setInt(DFSConfigKeys.DFS_REPLICATION_KEY, 1);
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, FffsWaveRun.BLOCK_SIZE);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, 10);
    // One DataNode: an append pipeline has no other DataNode to replace a failed one with.
    conf.setBoolean("dfs.client.block.write.replace-datanode-on-failure.enable", false);
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).skipFsyncForTesting(false)
        .enableManagedDfsDirsRedundancy(false).build();
    try {
      cluster.waitActive();
      DistributedFileSystem admin = cluster.getFileSystem();
      admin.mkdirs(DIR);
      admin.allowSnapshot(DIR);
      progress.phase("HDFS: warming up (" + WaveExperiment.WARMUP_SECONDS + " s into other files)");
      WaveExperiment.warmUp(settings, clock, HdfsSensorSink.factory(cluster.getURI(), cluster.getConfiguration(0),
          WARMUP_DIR));
      List<SensorSink> sinks = new ArrayList<>();
      WaveSchedule schedule;
      long[] takenAt;
      SensorFleet.Stats stats;
      try {
        SensorSink.Factory factory = HdfsSensorSink.factory(cluster.getURI(), cluster.getConfiguration(0), DIR);
        for (int cell = 0; cell < settings.cells(); cell++) {
          sinks.add(factory.open(cell));
        }
        schedule = WaveExperiment.schedule(settings, clock);
        progress.phase("HDFS: " + settings.cells() + " streams write (append, close) while a thread takes "
            + schedule.frames() + " snapshots");
        SensorFleet fleet = new SensorFleet(schedule, settings.side(), new WaveField(), settings.networkDelay(),
            clock);
        fleet.start(sinks);
        try {
          takenAt = takeSnapshots(admin, schedule);
        } finally {
          fleet.stop();
        }
        stats = fleet.await();
      } finally {
        Closeables.closeAll(sinks);
      }
      progress.writers("HDFS", stats);
      progress.phase("HDFS: reading " + schedule.frames() + " frames from the snapshots");
      return new Movie(Reconstruction.HDFS, schedule, readFrames(admin, schedule), takenAt, stats);
    } finally {
      cluster.shutdown(true);
    }
  }

  /**
   * Snapshot k is asked for at frame k's time (or at once if the one before ran late); it records the moment
   * half-way through the call, when the NameNode took it.
   */
  private long[] takeSnapshots(DistributedFileSystem fs, WaveSchedule schedule)
      throws IOException, InterruptedException {
    long[] takenAt = new long[schedule.frames()];
    for (int k = 0; k < schedule.frames(); k++) {
      Clocks.sleepUntil(clock, schedule.frameTime(k));
      long before = clock.currentTimeMicros();
      fs.createSnapshot(DIR, snapshotName(k));
      takenAt[k] = (before + clock.currentTimeMicros()) / 2;
    }
    return takenAt;
  }

  private List<Frame> readFrames(DistributedFileSystem fs, WaveSchedule schedule) throws IOException {
    List<Frame> movie = new ArrayList<>(schedule.frames());
    for (int k = 0; k < schedule.frames(); k++) {
      Frame frame = Frame.empty(settings.cells());
      Path snapshot = new Path(DIR, ".snapshot/" + snapshotName(k));
      for (int cell = 0; cell < settings.cells(); cell++) {
        Path file = WaveFiles.cellFile(snapshot, cell);
        long length = fs.getFileStatus(file).getLen();
        WaveRecord last;
        try (FSDataInputStream in = fs.open(file)) {
          last = WaveFiles.lastRecord(in, length);
        }
        WaveFrames.show(frame, cell, last, schedule, file.toString());
      }
      movie.add(frame);
    }
    return movie;
  }

  private static String snapshotName(int k) {
    return "s" + k;
  }
}
