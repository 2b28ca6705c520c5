package io.fffs.datanode.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.time.TimeSpec;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers and writers at once: one writer per block overwrites at random while readers read random past states and
 * the latest state of every block, in a small arena so that eviction and reloads run under the readers. Every read
 * must equal the snapshot of the state it resolved to.
 */
class ConcurrencyTest {
  private static final int BLOCKS = 2;
  private static final int WRITES_PER_BLOCK = 1500;
  private static final int BLOCK_LIMIT = 16 * 1024;

  @TempDir
  Path dataDir;

  @Test
  void readersSeeExactlyThePublishedStatesWhileWritersAndEvictionRun() throws Exception {
    try (StoreFixture fixture = new StoreFixture(dataDir)) {
      fixture.conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, 128 * 512);
      fixture.open();
      BlockStore store = fixture.store;
      // snapshots.get(b).get(i): block b's bytes after log entry i (recorded before the write is issued)
      List<List<byte[]>> snapshots = new ArrayList<>();
      for (int b = 0; b < BLOCKS; b++) {
        snapshots.add(new CopyOnWriteArrayList<>());
      }
      AtomicBoolean writing = new AtomicBoolean(true);
      ExecutorService pool = Executors.newFixedThreadPool(BLOCKS + 2);
      try {
        List<Future<Integer>> writers = new ArrayList<>();
        for (int b = 0; b < BLOCKS; b++) {
          int block = b;
          writers.add(pool.submit(() -> write(store, block, snapshots.get(block))));
        }
        List<Future<Integer>> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
          int seed = r;
          readers.add(pool.submit(() -> read(store, snapshots, writing, seed)));
        }
        for (Future<Integer> writer : writers) {
          assertThat(writer.get()).isEqualTo(WRITES_PER_BLOCK);
        }
        writing.set(false);
        for (Future<Integer> reader : readers) {
          assertThat(reader.get()).as("reads checked").isGreaterThan(100);
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(store.stats().pagesEvicted.sum()).isPositive();
      assertThat(store.stats().pagesReloaded.sum()).isPositive();
    }
  }

  private static int write(BlockStore store, int block, List<byte[]> snapshots) throws Exception {
    Random random = new Random(block);
    byte[] state = new byte[0];
    snapshots.add(state); // entry 0: the create entry made by the first write
    for (int i = 0; i < WRITES_PER_BLOCK; i++) {
      int offset = i == 0 ? 0 : random.nextInt(state.length + 1);
      int size = Math.min(1 + random.nextInt(2000), BLOCK_LIMIT - offset);
      byte[] data = new byte[size];
      random.nextBytes(data);
      byte[] next = Arrays.copyOf(state, Math.max(state.length, offset + size));
      System.arraycopy(data, 0, next, offset, size);
      snapshots.add(next);
      WriteResult result = store.write(block, offset, ByteBuffer.wrap(data), WriteOptions.defaults());
      assertThat(result.logIndex()).isEqualTo(snapshots.size() - 1);
      state = next;
    }
    return WRITES_PER_BLOCK;
  }

  private static int read(BlockStore store, List<List<byte[]>> snapshots, AtomicBoolean writing, int seed)
      throws Exception {
    Random random = new Random(100 + seed);
    int checked = 0;
    while (writing.get() || checked < 200) {
      int block = random.nextInt(BLOCKS);
      List<byte[]> known = snapshots.get(block);
      if (known.size() < 2) {
        continue;
      }
      boolean latest = random.nextBoolean();
      int announced = known.size(); // entries announced before the read; all but the last are published
      int index = random.nextInt(announced - 1) + 1;
      try (ReadView view = latest ? store.read(block, 0, BLOCK_LIMIT, TimeSpec.latest())
          : store.readAtLogIndex(block, index, 0, BLOCK_LIMIT)) {
        byte[] expected = known.get(view.logIndex());
        assertThat(view.toBytes()).as("block " + block + " at log index " + view.logIndex()).isEqualTo(expected);
        if (latest) {
          assertThat(view.logIndex()).isGreaterThanOrEqualTo(announced - 2);
        }
      } catch (io.fffs.common.error.FffsException e) {
        // A log index the writer announced but has not published yet.
        assertThat(e.code()).isEqualTo(io.fffs.common.error.ErrorCode.NOT_FOUND);
        continue;
      }
      checked++;
    }
    return checked;
  }
}
