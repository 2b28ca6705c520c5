package io.fffs.bench.wave;

import io.fffs.bench.Closeables;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.PhysicalClock;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.NameNodeConfigKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * The FFFS side: a {@link MiniFffsCluster} (one DataNode), the sensors write their files once, and the movie is
 * then rebuilt twice from the same files, by system time and by user time.
 */
final class FffsWaveRun {
  /** Far more than a run writes per file (20 bytes a sample), so no record straddles a block boundary. */
  static final long BLOCK_SIZE = 64L << 20;
  private static final long ARENA_BYTES = 512L << 20;
  private static final org.apache.hadoop.fs.Path DIR = new org.apache.hadoop.fs.Path("/wave");
  private static final org.apache.hadoop.fs.Path WARMUP_DIR = new org.apache.hadoop.fs.Path("/warmup");

  private final WaveSettings settings;
  private final PhysicalClock clock;
  private final WaveProgress progress;

  FffsWaveRun(WaveSettings settings, PhysicalClock clock, WaveProgress progress) {
    this.settings = settings;
    this.clock = clock;
    this.progress = progress;
  }

  /** The system-time and the user-time movies. */
  List<Movie> run(Path baseDir) throws IOException, InterruptedException {
    Configuration conf = new Configuration();
    conf.setLong(NameNodeConfigKeys.BLOCK_SIZE_KEY, BLOCK_SIZE);
    conf.setInt(NameNodeConfigKeys.REPLICATION_KEY, 1);
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(baseDir).numDataNodes(1)
        .memoryCapacity(ARENA_BYTES).conf(conf).build()) {
      Configuration writerConf = FffsSensorSink.writerConf(cluster.getConfiguration(), BLOCK_SIZE);
      progress.phase("FFFS: warming up (" + WaveExperiment.WARMUP_SECONDS + " s into other files)");
      WaveExperiment.warmUp(settings, clock, FffsSensorSink.factory(cluster.getURI(), writerConf, WARMUP_DIR));
      List<SensorSink> sinks = new ArrayList<>();
      SensorFleet.Stats stats;
      WaveSchedule schedule;
      try {
        SensorSink.Factory factory = FffsSensorSink.factory(cluster.getURI(), writerConf, DIR);
        for (int cell = 0; cell < settings.cells(); cell++) {
          sinks.add(factory.open(cell));
        }
        schedule = WaveExperiment.schedule(settings, clock);
        progress.phase("FFFS: " + settings.cells() + " streams write " + settings.seconds() + " s of samples");
        SensorFleet fleet = new SensorFleet(schedule, settings.side(), new WaveField(), settings.networkDelay(),
            clock);
        fleet.start(sinks);
        stats = fleet.await();
      } finally {
        Closeables.closeAll(sinks);
      }
      progress.writers("FFFS", stats);
      try (FreezeFrameFileSystem reader = cluster.getFileSystem()) {
        FffsFrameReader frames = new FffsFrameReader(reader, DIR, settings.cells());
        List<Movie> movies = new ArrayList<>();
        for (Reconstruction how : new Reconstruction[] {Reconstruction.FFFS_SYSTEM, Reconstruction.FFFS_USER}) {
          progress.phase("FFFS: reading " + schedule.frames() + " frames by " + how.title);
          movies.add(new Movie(how, schedule, frames.read(schedule, how), null, stats));
        }
        return movies;
      }
    }
  }
}
