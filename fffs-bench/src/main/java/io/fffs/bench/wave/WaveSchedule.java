package io.fffs.bench.wave;

/**
 * When the sensors sample and when the movie's frames are taken, in µs since the epoch. Sample j of every cell is
 * taken at {@code start + j·samplePeriod} (the streams are time-synchronized, as in the paper); frame k shows the
 * tank at {@code t0 + k·framePeriod} with {@code t0 = start + phase}. The sample that belongs to frame k is the
 * newest sample taken at or before the frame's time.
 *
 * @param startMicros the time of sample 0
 * @param samplePeriodMicros time between two samples of a cell (50 ms at 20 samples/s)
 * @param samples samples per cell
 * @param framePeriodMicros time between two frames (100 ms)
 * @param phaseMicros {@code t0 - start}, in [0, samplePeriod)
 * @param frames frames of the movie
 */
record WaveSchedule(long startMicros, long samplePeriodMicros, int samples, long framePeriodMicros,
    long phaseMicros, int frames) {

  WaveSchedule {
    if (samplePeriodMicros <= 0 || framePeriodMicros <= 0 || samples <= 0 || frames <= 0) {
      throw new IllegalArgumentException("periods and counts must be positive");
    }
    if (phaseMicros < 0 || phaseMicros >= samplePeriodMicros) {
      throw new IllegalArgumentException("phase " + phaseMicros + " µs is not in [0, " + samplePeriodMicros + ")");
    }
  }

  /** A schedule of {@code seconds} of samples and the frames that fit in them. */
  static WaveSchedule of(long startMicros, int sampleHz, long framePeriodMillis, long phaseMillis, int seconds) {
    long samplePeriod = 1_000_000L / sampleHz;
    int samples = seconds * sampleHz;
    long phase = phaseMillis * 1000;
    long lastSample = (samples - 1) * samplePeriod;
    int frames = (int) ((lastSample - phase) / (framePeriodMillis * 1000)) + 1;
    return new WaveSchedule(startMicros, samplePeriod, samples, framePeriodMillis * 1000, phase, frames);
  }

  long t0Micros() {
    return startMicros + phaseMicros;
  }

  long sampleTime(int sample) {
    return startMicros + sample * samplePeriodMicros;
  }

  long frameTime(int frame) {
    return t0Micros() + frame * framePeriodMicros;
  }

  /** The sample that belongs to frame {@code frame}: the newest taken at or before its time. */
  int expectedSample(int frame) {
    return (int) Math.min(samples - 1, (frameTime(frame) - startMicros) / samplePeriodMicros);
  }

  /** The index of the sample taken at {@code sampleTimeMicros}; -1 if no sample of this schedule was. */
  int sampleIndex(long sampleTimeMicros) {
    long since = sampleTimeMicros - startMicros;
    if (since < 0 || since % samplePeriodMicros != 0 || since / samplePeriodMicros >= samples) {
      return -1;
    }
    return (int) (since / samplePeriodMicros);
  }

  /** Seconds since sample 0, the wave's own time axis. */
  double waveSeconds(long micros) {
    return (micros - startMicros) / 1e6;
  }
}
