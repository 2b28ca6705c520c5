package io.fffs.minicluster.dataserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.datanode.server.DataServer;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store writer hands acks to the event loops in batches ({@link StoreWriter#ACK_BATCH}) while its ring is busy.
 * A connection that waits for each ack (a flush after every write) must get them while another connection streams
 * without pause (the stream stops only once the waiting writer is done, so a flush held back for good would time
 * out), and every ack of both must carry the right block length.
 */
class AckBatchesTest {
  @TempDir
  Path dir;

  @Test
  void aWriterWaitingForOneAckIsNotHeldUpByAStreamingWriter() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir)) {
      f.conf.setInt(DataServer.INLINE_WRITE_MAX_KEY, 0);  // every write through the ring
      f.conf.setLong(io.fffs.datanode.store.DataNodeConfigKeys.MEMORY_CAPACITY_KEY, 64L << 20);
      f.start();
      DatanodeIdProto dn = f.datanode.datanodeId();
      ExecutorService pool = Executors.newSingleThreadExecutor();
      AtomicBoolean stop = new AtomicBoolean();
      try {
        Future<Long> streamed = pool.submit(() -> {
          long length = 0;
          byte[] packet = new byte[16 << 10];
          try (BlockWriter writer = f.client().openWriter(dn, 400, new WriteOptions(1L << 30, null))) {
            while (!stop.get()) {
              writer.write(length, ByteBuffer.wrap(packet));
              length += packet.length;
            }
            assertThat(writer.flush()).isEqualTo(length);
          }
          return length;
        });
        byte[] record = new byte[100];
        try (BlockWriter writer = f.client().openWriter(dn, 401, new WriteOptions(1 << 20, null))) {
          for (int i = 0; i < 200; i++) {
            writer.write((long) i * record.length, ByteBuffer.wrap(record));
            assertThat(writer.flush()).as("acked length after write %d", i).isEqualTo((i + 1L) * record.length);
          }
        }
        stop.set(true);
        assertThat(streamed.get(60, TimeUnit.SECONDS)).isPositive();
      } finally {
        stop.set(true);
        pool.shutdownNow();
      }
    }
  }
}
