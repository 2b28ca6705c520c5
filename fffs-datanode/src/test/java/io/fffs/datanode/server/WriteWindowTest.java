package io.fffs.datanode.server;

import static io.fffs.datanode.server.DataPathTest.randomBytes;
import static io.fffs.datanode.server.DataPathTest.read;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferConfigKeys;
import io.fffs.client.data.NettyDataTransferClient;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.security.BlockTokenVerifier;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.MultiLogBlockStore;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How many packets a block writer keeps in flight. The DataNode's store is held, so no write is applied and no ack
 * comes back: a writer of 64 KiB packets gets every packet of {@code fffs.client.write.window.bytes} (8 MiB by
 * default) out before it waits, and only {@code fffs.client.write.window} (16) with the bytes window off. Once the
 * store is let go, every byte lands in order.
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

  /** Writes {@link #PACKETS} packets with the store held; the count of write calls that returned meanwhile. */
  private int writesReturnedWhileHeld(Long windowBytes) throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir)) {
      Configuration conf = f.conf;
      conf.setInt(DataServer.INLINE_WRITE_MAX_KEY, 0);
      conf.unset(DataTransferConfigKeys.WRITE_WINDOW_KEY);
      conf.setInt(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, PACKET);
      if (windowBytes != null) {
        conf.setLong(DataTransferConfigKeys.WRITE_WINDOW_BYTES_KEY, windowBytes);
      }
      int window = DataTransferConfigKeys.writeWindow(conf);
      HybridLogicalClock clock = new HybridLogicalClock(PhysicalClock.system(), conf);
      SlowStore store = new SlowStore(MultiLogBlockStore.open(conf, clock), 0);
      store.hold();
      byte[] data = randomBytes(new Random(7), PACKETS * PACKET);
      AtomicInteger returned = new AtomicInteger();
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try (DataServer server = DataServer.start(conf, store, clock, () -> null, (block, length) -> { },
          new BlockTokenVerifier(false, PhysicalClock.system()));
          NettyDataTransferClient client = new NettyDataTransferClient(conf,
              new HybridLogicalClock(PhysicalClock.system(), conf))) {
        DatanodeIdProto dn = DatanodeIdProto.newBuilder().setDatanodeUuid("test").setHost("127.0.0.1")
            .setDataPort(server.address().getPort()).setIpcPort(0).build();
        Future<Long> written = pool.submit(() -> {
          try (BlockWriter writer = client.openWriter(dn, 1, new WriteOptions(16 << 20, null))) {
            for (int at = 0; at < data.length; at += PACKET) {
              writer.write(at, ByteBuffer.wrap(data, at, PACKET));
              returned.incrementAndGet();
            }
            return writer.flush();
          }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (returned.get() < Math.min(window, PACKETS) && System.nanoTime() < deadline) {
          Thread.sleep(10);
        }
        Thread.sleep(300);  // a writer with a larger window than it should have would send more meanwhile
        int whileHeld = returned.get();
        store.open();
        assertThat(written.get(60, TimeUnit.SECONDS)).isEqualTo(data.length);
        assertThat(read(client, dn, 1, 0, data.length, TimeSpec.latest())).isEqualTo(data);
        return whileHeld;
      } finally {
        pool.shutdownNow();
        store.close();
      }
    }
  }
}
