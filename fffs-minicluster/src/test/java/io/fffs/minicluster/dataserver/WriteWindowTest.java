package io.fffs.minicluster.dataserver;

import static io.fffs.minicluster.dataserver.DataPathTest.randomBytes;
import static io.fffs.minicluster.dataserver.DataPathTest.read;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.time.TimeSpec;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a TCP block writer paces its packets, with 64 KiB packets. In flight: with the DataNode's store held (no write
 * applied, no ack), the writer gets every packet of {@code fffs.client.write.window.bytes} (8 MiB by default) out
 * before it waits, and only {@code fffs.client.write.window} (16) with the bytes window off; once the store is let
 * go, every byte lands in order. Sent: packets wait in the client until {@code fffs.client.write.flush-bytes}
 * (256 KiB by default) are queued or the writer flushes.
 */
class WriteWindowTest {
  private static final int PACKET = 64 << 10;
  private static final int PACKETS = 100;

  @TempDir
  Path dir;

  @Test
  void byDefaultEightMiBOfPacketsGoOutBeforeTheFirstAck() throws Exception {
    assertThat(DataTransferConfigKeys.WRITE_WINDOW_BYTES_DEFAULT / PACKET).isGreaterThan(PACKETS);
    assertThat(writesReturnedWhileHeld(null)).isEqualTo(PACKETS);
  }

  @Test
  void withoutTheBytesWindowSixteenPacketsGoOut() throws Exception {
    assertThat(writesReturnedWhileHeld(0L)).isEqualTo(DataTransferConfigKeys.WRITE_WINDOW_DEFAULT);
  }

  @Test
  void packetsAreSentOnceFlushBytesAreQueuedOrOnFlush() throws Exception {
    assertThat(DataTransferConfigKeys.WRITE_FLUSH_BYTES_DEFAULT).isEqualTo(4 * PACKET);
    try (SlowStoreServer rig = rig(dir, null)) {
      byte[] data = randomBytes(new Random(3), 9 * PACKET);
      LongSupplier applied = rig.server.stats().writes::sum;
      try (BlockWriter writer = rig.client.openWriter(rig.dn, 1, new WriteOptions(16 << 20, null))) {
        for (int i = 0; i < 7; i++) {
          writer.write((long) i * PACKET, ByteBuffer.wrap(data, i * PACKET, PACKET));
          if (i == 3) {
            awaitAtLeast(applied, 4);
          }
        }
        Thread.sleep(300);  // packets 5 to 7 would arrive meanwhile if each were sent on its own
        assertThat(applied.getAsLong()).isEqualTo(4);
        assertThat(writer.flush()).isEqualTo(7L * PACKET);
        assertThat(applied.getAsLong()).isEqualTo(7);
        writer.write(7L * PACKET, ByteBuffer.wrap(data, 7 * PACKET, 2 * PACKET));  // two packets, one flush
        assertThat(writer.flush()).isEqualTo(data.length);
      }
      assertThat(read(rig.client, rig.dn, 1, 0, data.length, TimeSpec.latest())).isEqualTo(data);
    }
  }

  /** Writes {@link #PACKETS} packets with the store held; the count of write calls that returned meanwhile. */
  private int writesReturnedWhileHeld(Long windowBytes) throws Exception {
    try (SlowStoreServer rig = rig(dir, windowBytes)) {
      int window = DataTransferConfigKeys.writeWindow(rig.conf);
      rig.store.hold();
      byte[] data = randomBytes(new Random(7), PACKETS * PACKET);
      AtomicInteger returned = new AtomicInteger();
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        Future<Long> written = pool.submit(() -> {
          try (BlockWriter writer = rig.client.openWriter(rig.dn, 1, new WriteOptions(16 << 20, null))) {
            for (int at = 0; at < data.length; at += PACKET) {
              writer.write(at, ByteBuffer.wrap(data, at, PACKET));
              returned.incrementAndGet();
            }
            return writer.flush();
          }
        });
        awaitAtLeast(returned::get, Math.min(window, PACKETS));
        Thread.sleep(300);  // a writer with a larger window than it should have would send more meanwhile
        int whileHeld = returned.get();
        rig.store.open();
        assertThat(written.get(60, TimeUnit.SECONDS)).isEqualTo(data.length);
        assertThat(read(rig.client, rig.dn, 1, 0, data.length, TimeSpec.latest())).isEqualTo(data);
        return whileHeld;
      } finally {
        pool.shutdownNow();
      }
    }
  }

  private static void awaitAtLeast(LongSupplier value, long atLeast) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (value.getAsLong() < atLeast && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
  }

  /** A server over a store that can be held, a client of 64 KiB packets, the window bytes given (null: default). */
  private static SlowStoreServer rig(Path dir, Long windowBytes) throws IOException {
    return new SlowStoreServer(dir, conf -> {
      conf.unset(DataTransferConfigKeys.WRITE_WINDOW_KEY);
      conf.setInt(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, PACKET);
      if (windowBytes != null) {
        conf.setLong(DataTransferConfigKeys.WRITE_WINDOW_BYTES_KEY, windowBytes);
      }
    });
  }
}
