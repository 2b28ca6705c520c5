package io.fffs.bench.wave;

import io.fffs.bench.BenchLogging;
import io.fffs.bench.Closeables;
import io.fffs.common.time.PhysicalClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The paper's wave experiment (§1, Figure 1; issue 8): a simulated wave over a square tank, one sensor stream per
 * grid cell writing 20 samples/s to its own file, and the movie rebuilt three ways: from HDFS snapshots taken
 * every 100 ms while the sensors write, and from FFFS afterwards by system time and by user time. Measures, per
 * frame, how many cells show the sample of the frame's time, the temporal error, mixing and causality. Usage:
 * {@code bin/fffs bench wave [--grid N] [--seconds S] ... [--out DIR]} ({@link WaveSettings#USAGE}).
 */
public final class WaveExperiment {
  /** Time from the streams being opened to sample 0, so every writer thread is ready. */
  private static final long LEAD_MICROS = 500_000;
  /** The warm-up run before each measured one. */
  static final int WARMUP_SECONDS = 2;

  private final WaveSettings settings;
  private final PhysicalClock clock;
  private final WaveProgress progress;

  WaveExperiment(WaveSettings settings, PhysicalClock clock, WaveProgress progress) {
    this.settings = settings;
    this.clock = clock;
    this.progress = progress;
  }

  public static void main(String[] args) {
    WaveSettings settings;
    try {
      settings = WaveSettings.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    System.setProperty("java.awt.headless", "true");
    BenchLogging.quiet();
    WaveProgress progress = new WaveProgress(System.err);
    try {
      List<Movie> movies = new WaveExperiment(settings, PhysicalClock.system(), progress).run();
      new WaveReport(settings, movies).print(System.out);
      if (settings.out() != null) {
        progress.phase("writing CSV, PNGs and GIFs to " + settings.out());
        new WaveOutputs(settings, movies).writeAll(settings.out());
      }
      progress.phase("done");
    } catch (Exception | LinkageError e) {
      e.printStackTrace();
      // A cluster that failed half-way through start-up can leave non-daemon threads behind.
      System.exit(1);
      return;
    }
    System.exit(0);
  }

  /** Runs the FFFS side, then (if asked) the HDFS side; the movies in {@link Reconstruction} order. */
  List<Movie> run() throws IOException, InterruptedException {
    Path base = Files.createTempDirectory("fffs-wave-");
    try {
      List<Movie> movies = new ArrayList<>();
      if (settings.hdfs()) {
        movies.add(new HdfsWaveRun(settings, clock, progress).run(base.resolve("hdfs")));
      }
      movies.addAll(new FffsWaveRun(settings, clock, progress).run(base.resolve("fffs")));
      return movies;
    } finally {
      io.fffs.bench.BenchFiles.deleteRecursively(base);
    }
  }

  /** A schedule whose sample 0 is a little ahead, on a whole 100 ms (tidy {@code @s} markers). */
  static WaveSchedule schedule(WaveSettings settings, PhysicalClock clock) {
    long start = (clock.currentTimeMicros() + LEAD_MICROS) / 100_000 * 100_000 + 100_000;
    return WaveSchedule.of(start, settings.sampleHz(), settings.frameMillis(), settings.phaseMillis(),
        settings.seconds());
  }

  /**
   * Runs the same streams for {@link #WARMUP_SECONDS} into other files of the same cluster and throws the data
   * away, stopping when its time is up: the JIT compiles the write paths and the connections are made before the measured run starts.
   */
  static void warmUp(WaveSettings settings, PhysicalClock clock, SensorSink.Factory factory)
      throws IOException, InterruptedException {
    List<SensorSink> sinks = new ArrayList<>();
    try {
      for (int cell = 0; cell < settings.cells(); cell++) {
        sinks.add(factory.open(cell));
      }
      WaveSchedule warm = schedule(settings.withSize(settings.side(), WARMUP_SECONDS), clock);
      SensorFleet fleet = new SensorFleet(warm, settings.side(), new WaveField(), settings.networkDelay(), clock);
      fleet.start(sinks);
      try {
        // A file system that cannot keep up (HDFS) would otherwise be working off its backlog for minutes.
        Clocks.sleepUntil(clock, warm.sampleTime(warm.samples() - 1) + warm.samplePeriodMicros());
      } finally {
        fleet.stop();
      }
      fleet.await();
    } finally {
      Closeables.closeAll(sinks);
    }
  }

}
