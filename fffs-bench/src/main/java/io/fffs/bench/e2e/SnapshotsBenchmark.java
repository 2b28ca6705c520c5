package io.fffs.bench.e2e;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.knowm.xchart.XYChart;

/**
 * Paper Fig. 11 on this machine: random 32 KiB overwrites of a one-block file (each a log entry over 8–9 pages of
 * 4 KiB), the current time taken after every {@code stride} writes, then the whole file read at each of those past
 * states ({@code open(path, TimeSpec.system(t))}), each state's read rate compared with the latest state's read
 * rate measured in the same run. Two passes over the states (ascending, then descending); every read of a past
 * state is paired at once with a read of the latest state (after it in the first pass, before it in the second),
 * and a state's ratio is its two reads' rate over the rate of its two paired latest reads, so that the load of the
 * shared cores drifts out of the ratio. One state is also read through the {@code @s} path marker and checked to
 * give the same bytes as the API. The full run is the paper's (and the issue's): a 64 MiB file, 500,000 writes, 500
 * states, one every 1,000 writes — about 17.4 GiB of arena pages (every write is 9 fresh pages), all kept in memory,
 * so the machine needs ~22 GiB free; {@code -Dfffs.bench.snapshots.writes=N} and {@code .states=M} shrink it.
 * Quick: 16 MiB, 4,000 writes, 40 states.
 *
 * <p>Whole-file reads of 30–70 ms swing by 2× on two shared cores, so a second estimator reads each state
 * interleaved with the latest: three streams open at once (the state, and the latest twice), the file read 3 times
 * (quick: once; {@code -Dfffs.bench.snapshots.passes=N}) through each in 4 MiB positional reads
 * ({@code -Dfffs.bench.snapshots.piece=BYTES}), piece by piece in rotating order (state, A, B; A, B, state; ...),
 * each stream at a different piece of the file at each step (so no read finds the bytes it reads in the cache
 * from the read just before it).
 * A state's ratio is the mean of its latest reads' time over its own; its control is latest A over latest B — the
 * same bytes, the same estimator, so what the control shows below 0.90 is the noise alone. Both are also given as
 * the median of the per-piece ratios, which one stalled piece cannot move.
 */
final class SnapshotsBenchmark implements EndToEndBenchmark.Run {
  private static final int WRITE = 32 << 10;
  private static final int READ_BUFFER = 1 << 20;
  static final int PIECE = Integer.getInteger("fffs.bench.snapshots.piece", 4 << 20);
  private static final int INTERLEAVED_PASSES = Integer.getInteger("fffs.bench.snapshots.passes", 3);

