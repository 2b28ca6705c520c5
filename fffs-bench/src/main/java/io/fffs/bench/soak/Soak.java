package io.fffs.bench.soak;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.MemoryUsage;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;

/**
 * The soak run ({@code dev-support/soak.sh}; not in CI): N writers append numbered records with hflush and hsync,
 * R readers read the files now and at recorded past times and check every byte, for M minutes, with more data
 * than the DataNode's arena holds (so pages are evicted and reloaded). Every 10 s it prints throughput, DataNode
 * memory and the durable frontier's lag behind the clock; at the end it checks everything once more.
 * Usage: {@code bin/fffs bench soak [--writers N] [--readers R] [--minutes M] [--arena-mib A]}.
 */
public final class Soak {
  private static final int RECORD = 4096;

  /** A file's writer progress: records flushed, and (time, records) pairs readers can check the past against. */
  private static final class Progress {
    final AtomicLong flushed = new AtomicLong();
    final List<long[]> moments = new CopyOnWriteArrayList<>();
  }

  private Soak() {}

  /**
   * Record {@code sequence} of {@code writer}: the writer and the sequence number, then bytes from a generator seeded
   * with both (eight at a time, so the writers are not bound by generating their data).
   */
  private static void fill(byte[] record, int writer, long sequence) {
    ByteBuffer bytes = ByteBuffer.wrap(record);
    bytes.putInt(writer).putLong(sequence);
    SplittableRandom fill = new SplittableRandom(writer * 1_000_003L + sequence);
    while (bytes.remaining() >= Long.BYTES) {
      bytes.putLong(fill.nextLong());
    }
    while (bytes.hasRemaining()) {
      bytes.put((byte) fill.nextInt());
    }
  }

  /**
   * Reads {@code in} to its end and checks that it holds records 0..n-1 of {@code writer}, one record at a time
   * (the files outgrow any heap); returns n and counts the bytes in {@code bytesRead}.
   */
  static long check(InputStream in, int writer, String what, AtomicLong bytesRead) throws IOException {
    byte[] actual = new byte[RECORD];
    byte[] expected = new byte[RECORD];
    long n = 0;
    while (true) {
      int got = in.readNBytes(actual, 0, RECORD);
      bytesRead.addAndGet(got);
      if (got == 0) {
        return n;
      }
      if (got < RECORD) {
        throw new AssertionError(what + ": ends " + got + " bytes into record " + n + ", not on a record boundary");
      }
      fill(expected, writer, n);
      int differs = Arrays.mismatch(actual, expected);
      if (differs >= 0) {
        throw new AssertionError(what + ": record " + n + " differs at byte " + differs);
      }
      n++;
    }
  }

