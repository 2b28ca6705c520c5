package io.fffs.bench.wave;

import io.fffs.plugins.WaveRecord;
import java.io.IOException;

/** Putting a record read back into a frame, checking it is one this run wrote for that cell. */
final class WaveFrames {
  private WaveFrames() {}

  static void show(Frame frame, int cell, WaveRecord record, WaveSchedule schedule, String where)
      throws IOException {
    if (record == null) {
      return;
    }
    int sample = schedule.sampleIndex(record.sampleTimeMicros());
    if (record.cellId() != cell || sample < 0) {
      throw new IOException(where + " holds " + record + ", which no sensor of cell " + cell + " wrote");
    }
    frame.samples()[cell] = sample;
    frame.heights()[cell] = record.height();
  }
}
