package io.fffs.bench.wave;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.TimeSpec;
import io.fffs.plugins.WaveRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;

/**
 * Rebuilds the movie from FFFS after the run: frame k is every cell's file read as of the frame's time, by system
 * time or by user time, and each cell shows the last record of what it read. Nothing was planned ahead: no
 * snapshot was taken while the sensors wrote.
 */
final class FffsFrameReader {
  private final FreezeFrameFileSystem fs;
  private final Path dir;
  private final int cells;

  FffsFrameReader(FreezeFrameFileSystem fs, Path dir, int cells) {
    this.fs = fs;
    this.dir = dir;
    this.cells = cells;
  }

  /** The movie by system time ({@code @s}) or user time ({@code @u}). */
  List<Frame> read(WaveSchedule schedule, Reconstruction how) throws IOException {
    LongFunction<TimeSpec> at = switch (how) {
      case FFFS_SYSTEM -> TimeSpec::system;
      case FFFS_USER -> TimeSpec::user;
      default -> throw new IllegalArgumentException(how + " is not read from FFFS");
    };
    List<Frame> movie = new ArrayList<>(schedule.frames());
    for (int k = 0; k < schedule.frames(); k++) {
      movie.add(frame(schedule, at.apply(schedule.frameTime(k))));
    }
    return movie;
  }

  private Frame frame(WaveSchedule schedule, TimeSpec time) throws IOException {
    Frame frame = Frame.empty(cells);
    for (int cell = 0; cell < cells; cell++) {
      Path file = WaveFiles.cellFile(dir, cell);
      WaveRecord last;
      try (FSDataInputStream in = fs.open(file, time)) {
        last = WaveFiles.lastRecord(in, in.available());
      }
      WaveFrames.show(frame, cell, last, schedule, file + " at " + time);
    }
    return frame;
  }
}