  public static void main(String[] args) throws Exception {
    int writers = 4;
    int readers = 4;
    double minutes = 5;
    int arenaMib = 64;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--writers": writers = Integer.parseInt(args[++i]); break;
        case "--readers": readers = Integer.parseInt(args[++i]); break;
        case "--minutes": minutes = Double.parseDouble(args[++i]); break;
        case "--arena-mib": arenaMib = Integer.parseInt(args[++i]); break;
        default: throw new IllegalArgumentException("unknown argument " + args[i]
            + "; usage: bench soak [--writers N] [--readers R] [--minutes M] [--arena-mib A]");
      }
    }
    Path base = Files.createTempDirectory("fffs-soak");
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", 8L << 20);
    long deadline = System.nanoTime() + (long) (minutes * 60e9);
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf)
        .memoryCapacity((long) arenaMib << 20).build()) {
      int writerCount = writers;
      ConcurrentHashMap<Integer, Progress> progress = new ConcurrentHashMap<>();
      AtomicLong bytesWritten = new AtomicLong();
      AtomicLong bytesRead = new AtomicLong();
      ExecutorService pool = Executors.newFixedThreadPool(writers + readers);
      List<Future<?>> tasks = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        progress.put(w, new Progress());
        tasks.add(pool.submit(() -> {
          try (FreezeFrameFileSystem fs = cluster.getFileSystem();
              FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path("/soak/w" + writer), true)) {
            long sequence = 0;
            Random random = new Random(writer);
            byte[] record = new byte[RECORD];
            while (System.nanoTime() < deadline) {
              for (int i = 0; i < 16; i++) {
                fill(record, writer, sequence++);
                out.write(record);
              }
              if (random.nextInt(8) == 0) {
                out.hsync();
              } else {
                out.hflush();
              }
              bytesWritten.addAndGet(16L * RECORD);
              progress.get(writer).flushed.set(sequence);
              HlcTimestamp now = fs.currentTime();
              if (random.nextInt(4) == 0) {
                progress.get(writer).moments.add(new long[] {now.physicalMicros(), sequence});
              }
            }
          }
          return null;
        }));
      }
      for (int r = 0; r < readers; r++) {
        int reader = r;
        tasks.add(pool.submit(() -> {
          Random random = new Random(100 + reader);
          try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
            while (System.nanoTime() < deadline) {
              int writer = random.nextInt(writerCount);
              org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/soak/w" + writer);
              List<long[]> moments = progress.get(writer).moments;
              if (moments.isEmpty() || random.nextBoolean()) {
                long before = progress.get(writer).flushed.get();
                if (!fs.exists(file)) {
                  continue;
                }
                try (FSDataInputStream in = fs.open(file)) {
                  if (check(in, writer, "latest of w" + writer, bytesRead) < before) {
                    throw new AssertionError("w" + writer + " lost flushed records");
                  }
                }
              } else {
                long[] moment = moments.get(random.nextInt(moments.size()));
                // Wait for the clock to pass the moment (the writer recorded it right after a flush).
                while (PhysicalClock.system().currentTimeMicros() <= moment[0] + 1) {
                  Thread.onSpinWait();
                }
                try (FSDataInputStream in = fs.open(file, TimeSpec.system(moment[0]))) {
                  if (check(in, writer, "w" + writer + " at " + moment[0], bytesRead) < moment[1]) {
                    throw new AssertionError("w" + writer + " at " + moment[0] + " misses records");
                  }
                }
              }
            }
          }
          return null;
        }));
      }
      pool.shutdown();
      long started = System.nanoTime();
      long lastWritten = 0;
      long lastRead = 0;
      System.out.println("seconds\twrite_MBps\tread_MBps\tdn_resident_MiB\tdn_log_index_MiB\tdurable_lag_ms");
      while (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
        long written = bytesWritten.get();
        long read = bytesRead.get();
        BlockStore store = cluster.getDataNode(0).store();
        MemoryUsage memory = store.memoryUsage();
        long lagMs = (PhysicalClock.system().currentTimeMicros() - store.durableFrontier().physicalMicros())
            / 1000;
        System.out.printf("%.0f\t%.1f\t%.1f\t%d\t%d\t%d%n", (System.nanoTime() - started) / 1e9,
            (written - lastWritten) / 10e6, (read - lastRead) / 10e6, memory.residentPageBytes() >> 20,
            (memory.logBytes() + memory.indexBytes()) >> 20, lagMs);
        lastWritten = written;
        lastRead = read;
      }
      for (Future<?> task : tasks) {
        task.get();
      }
      try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
        long total = 0;
        for (int w = 0; w < writers; w++) {
          try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/soak/w" + w))) {
            total += check(in, w, "final w" + w, new AtomicLong());
          }
        }
        System.out.printf("OK: %d records (%d MiB, arena %d MiB) written and checked; %d MiB read during the run%n",
            total, total * RECORD >> 20, arenaMib, bytesRead.get() >> 20);
      }
    } finally {
      io.fffs.bench.BenchFiles.deleteRecursively(base);
    }
    System.exit(0);
  }
}
