package io.fffs.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
 * Readers and writers at once on a DataNode whose arena is far smaller than the data, so arena slots are evicted
 * and reused while reads of them are in flight. Every byte read must be right. (A read once sent arena pages with
 * sendfile, which keeps referencing a page until the peer reads it: a reused slot then reached the reader as
 * CORRUPT. `dev-support/soak.sh` found it.)
 */
class ReadsUnderEvictionTest {
  private static final int RECORD = 4096;

  @TempDir
  Path base;

  private static byte[] record(int writer, long sequence) {
    ByteBuffer record = ByteBuffer.allocate(RECORD);
    Random fill = new Random(writer * 1_000_003L + sequence);
    while (record.hasRemaining()) {
      record.put((byte) fill.nextInt());
    }
    return record.array();
  }

  @Test
  void everyByteReadIsRightWhileSlotsAreReused() throws Exception {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", 8L << 20);
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).memoryCapacity(8L << 20)
        .build()) {
      int writers = 2;
      AtomicLong[] flushed = {new AtomicLong(), new AtomicLong()};
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
      // Each writer writes 16 MiB at least (twice the arena, however slow the machine) and 64 MiB at most (however
      // fast: readers read whole files); readers go on while any writer does.
      long minRecords = (16L << 20) / RECORD;
      long maxRecords = (64L << 20) / RECORD;
      java.util.concurrent.atomic.AtomicInteger writing = new java.util.concurrent.atomic.AtomicInteger(writers);
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<Long>> tasks = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
          fs.create(new org.apache.hadoop.fs.Path("/evict/w" + w), true).close();
        }
        tasks.add(pool.submit(() -> {
          try (FreezeFrameFileSystem fs = cluster.getFileSystem();
              FSDataOutputStream out = fs.append(new org.apache.hadoop.fs.Path("/evict/w" + writer))) {
            long sequence = 0;
            while (sequence < minRecords || (sequence < maxRecords && System.nanoTime() < deadline)) {
              for (int i = 0; i < 16; i++) {
                out.write(record(writer, sequence++));
              }
              out.hflush();
              flushed[writer].set(sequence);
            }
            return sequence;
          } finally {
            writing.decrementAndGet();
          }
        }));
      }
      for (int r = 0; r < 2; r++) {
        int reader = r;
        tasks.add(pool.submit(() -> {
          long checked = 0;
          try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
            while (checked < 2 || writing.get() > 0) {
              int writer = (int) ((reader + checked) % writers);
              long before = flushed[writer].get();
              try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/evict/w" + writer))) {
                byte[] bytes = in.readAllBytes();
                assertThat(bytes.length % RECORD).isZero();
                for (int i = 0; i < bytes.length / RECORD; i++) {
                  byte[] actual = java.util.Arrays.copyOfRange(bytes, i * RECORD, (i + 1) * RECORD);
                  assertThat(actual).as("record %d of w%d", i, writer).isEqualTo(record(writer, i));
                }
                assertThat((long) bytes.length / RECORD).isGreaterThanOrEqualTo(before);
              }
              checked++;
            }
          }
          return checked;
        }));
      }
      pool.shutdown();
      for (Future<Long> task : tasks) {
        task.get(120, TimeUnit.SECONDS);  // a writer's or reader's failure fails the test
      }
      // The writers wrote 4 times the arena at least: readers of the oldest bytes met evicted pages.
      assertThat(cluster.getDataNode(0).store().stats().pagesEvicted.sum()).isPositive();
    }
  }
}