  @Override
  public String run(BenchArgs args, Path tmp) throws Exception {
    long fileSize = args.quick() ? 16L << 20 : 64L << 20;
    int writes = args.quick() ? 4_000 : Integer.getInteger("fffs.bench.snapshots.writes", 500_000);
    int states = args.quick() ? 40 : Integer.getInteger("fffs.bench.snapshots.states", 500);
    if (states < 2 || writes % states != 0) {
      throw new IllegalArgumentException("fffs.bench.snapshots.writes (" + writes + ") must be a multiple of"
          + " fffs.bench.snapshots.states (" + states + "), and there must be at least 2 states");
    }
    int stride = writes / states;
    long arena = fileSize + (long) writes * 9 * 4096 + (128L << 20);
    requireMemory(arena, writes);
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("/snapshots/file");
    long[] stateMicros = new long[states];
    double[] stateBytes = new double[states];
    double[] stateNanos = new double[states];
    double[] pairedNanos = new double[states];
    List<Double> latest = new ArrayList<>();
    String markerCheck;
    Interleaved interleaved;
    MiniFffsCluster cluster = null;
    try {
      cluster = Clusters.fffs(tmp.resolve("fffs"), new Configuration(), arena);
      Progress.say("cluster up (arena %d MiB); writing %d MiB, then %d random 32 KiB writes, %d states",
          arena >> 20, fileSize >> 20, writes, states);
      try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
        FileIo.write(fs, path, fileSize, FileIo.randomBytes(1 << 20, 1));
        byte[] data = FileIo.randomBytes(WRITE, 2);
        Random random = new Random(3);
        long started = System.nanoTime();
        try (FffsDataOutputStream out = fs.openForWrite(path)) {
          for (int i = 0; i < writes; i++) {
            out.seek((long) (random.nextDouble() * (fileSize - WRITE)));
            data[i % WRITE] ^= (byte) i; // every write differs
            out.write(data);
            if ((i + 1) % stride == 0) {
              out.hflush();
              stateMicros[(i + 1) / stride - 1] = fs.currentTime().physicalMicros();
            }
            if ((i + 1) % (writes / 10) == 0) {
              Progress.say("  %d of %d writes", i + 1, writes);
            }
          }
        }
        Progress.say("writes done: %.0f writes/s", writes / ((System.nanoTime() - started) / 1e9));
        byte[] buffer = new byte[READ_BUFFER];
        for (int i = 0; i < 2; i++) {
          latest.add(FileIo.read(fs, path, fileSize, buffer)); // warm-up
        }
        latest.clear();
        for (int pass = 0; pass < 2; pass++) {
          for (int k = 0; k < states; k++) {
            int s = pass == 0 ? k : states - 1 - k;
            // The first pass reads the state first, the second the latest first: a read that gains from
            // following another one gains on both sides alike.
            for (int turn = 0; turn < 2; turn++) {
              boolean readState = (turn == 0) == (pass == 0);
              long t0 = System.nanoTime();
              if (readState) {
                FileIo.readAll(fs.open(path, TimeSpec.system(stateMicros[s])), fileSize, buffer, t0);
                stateNanos[s] += System.nanoTime() - t0;
                stateBytes[s] += fileSize;
              } else {
                latest.add(FileIo.readAll(fs.open(path), fileSize, buffer, t0));
                pairedNanos[s] += System.nanoTime() - t0;
              }
            }
          }
          Progress.say("pass %d of 2 over the states done; latest so far %.2f GB/s (median)", pass + 1,
              median(latest));
        }
        interleaved = interleaved(fs, path, fileSize, stateMicros, args.quick() ? 1 : INTERLEAVED_PASSES);
        markerCheck = checkMarker(fs, path, stateMicros[states / 2], buffer);
        Progress.say("%s", markerCheck);
      }
    } finally {
      if (cluster != null) {
        cluster.close();
      }
    }
    double latestRate = median(latest);
    double[] rate = new double[states];
    double[] ratio = new double[states];
    for (int s = 0; s < states; s++) {
      rate[s] = stateBytes[s] / stateNanos[s];
      ratio[s] = pairedNanos[s] / stateNanos[s]; // same bytes: the rate ratio is the inverse time ratio
    }
    double[] sorted = ratio.clone();
    Arrays.sort(sorted);
    long below = Arrays.stream(ratio).filter(r -> r < 0.9).count();
    // Control: the same estimator on latest-vs-latest (the paired latest reads of neighbouring states): how often
    // does the noise of the shared cores alone put a ratio below 0.90?
    long controlBelow = 0;
    for (int s = 0; s + 1 < states; s++) {
      controlBelow += pairedNanos[s + 1] / pairedNanos[s] < 0.9 ? 1 : 0;
    }
    System.out.printf(Locale.ROOT, "%nsnapshots: %d MiB file, %d random 32 KiB writes, %d states; latest read %.2f"
        + " GB/s (median of %d, min %.2f, max %.2f)%n%n", fileSize >> 20, writes, states, latestRate, latest.size(),
        latest.stream().mapToDouble(d -> d).min().orElse(Double.NaN),
        latest.stream().mapToDouble(d -> d).max().orElse(Double.NaN));
    System.out.printf(Locale.ROOT, "control (latest vs latest, same estimator): %d of %d ratios < 0.90%n%n",
        controlBelow, states - 1);
    System.out.println("| state/latest | min | p5 | p25 | median | p75 | max | states < 0.90 |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    System.out.printf(Locale.ROOT, "| ratio | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %d of %d |%n", sorted[0],
        q(sorted, 0.05), q(sorted, 0.25), q(sorted, 0.5), q(sorted, 0.75), sorted[states - 1], below, states);
    double[] ilSorted = printRow("interleaved, " + (PIECE >> 20) + " MiB pieces", interleaved.ratio(),
        interleaved.control());
    long ilBelow = below(interleaved.ratio());
    long ilControlBelow = below(interleaved.control());
    double[] medSorted = printRow("interleaved, median of pieces", interleaved.medianRatio(),
        interleaved.medianControl());
    long medBelow = below(interleaved.medianRatio());
    long medControlBelow = below(interleaved.medianControl());
    Report csv = new Report("kind", "index", "writes_applied", "state_time_us", "read_gbps", "over_latest");
    for (int s = 0; s < states; s++) {
      csv.row("state", s, (long) (s + 1) * stride, stateMicros[s], rate[s], ratio[s]);
    }
    for (int s = 0; s < states; s++) {
      csv.row("state-interleaved", s, (long) (s + 1) * stride, stateMicros[s], interleaved.rate()[s],
          interleaved.ratio()[s]);
      csv.row("control-interleaved", s, (long) writes, "", Double.NaN, interleaved.control()[s]);
      csv.row("state-interleaved-median", s, (long) (s + 1) * stride, stateMicros[s], Double.NaN,
          interleaved.medianRatio()[s]);
      csv.row("control-interleaved-median", s, (long) writes, "", Double.NaN, interleaved.medianControl()[s]);
    }
    for (int i = 0; i < latest.size(); i++) {
      csv.row("latest", i, (long) writes, "", latest.get(i), latest.get(i) / latestRate);
    }
    csv.writeCsv(args.csv());
    double[] control = new double[states - 1];
    for (int s = 0; s + 1 < states; s++) {
      control[s] = pairedNanos[s + 1] / pairedNanos[s];
    }
    plot(args, rate, latestRate, ratio, control, interleaved, fileSize, writes);
    return String.format(Locale.ROOT, "%d MiB file, %d random 32 KiB writes, %d states: latest %.2f GB/s;"
        + " whole-file reads: state/latest min %.2f, median %.2f, %d states < 0.90 (control latest/latest: %d of %d"
        + " < 0.90); interleaved %d MiB reads: min %.2f, median %.2f, %d states < 0.90 (control: %d of %d);"
        + " interleaved, median of pieces: min %.2f, %d states < 0.90 (control: %d); goal every state ≥ 0.90:"
        + " whole-file %s, interleaved %s, median of pieces %s; %s",
        fileSize >> 20, writes, states, latestRate, sorted[0], q(sorted, 0.5), below, controlBelow, states - 1,
        PIECE >> 20, ilSorted[0], q(ilSorted, 0.5), ilBelow, ilControlBelow, states, medSorted[0], medBelow,
        medControlBelow, verdict(below), verdict(ilBelow), verdict(medBelow), markerCheck);
  }

  /**
   * Per state: its interleaved read rate (GB/s); latest over state and its control latest A over latest B, as
   * ratios of total times and as medians of the per-piece ratios (which a stall of one piece cannot move).
   */
  record Interleaved(double[] rate, double[] ratio, double[] control, double[] medianRatio, double[] medianControl) {}

  /** The interleaved estimator (see the class comment); checks each state's bytes against the latest's. */
  static Interleaved interleaved(FreezeFrameFileSystem fs, org.apache.hadoop.fs.Path path, long fileSize,
      long[] stateMicros, int passes) throws IOException {
    int states = stateMicros.length;
    double[] rate = new double[states];
    double[] ratio = new double[states];
    double[] control = new double[states];
    double[] medianRatio = new double[states];
    double[] medianControl = new double[states];
    byte[] buffer = new byte[PIECE];
    int piecesPerPass = (int) ((fileSize + PIECE - 1) / PIECE);
    int pieces = passes * piecesPerPass;
    // Stream w reads piece (step + w * shift) at each step, so no read follows a read of the same bytes: the 32 MiB
    // L3 cache would otherwise hand the second of two reads of one 4 MiB piece warm pages (latest B after latest A).
    int shift = Math.max(1, piecesPerPass / 3);
    CRC32C crc = new CRC32C();
    for (int s = 0; s < states; s++) {
      long[] nanos = new long[3];
      long[][] pieceNanos = new long[3][pieces];
      long[][] pieceCrcs = new long[3][piecesPerPass];
      FSDataInputStream[] in = {fs.open(path, TimeSpec.system(stateMicros[s])), fs.open(path), fs.open(path)};
      try {
        for (int piece = 0; piece < pieces; piece++) {
          for (int j = 0; j < 3; j++) {
            int which = (j + piece) % 3;
            int at = (piece + which * shift) % piecesPerPass;
            long offset = (long) at * PIECE;
            int n = (int) Math.min(PIECE, fileSize - offset);
            long t0 = System.nanoTime();
            in[which].readFully(offset, buffer, 0, n);
            long took = System.nanoTime() - t0;
            nanos[which] += took;
            pieceNanos[which][piece] = took;
            crc.reset();
            crc.update(buffer, 0, n);
            pieceCrcs[which][at] = crc.getValue();
          }
        }
      } finally {
        for (FSDataInputStream stream : in) {
          stream.close();
        }
      }
      // The last state was taken after the last write: it is the latest state; every earlier one differs from it.
      boolean sameAsLatest = Arrays.equals(pieceCrcs[0], pieceCrcs[1]);
      if (!Arrays.equals(pieceCrcs[1], pieceCrcs[2]) || sameAsLatest == (s < states - 1)) {
        throw new IOException("state " + s + " of " + states + ": the two latest reads must match, and the state must"
            + " differ from them unless it is the last");
      }
      rate[s] = (double) passes * fileSize / nanos[0];
      ratio[s] = (nanos[1] + nanos[2]) / 2.0 / nanos[0];
      control[s] = nanos[2] / (double) nanos[1];
      double[] r = new double[pieces];
      double[] c = new double[pieces];
      for (int i = 0; i < pieces; i++) {
        r[i] = (pieceNanos[1][i] + pieceNanos[2][i]) / 2.0 / pieceNanos[0][i];
        c[i] = pieceNanos[2][i] / (double) pieceNanos[1][i];
      }
      Arrays.sort(r);
      Arrays.sort(c);
      medianRatio[s] = q(r, 0.5);
      medianControl[s] = q(c, 0.5);
      if ((s + 1) % Math.max(1, states / 4) == 0) {
        Progress.say("interleaved reads: %d of %d states", s + 1, states);
      }
    }
    return new Interleaved(rate, ratio, control, medianRatio, medianControl);
  }

  /**
   * The arena is tmpfs memory and every page version stays in it: refuse to start (rather than push the machine
   * into swapping or the OOM killer) unless the arena and ~4 GiB for the JVM fit in the memory available now.
   */
  private static void requireMemory(long arena, int writes) {
    long available = Machine.availableMemoryBytes();
    long needed = arena + (4L << 30);
    if (available >= 0 && available < needed) {
      throw new IllegalStateException(String.format(Locale.ROOT, "%,d writes need a %.1f GiB arena and ~4 GiB for"
          + " the JVM, but only %.1f GiB of memory is available; free memory or run fewer writes with"
          + " -Dfffs.bench.snapshots.writes=N (a multiple of fffs.bench.snapshots.states)", writes,
          arena / (double) (1L << 30), available / (double) (1L << 30)));
    }
  }

  /** Reads one state through the {@code @s} path marker and through the API; both must give the same bytes. */
  private static String checkMarker(FreezeFrameFileSystem fs, org.apache.hadoop.fs.Path path, long micros,
      byte[] buffer) throws IOException {
    String marker = String.format(Locale.ROOT, "@s%d.%03d", micros / 1000, micros % 1000);
    org.apache.hadoop.fs.Path marked = new org.apache.hadoop.fs.Path(path.toString() + marker);
    long viaMarker = crc(fs.open(marked), buffer);
    long viaApi = crc(fs.open(path, TimeSpec.system(micros)), buffer);
    long now = crc(fs.open(path), buffer);
    if (viaMarker != viaApi) {
      throw new IOException(marked + " and open(path, system(" + micros + ")) gave different bytes");
    }
    if (viaMarker == now) {
      throw new IOException(marked + " gave the latest bytes, not the past state's");
    }
    return "@s marker read = API read of the same state ≠ latest (CRC32C checked)";
  }

  private static long crc(FSDataInputStream in, byte[] buffer) throws IOException {
    CRC32C crc = new CRC32C();
    try (in) {
      for (int r; (r = in.read(buffer, 0, buffer.length)) > 0; ) {
        crc.update(buffer, 0, r);
      }
    }
    return crc.getValue();
  }

  private static void plot(BenchArgs args, double[] rate, double latestRate, double[] ratio, double[] control,
      Interleaved interleaved, long fileSize, int writes) throws IOException {
    int n = rate.length;
    double[] x = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = i;
    }
    XYChart chart = Charts.xy(String.format(Locale.ROOT, "Whole-file read at past states: %d MiB file after %,d"
        + " random 32 KiB writes", fileSize >> 20, writes), "state (0 = oldest)", "read throughput (GB/s)");
    chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideSW);
    chart.getStyler().setYAxisMin(0.0);
    Charts.line(chart, "FFFS read at past state", x, rate);
    Charts.plain(chart, "latest state (median of all reads)", new double[] {0, n - 1},
        new double[] {latestRate, latestRate});
    Charts.plain(chart, "goal: 90% of latest", new double[] {0, n - 1},
        new double[] {0.9 * latestRate, 0.9 * latestRate});
    XYChart rel = Charts.xy("Past state / paired latest read, same run", "state (0 = oldest)",
        "ratio of read rates");
    rel.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNW);
    Charts.line(rel, "past state / its paired latest reads", x, ratio);
    Charts.plain(rel, "control: latest / latest (noise)", java.util.Arrays.copyOf(x, n - 1), control);
    Charts.plain(rel, "goal: 0.90", new double[] {0, n - 1}, new double[] {0.9, 0.9});
    XYChart il = Charts.xy(String.format(Locale.ROOT, "Past state / latest, interleaved %d MiB positional reads",
        PIECE >> 20), "state (0 = oldest)", "ratio of read rates");
    il.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideSW);
    Charts.line(il, "past state / latest (interleaved, total time)", x, interleaved.ratio());
    Charts.plain(il, "control: latest / latest (interleaved, total time)", x, interleaved.control());
    Charts.line(il, "past state / latest (median of pieces)", x, interleaved.medianRatio());
    Charts.plain(il, "goal: 0.90", new double[] {0, n - 1}, new double[] {0.9, 0.9});
    Charts.save(args.png(), List.of(chart, rel, il));
  }

  /**
   * Prints one table row of an estimator's ratios: quantiles, states below 0.90 and its control's; returns them
   * sorted.
   */
  private static double[] printRow(String label, double[] ratios, double[] controls) {
    double[] sorted = ratios.clone();
    Arrays.sort(sorted);
    System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %d of %d (control: %d) |%n", label,
        sorted[0], q(sorted, 0.05), q(sorted, 0.25), q(sorted, 0.5), q(sorted, 0.75), sorted[sorted.length - 1],
        below(ratios), ratios.length, below(controls));
    return sorted;
  }

  /** How many of {@code ratios} are below the goal, 0.90. */
  private static long below(double[] ratios) {
    return Arrays.stream(ratios).filter(r -> r < 0.9).count();
  }

  private static String verdict(long below) {
    return below == 0 ? "met" : "missed";
  }

  private static double median(List<Double> values) {
    double[] v = values.stream().mapToDouble(d -> d).sorted().toArray();
    return v.length == 0 ? Double.NaN : q(v, 0.5);
  }

  private static double q(double[] sorted, double p) {
    return sorted[(int) Math.min(sorted.length - 1, Math.round(p * (sorted.length - 1)))];
  }
}
