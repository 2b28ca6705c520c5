package io.fffs.bench.wave;

import java.util.List;

/**
 * One reconstruction's frames summed up: the row of the results table.
 *
 * @param frames frames in the movie
 * @param exactFrames frames in which every cell shows the frame's sample
 * @param exactFraction cells showing the frame's sample, over all frames
 * @param meanErrorMs mean temporal error over all cells of all frames
 * @param maxErrorMs the largest temporal error of any cell
 * @param mixedFrames frames that mix samples of different times
 * @param violatingFrames frames with at least one causality violation
 * @param missingCells cell-frames with no sample at all
 */
record MovieSummary(int frames, int exactFrames, double exactFraction, double meanErrorMs, double maxErrorMs,
    int mixedFrames, int violatingFrames, long missingCells) {

  static MovieSummary of(List<FrameMetrics> metrics) {
    int exactFrames = 0;
    int mixed = 0;
    int violating = 0;
    long missing = 0;
    double exact = 0;
    double error = 0;
    double max = 0;
    for (FrameMetrics m : metrics) {
      exactFrames += m.exactFraction() == 1.0 ? 1 : 0;
      mixed += m.mixed() ? 1 : 0;
      violating += m.causalityViolations() > 0 ? 1 : 0;
      missing += m.missingCells();
      exact += m.exactFraction();
      error += m.meanErrorMs();
      max = Math.max(max, m.maxErrorMs());
    }
    int n = Math.max(1, metrics.size());
    return new MovieSummary(metrics.size(), exactFrames, exact / n, error / n, max, mixed, violating, missing);
  }
}
