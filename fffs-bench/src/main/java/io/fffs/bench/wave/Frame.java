package io.fffs.bench.wave;

import java.util.Arrays;

/**
 * One reconstructed frame: per cell (row-major), the index of the sample it shows and that sample's height;
 * {@link #MISSING} and NaN where the reconstruction had no sample of the cell at all.
 */
record Frame(int[] samples, float[] heights) {
  static final int MISSING = -1;

  static Frame empty(int cells) {
    int[] samples = new int[cells];
    float[] heights = new float[cells];
    Arrays.fill(samples, MISSING);
    Arrays.fill(heights, Float.NaN);
    return new Frame(samples, heights);
  }

  int cells() {
    return samples.length;
  }
}
