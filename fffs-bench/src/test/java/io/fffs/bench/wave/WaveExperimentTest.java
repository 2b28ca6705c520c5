package io.fffs.bench.wave;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.bench.BenchLogging;
import io.fffs.common.time.PhysicalClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wave experiment, small and fast: 16 streams for 3 seconds on FFFS. User time must rebuild every cell of every
 * frame exactly. System time depends on when the writes landed, so only what holds under any load is asserted: no
 * cell shows a sample taken after the frame, none lags it by more than the slowest write plus one sample period,
 * and no cell goes back in time.
 */
class WaveExperimentTest {
  private static WaveSettings settings;
  private static List<Movie> movies;

  @BeforeAll
  static void runExperiment() throws Exception {
    BenchLogging.quiet();
    System.setProperty("java.awt.headless", "true");
    settings = WaveSettings.defaults().withSize(4, 3).withHdfs(false).withOut(null);
    movies = new WaveExperiment(settings, PhysicalClock.system(), WaveProgress.silent()).run();
  }

  @Test
  void everyStreamStoredEverySample() {
    for (Movie m : movies) {
      assertThat(m.writers().records()).isEqualTo(16 * 3 * 20).isEqualTo(m.writers().expectedRecords());
    }
  }

  @Test
  void userTimeShowsEveryCellOfEveryFrameExactly() {
    Movie user = movie(Reconstruction.FFFS_USER);
    assertThat(user.frames()).hasSize(30);
    for (FrameMetrics f : user.metrics()) {
      assertThat(f.exactFraction()).as("frame %d", f.frame()).isEqualTo(1.0);
      assertThat(f.maxErrorMs()).isZero();
      assertThat(f.mixed()).isFalse();
    }
  }

  @Test
  void systemTimeNeverShowsASampleTakenAfterTheFrame() {
    // A record is written after its sample is taken, so its stamp is too: @s<t> cannot hold a later sample.
    Movie system = movie(Reconstruction.FFFS_SYSTEM);
    WaveSchedule schedule = system.schedule();
    for (int k = 0; k < system.frames().size(); k++) {
      int expected = schedule.expectedSample(k);
      int[] shown = system.frames().get(k).samples();
      for (int cell = 0; cell < shown.length; cell++) {
        assertThat(shown[cell]).as("frame %d cell %d", k, cell).isLessThanOrEqualTo(expected);
      }
    }
  }

  @Test
  void systemTimeLagsTheFrameByAtMostTheSlowestWriteAndIsCausal() {
    // Every write acknowledged by a frame's time is in that frame, however slow the machine made the writes; the
    // mean error of an unloaded run is the benchmark's figure (docs/temporal-accuracy.md).
    Movie system = movie(Reconstruction.FFFS_SYSTEM);
    double bound = system.writers().maxLagMs() + system.schedule().samplePeriodMicros() / 1000.0;
    for (FrameMetrics f : system.metrics()) {
      assertThat(f.maxErrorMs()).as("frame %d, slowest write %.1f ms", f.frame(), system.writers().maxLagMs())
          .isLessThanOrEqualTo(bound);
    }
    assertThat(system.summary().violatingFrames()).as("frames violating causality").isZero();
  }

  @Test
  void userTimeHeightsAreTheWaveAtTheFrameTime() {
    Movie user = movie(Reconstruction.FFFS_USER);
    WaveField field = new WaveField();
    WaveSchedule schedule = user.schedule();
    for (int k = 0; k < user.frames().size(); k += 7) {
      double seconds = schedule.waveSeconds(schedule.sampleTime(schedule.expectedSample(k)));
      for (int cell = 0; cell < 16; cell++) {
        assertThat(user.frames().get(k).heights()[cell]).isEqualTo(field.cellHeight(cell, 4, seconds));
      }
    }
  }

  @Test
  void writesTheCsvTheFigureTheGifsAndThePlots(@TempDir Path dir) throws Exception {
    new WaveOutputs(settings, movies).writeAll(dir);
    for (String name : new String[] {"wave-frames.csv", "wave-frame.png", "wave-fffs-system.gif",
        "wave-fffs-user.gif", "wave-error.png", "wave-exact.png"}) {
      assertThat(dir.resolve(name)).isRegularFile();
      assertThat(Files.size(dir.resolve(name))).as(name).isPositive();
    }
    assertThat(Files.readAllLines(dir.resolve("wave-frames.csv"))).hasSize(1 + 2 * 30)
        .first().isEqualTo(WaveReport.CSV_HEADER);
  }

  private static Movie movie(Reconstruction r) {
    return movies.stream().filter(m -> m.reconstruction() == r).findFirst().orElseThrow();
  }
}
