package io.fffs.minicluster.dataserver;

import static io.fffs.minicluster.dataserver.BlockBytes.randomBytes;
import static io.fffs.minicluster.dataserver.BlockBytes.read;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.data.BlockWriter;

import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.security.BlockTokenVerifier;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.datanode.server.DataServer;
import io.fffs.datanode.server.WriteRules;
import io.fffs.datanode.store.MultiLogBlockStore;
import io.fffs.protocol.DataTransferConfigKeys;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write ring under a slow store: four pipelined writers outrun one store writer, connections are paused instead
 * of blocking the event loops, and every byte still lands in order.
 */
class BackpressureTest {
  @TempDir
  Path dir;

  @Test
  void aFullRingPausesReadingAndLosesNothing() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir)) {
      Configuration conf = f.conf;
      conf.setInt(DataNodeServiceConfigKeys.WRITE_QUEUE_CAPACITY_KEY, 4);
      conf.setInt(DataTransferConfigKeys.WRITE_WINDOW_KEY, 32);
      conf.setInt(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, 4096);
      HybridLogicalClock clock = new HybridLogicalClock(PhysicalClock.system(), conf);
      SlowStore store = new SlowStore(MultiLogBlockStore.open(conf, clock), 200);
      LongAdder reported = new LongAdder();
      WriteRules rules = new WriteRules(clock, () -> null, (block, length) -> reported.increment());
      try (DataServer server = DataServer.start(conf, store, rules,
          new BlockTokenVerifier(false, PhysicalClock.system()));
          DataTransferClient client = DataTransferClients.tcp(conf,
              new HybridLogicalClock(PhysicalClock.system(), conf))) {
        DatanodeIdProto dn = DatanodeIdProto.newBuilder().setDatanodeUuid("test").setHost("127.0.0.1")
            .setDataPort(server.address().getPort()).setIpcPort(0).build();
        int writers = 4;
        int bytesEach = 1 << 20;
        List<byte[]> data = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
          data.add(randomBytes(new Random(i), bytesEach));
        }
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
          List<Future<Long>> done = new ArrayList<>();
          for (int i = 0; i < writers; i++) {
            long blockId = 100 + i;
            byte[] bytes = data.get(i);
            done.add(pool.submit(() -> {
              try (BlockWriter writer = client.openWriter(dn, blockId, new WriteOptions(4 << 20, null))) {
                for (int at = 0; at < bytes.length; at += 16 * 1024) {
                  writer.write(at, ByteBuffer.wrap(bytes, at, 16 * 1024));
                }
                return writer.flush();
              }
            }));
          }
          for (Future<Long> length : done) {
            assertThat(length.get()).isEqualTo(bytesEach);
          }
        } finally {
          pool.shutdownNow();
        }
        assertThat(server.stats().backpressurePauses.sum()).isGreaterThan(0);
        assertThat(store.maxConcurrentWrites.get()).isEqualTo(1);
        assertThat(server.stats().writes.sum()).isEqualTo(writers * (bytesEach / 4096));
        assertThat(reported.sum()).isEqualTo(writers * (bytesEach / 4096));
        for (int i = 0; i < writers; i++) {
          assertThat(read(client, dn, 100 + i, 0, bytesEach + 1, TimeSpec.latest())).isEqualTo(data.get(i));
        }
      } finally {
        store.close();
      }
    }
  }
}
