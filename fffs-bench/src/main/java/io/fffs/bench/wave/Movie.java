package io.fffs.bench.wave;

import java.util.List;

/**
 * One reconstruction of the movie and how it was made.
 *
 * @param reconstruction which one
 * @param schedule the sampling and frame times of its run
 * @param frames frame k shows the tank at {@code schedule.frameTime(k)}
 * @param takenAtMicros HDFS only: when snapshot k was actually taken (null otherwise)
 * @param writers how the sensor streams of its run fared
 */
record Movie(Reconstruction reconstruction, WaveSchedule schedule, List<Frame> frames, long[] takenAtMicros,
    SensorFleet.Stats writers) {

  List<FrameMetrics> metrics() {
    return FrameMetrics.of(schedule, frames, takenAtMicros);
  }

  MovieSummary summary() {
    return MovieSummary.of(metrics());
  }
}
