package io.fffs.minicluster.dataserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;

import io.fffs.client.data.WriteOptions;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.server.DataServer;
import io.fffs.datanode.server.DataServerStats;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Small writes that find the write path idle are applied by the event loop, larger ones and writes behind others by
 * the store writer ({@link StoreWriter}). Mixed, from several connections at once, every block must end up as its
 * writes say, in the order they were sent, each acknowledgement with a later entry HLC than the one before.
 */
class InlineWritesTest {
  private static final WriteOptions OPTIONS = new WriteOptions(1 << 20, null);

  @TempDir
  Path dir;

  @Test
  void writesAppliedByEventLoopsAndByTheStoreWriterKeepTheirOrder() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      DataServerStats stats = writeConcurrently(f);
      assertThat(stats.writesInline.sum()).as("writes the event loops applied").isPositive();
      assertThat(stats.writes.sum() - stats.writesInline.sum()).as("writes the store writer applied").isPositive();
    }
  }

  @Test
  void withInliningOffEveryWriteGoesThroughTheStoreWriter() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir)) {
      f.conf.setInt(DataServer.INLINE_WRITE_MAX_KEY, 0);
      f.start();
      DataServerStats stats = writeConcurrently(f);
      assertThat(stats.writesInline.sum()).isZero();
      assertThat(stats.writes.sum()).isPositive();
    }
  }

  /**
   * Small appends (applied inline whenever the path is idle) into an arena far smaller than the data, while readers
   * keep reading the oldest bytes, whose pages writes must evict: a write waiting for pages a read pins must never
   * hold up the event loop that is to send that read ({@link ReadGate}). Every byte must still be right.
   */
  @Test
  void inlineWritesAndReadsOfEvictedPagesGoOnTogether() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      DatanodeIdProto dn = f.datanode.datanodeId();
      int record = 1024;
      int blockSize = 64 << 20;
      // At least 6 MiB per writer (the arena holds 4), however slow the machine; at most half the block, however fast.
      int minRecords = (6 << 20) / record;
      int maxRecords = blockSize / record / 2;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      java.util.concurrent.atomic.AtomicInteger writing = new java.util.concurrent.atomic.AtomicInteger(2);
      ExecutorService pool = Executors.newFixedThreadPool(4);
      // A reader starts once its block exists (after the writer's first acknowledged write), else NOT_FOUND.
      List<CountDownLatch> created = List.of(new CountDownLatch(1), new CountDownLatch(1));
      try {
        List<Future<Integer>> writers = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
          long blockId = 200 + w;
          CountDownLatch exists = created.get(w);
          DataTransferClient client = f.client();
          writers.add(pool.submit(() -> {
            int n = 0;
            try (BlockWriter writer = client.openWriter(dn, blockId, new WriteOptions(blockSize, null))) {
              while (n < minRecords || (n < maxRecords && System.nanoTime() < deadline)) {
                writer.write((long) n * record, ByteBuffer.wrap(recordBytes(blockId, n, record)));
                writer.flush();
                exists.countDown();
                n++;
              }
            } finally {
              exists.countDown();  // a writer that failed must not keep its reader waiting
              writing.decrementAndGet();
            }
            return n;
          }));
        }
        List<Future<Integer>> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
          long blockId = 200 + r;
          CountDownLatch exists = created.get(r);
          DataTransferClient client = f.client();
          readers.add(pool.submit(() -> {
            assertThat(exists.await(60, TimeUnit.SECONDS)).as("block %d created", blockId).isTrue();
            int reads = 0;
            while (reads == 0 || writing.get() > 0) {
              ByteBuffer first = ByteBuffer.allocate(64 * record);
              int got = client.read(dn, blockId, 0, first, TimeSpec.latest()).bytesRead();
              for (int i = 0; i < got / record; i++) {
                assertThat(Arrays.copyOfRange(first.array(), i * record, (i + 1) * record))
                    .isEqualTo(recordBytes(blockId, i, record));
              }
              reads++;
            }
            return reads;
          }));
        }
        int[] written = new int[2];
        for (int w = 0; w < 2; w++) {
          written[w] = writers.get(w).get(120, TimeUnit.SECONDS);  // a writer's failure first: it would fail a reader
        }
        for (Future<Integer> reader : readers) {
          assertThat(reader.get(120, TimeUnit.SECONDS)).isPositive();
        }
        DataTransferClient check = f.client();
        for (int w = 0; w < 2; w++) {
          int n = written[w];
          ByteBuffer all = ByteBuffer.allocate(n * record);
          assertThat(check.read(dn, 200 + w, 0, all, TimeSpec.latest()).bytesRead()).isEqualTo(n * record);
          for (int i = 0; i < n; i++) {
            assertThat(Arrays.copyOfRange(all.array(), i * record, (i + 1) * record)).as("record %d", i)
                .isEqualTo(recordBytes(200 + w, i, record));
          }
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(f.datanode.serverStats().writesInline.sum()).isPositive();
      assertThat(f.datanode.store().stats().pagesEvicted.sum()).as("more written than the arena holds").isPositive();
    }
  }

  private static byte[] recordBytes(long blockId, int index, int length) {
    byte[] bytes = new byte[length];
    new Random(blockId * 1_000_003L + index).nextBytes(bytes);
    return bytes;
  }

  /** Three writers on three connections; checks every block against its model. */
  private static DataServerStats writeConcurrently(DataNodeFixture f) throws Exception {
    DatanodeIdProto dn = f.datanode.datanodeId();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<byte[]>> models = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        long blockId = 100 + w;
        DataTransferClient client = f.client();
        Random random = new Random(w);
        models.add(pool.submit(() -> {
          byte[] model = new byte[0];
          HlcTimestamp last = HlcTimestamp.ZERO;
          try (BlockWriter writer = client.openWriter(dn, blockId, OPTIONS)) {
            for (int i = 0; i < 300; i++) {
              int offset = model.length == 0 ? 0 : random.nextInt(model.length + 1);
              // Mostly small (inline when idle), sometimes larger than the inline limit.
              int size = random.nextInt(10) == 0 ? 20_000 + random.nextInt(5000) : 1 + random.nextInt(1500);
              byte[] data = new byte[size];
              random.nextBytes(data);
              writer.write(offset, ByteBuffer.wrap(data));
              byte[] next = Arrays.copyOf(model, Math.max(model.length, offset + data.length));
              System.arraycopy(data, 0, next, offset, data.length);
              model = next;
              if (random.nextInt(3) == 0) {  // else the next write is sent before this one is acknowledged
                assertThat(writer.flush()).isEqualTo(model.length);
                HlcTimestamp hlc = writer.lastEntryHlc();
                assertThat(hlc).isGreaterThan(last);
                last = hlc;
              }
            }
            assertThat(writer.flush()).isEqualTo(model.length);
          }
          return model;
        }));
      }
      DataTransferClient reader = f.client();
      for (int w = 0; w < 3; w++) {
        byte[] model = models.get(w).get(60, TimeUnit.SECONDS);
        ByteBuffer read = ByteBuffer.allocate(model.length + 100);
        assertThat(reader.read(dn, 100 + w, 0, read, TimeSpec.latest()).bytesRead()).isEqualTo(model.length);
        assertThat(Arrays.copyOf(read.array(), model.length)).as("block %d", 100 + w).isEqualTo(model);
      }
    } finally {
      pool.shutdownNow();
    }
    return f.datanode.serverStats();
  }
}
