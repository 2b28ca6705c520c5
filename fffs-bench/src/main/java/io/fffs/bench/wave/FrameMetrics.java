package io.fffs.bench.wave;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How faithful one reconstructed frame is. A cell's temporal error is the distance in time between the sample it
 * shows and the sample that belongs to the frame ({@link WaveSchedule#expectedSample}); a cell with no sample at
 * all counts as showing the sample before sample 0. A frame <em>mixes</em> times when its cells show samples of
 * more than one time; a cell <em>violates causality</em> when it shows an older sample than it already showed in
 * an earlier frame (time ran backwards for it).
 *
 * @param frame the frame's index
 * @param frameTimeMicros the time the frame shows (µs since the epoch)
 * @param exactFraction the fraction of cells showing exactly the frame's sample
 * @param meanErrorMs the cells' mean temporal error
 * @param maxErrorMs the cells' largest temporal error
 * @param mixed whether the cells show samples of different times
 * @param missingCells cells with no sample
 * @param causalityViolations cells older than in an earlier frame
 * @param takenLateMs HDFS only: how long after the frame's time its snapshot was taken (NaN otherwise)
 */
record FrameMetrics(int frame, long frameTimeMicros, double exactFraction, double meanErrorMs, double maxErrorMs,
    boolean mixed, int missingCells, int causalityViolations, double takenLateMs) {

  /** The metrics of every frame of a movie, in order; {@code takenAtMicros} may be null. */
  static List<FrameMetrics> of(WaveSchedule schedule, List<Frame> movie, long[] takenAtMicros) {
    List<FrameMetrics> out = new ArrayList<>(movie.size());
    int[] newestShown = null;
    for (int k = 0; k < movie.size(); k++) {
      Frame frame = movie.get(k);
      if (newestShown == null) {
        newestShown = new int[frame.cells()];
        java.util.Arrays.fill(newestShown, Frame.MISSING);
      }
      int expected = schedule.expectedSample(k);
      int exact = 0;
      int missing = 0;
      int violations = 0;
      double sumError = 0;
      double maxError = 0;
      Set<Integer> shownSamples = new HashSet<>();
      for (int cell = 0; cell < frame.cells(); cell++) {
        int shown = frame.samples()[cell];
        shownSamples.add(shown);
        if (shown == expected) {
          exact++;
        }
        if (shown == Frame.MISSING) {
          missing++;
        }
        double error = Math.abs(expected - shown) * schedule.samplePeriodMicros() / 1000.0;
        sumError += error;
        maxError = Math.max(maxError, error);
        if (shown < newestShown[cell]) {
          violations++;
        }
        newestShown[cell] = Math.max(newestShown[cell], shown);
      }
      double late = takenAtMicros == null ? Double.NaN : (takenAtMicros[k] - schedule.frameTime(k)) / 1000.0;
      out.add(new FrameMetrics(k, schedule.frameTime(k), (double) exact / frame.cells(), sumError / frame.cells(),
          maxError, shownSamples.size() > 1, missing, violations, late));
    }
    return out;
  }
}
