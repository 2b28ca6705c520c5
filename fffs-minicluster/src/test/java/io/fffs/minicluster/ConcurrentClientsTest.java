package io.fffs.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 8 writers and 8 readers at once, for a bounded time: each writer appends numbered records to its own file and to
 * one shared directory, with hflush; readers keep reading every file and check that whatever they see is a prefix
 * of well-formed records (never torn, never out of order), and at the end every record is there.
 */
class ConcurrentClientsTest {
  private static final int WRITERS = 8;
  private static final int READERS = 8;
  private static final int RECORD = 64;
  private static final long RUN_MILLIS = 4_000;
  /** Per writer, however slow the machine: 100 flushes at least. */
  private static final long MIN_RECORDS = 2_000;
  /** Per writer, however fast the machine: readers read whole files, again and again. */
  private static final long MAX_RECORDS = 200_000;

  @TempDir
  Path base;

  private static byte[] record(int writer, long sequence) {
    ByteBuffer record = ByteBuffer.allocate(RECORD);
    record.putInt(writer).putLong(sequence);
    while (record.hasRemaining()) {
      record.put((byte) (writer * 7 + sequence));
    }
    return record.array();
  }

  /** Checks {@code bytes} is whole records of {@code writer} numbered 0, 1, 2, ...; returns how many. */
  private static long checkRecords(byte[] bytes, int writer, int visible) {
    assertThat(visible % RECORD).as("visible length is whole records").isZero();
    ByteBuffer buffer = ByteBuffer.wrap(bytes, 0, visible);
    long count = 0;
    while (buffer.hasRemaining()) {
      byte[] expected = record(writer, count);
      byte[] actual = new byte[RECORD];
      buffer.get(actual);
      assertThat(actual).as("record %d of writer %d", count, writer).isEqualTo(expected);
      count++;
    }
    return count;
  }

  @Test
  void writersAndReadersAtOnceSeeOnlyWholeOrderedRecords() throws Exception {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", 128 * 1024);
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(2).build()) {
      ExecutorService pool = Executors.newFixedThreadPool(WRITERS + READERS);
      AtomicLong[] flushed = new AtomicLong[WRITERS];
      try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
        for (int w = 0; w < WRITERS; w++) {
          flushed[w] = new AtomicLong();
          fs.create(new org.apache.hadoop.fs.Path("/concurrent/w" + w), true).close();
        }
      }
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MILLIS);  // once the files exist
      List<Future<Long>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        writers.add(pool.submit(() -> {
          try (FreezeFrameFileSystem fs = cluster.getFileSystem();
              FSDataOutputStream out = fs.append(new org.apache.hadoop.fs.Path("/concurrent/w" + writer))) {
            long sequence = 0;
            while (sequence < MIN_RECORDS || (System.nanoTime() < deadline && sequence < MAX_RECORDS)) {
              for (int i = 0; i < 20; i++) {
                out.write(record(writer, sequence++));
              }
              out.hflush();
              flushed[writer].set(sequence);
            }
            return sequence;
          }
        }));
      }
      List<Future<Long>> readers = new ArrayList<>();
      for (int r = 0; r < READERS; r++) {
        int first = r;
        readers.add(pool.submit(() -> {
          long reads = 0;
          try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
            while (System.nanoTime() < deadline) {
              int writer = (int) ((first + reads) % WRITERS);
              long before = flushed[writer].get();
              try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/concurrent/w" + writer))) {
                byte[] bytes = in.readAllBytes();
                long seen = checkRecords(bytes, writer, bytes.length);
                assertThat(seen).as("a reader sees at least what was flushed before it opened")
                    .isGreaterThanOrEqualTo(before);
              }
              reads++;
            }
          }
          return reads;
        }));
      }
      long[] written = new long[WRITERS];
      for (int w = 0; w < WRITERS; w++) {
        written[w] = writers.get(w).get(60, TimeUnit.SECONDS);
      }
      long totalReads = 0;
      for (Future<Long> reader : readers) {
        totalReads += reader.get(60, TimeUnit.SECONDS);
      }
      pool.shutdown();
      assertThat(totalReads).isGreaterThan(READERS);
      try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
        for (int w = 0; w < WRITERS; w++) {
          try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/concurrent/w" + w))) {
            byte[] bytes = in.readAllBytes();
            assertThat(checkRecords(bytes, w, bytes.length)).isEqualTo(written[w]);
          }
        }
      }
    }
  }
}
