package io.fffs.bench.wave;

import io.fffs.common.time.PhysicalClock;
import io.fffs.plugins.WaveRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The sensors: one thread per cell, each with its own {@link SensorSink}. Stream {@code c} takes sample j at
 * {@link WaveSchedule#sampleTime}, and its record reaches the sink after the {@link NetworkDelay} (later if the sink
 * is still busy with the record before: a slow file system makes data pile up, as in the paper's HDFS run).
 */
final class SensorFleet {
  private final WaveSchedule schedule;
  private final int side;
  private final WaveField field;
  private final NetworkDelay delay;
  private final PhysicalClock clock;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final long[] written;
  private final long[] lagSumMicros;
  private final long[] lagMaxMicros;
  private volatile boolean stopped;

  SensorFleet(WaveSchedule schedule, int side, WaveField field, NetworkDelay delay, PhysicalClock clock) {
    this.schedule = schedule;
    this.side = side;
    this.field = field;
    this.delay = delay;
    this.clock = clock;
    int cells = side * side;
    this.written = new long[cells];
    this.lagSumMicros = new long[cells];
    this.lagMaxMicros = new long[cells];
  }

  /**
   * How the streams fared: records stored, and the storage lag (from a sample being taken to its write
   * returning) on average and at worst.
   */
  record Stats(long records, long expectedRecords, double meanLagMs, double maxLagMs) {}

  /** Starts one writer thread per sink (sink i is cell i); the caller keeps the sinks and closes them. */
  void start(List<SensorSink> sinks) {
    for (int cell = 0; cell < sinks.size(); cell++) {
      int c = cell;
      SensorSink sink = sinks.get(cell);
      Thread t = new Thread(() -> runStream(c, sink), "wave-sensor-" + cell);
      t.setDaemon(true);
      threads.add(t);
    }
    threads.forEach(Thread::start);
  }

  /** Lets every stream stop after its current record (the HDFS run stops once its last snapshot is taken). */
  void stop() {
    stopped = true;
  }

  /** Waits for every stream to finish; rethrows the first stream's failure. */
  Stats await() throws IOException, InterruptedException {
    for (Thread t : threads) {
      t.join();
    }
    Throwable t = failure.get();
    if (t instanceof IOException e) {
      throw e;
    }
    if (t != null) {
      throw new IOException("a sensor stream failed", t);
    }
    long records = 0;
    long lagSum = 0;
    long lagMax = 0;
    for (int c = 0; c < written.length; c++) {
      records += written[c];
      lagSum += lagSumMicros[c];
      lagMax = Math.max(lagMax, lagMaxMicros[c]);
    }
    return new Stats(records, (long) written.length * schedule.samples(),
        records == 0 ? 0 : lagSum / 1000.0 / records, lagMax / 1000.0);
  }

  private void runStream(int cell, SensorSink sink) {
    SplittableRandom random = delay.stream(cell);
    try {
      for (int j = 0; j < schedule.samples() && !stopped; j++) {
        long taken = schedule.sampleTime(j);
        Clocks.sleepUntil(clock, taken + delay.next(random));
        if (stopped) {
          break;
        }
        float height = field.cellHeight(cell, side, schedule.waveSeconds(taken));
        sink.write(WaveRecord.encode(cell, taken, height));
        long lag = clock.currentTimeMicros() - taken;
        written[cell]++;
        lagSumMicros[cell] += lag;
        lagMaxMicros[cell] = Math.max(lagMaxMicros[cell], lag);
      }
    } catch (IOException | RuntimeException e) {
      failure.compareAndSet(null, e);
      stopped = true;
    } catch (InterruptedException e) {
      failure.compareAndSet(null, e);
      stopped = true;
      Thread.currentThread().interrupt();
    }
  }
}
