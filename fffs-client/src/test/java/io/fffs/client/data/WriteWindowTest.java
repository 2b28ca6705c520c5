package io.fffs.client.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.ManualPhysicalClock;
import io.fffs.protocol.DataTransferConfigKeys;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * How a block writer paces its packets ({@link WriteWindow} in {@link PacketWriter}), over a channel that only
 * records what is sent and answers when told ({@link RecordingChannel}), so every assertion is exact: with no ack,
 * the writer gets every packet of {@code fffs.client.write.window.bytes} (8 MiB by default) out before it waits, and
 * only {@code fffs.client.write.window} (16) with the bytes window off; each ack lets exactly one more out. Packets
 * are held until {@code fffs.client.write.flush-bytes} (256 KiB by default) are queued or the writer flushes; in
 * latency mode, and on a transport that wants each write on its way, every packet goes at once.
 */
class WriteWindowTest {
  private static final int PACKET = 64 << 10;
  private static final WriteOptions OPTIONS = new WriteOptions(64 << 20, null);

  private static Configuration conf(Long windowBytes, boolean latencyMode) {
    Configuration conf = new Configuration(false);
    conf.setInt(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, PACKET);
    conf.setBoolean(DataTransferConfigKeys.LATENCY_MODE_KEY, latencyMode);
    if (windowBytes != null) {
      conf.setLong(DataTransferConfigKeys.WRITE_WINDOW_BYTES_KEY, windowBytes);
    }
    return conf;
  }

  private static PacketWriter writer(RecordingChannel channel, Configuration conf) {
    DataNodeClocks clocks =
        new DataNodeClocks(new HybridLogicalClock(new ManualPhysicalClock(1_800_000_000_000_000L), 250_000));
    return new PacketWriter(channel, null, clocks, 7, null, OPTIONS, 1, DataTransferConfigKeys.writeWindow(conf),
        DataTransferConfigKeys.writePacketSize(conf), DataTransferConfigKeys.writeFlushBytes(conf),
        DataTransferConfigKeys.latencyMode(conf), 60_000);
  }

  /**
   * Writes {@code packets} packets on a thread of its own with no ack, and returns how many write calls had returned
   * once that thread waits — for a window slot, or, if every packet got out, in its flush for the acks — checking
   * that exactly as many packets were sent. Then each ack lets exactly one more packet out.
   */
  private static int writesReturnedWithoutAcks(Configuration conf, int packets) throws Exception {
    RecordingChannel channel = new RecordingChannel(false);
    AtomicInteger returned = new AtomicInteger();
    try (PacketWriter writer = writer(channel, conf)) {
      CompletableFuture<Long> written = new CompletableFuture<>();
      Thread thread = new Thread(() -> {
        try {
          for (int i = 0; i < packets; i++) {
            writer.write((long) i * PACKET, ByteBuffer.allocate(PACKET));
            returned.incrementAndGet();
          }
          written.complete(writer.flush());
        } catch (Throwable e) {
          written.completeExceptionally(e);
        }
      }, "test-writer");
      thread.start();
      awaitWaiting(thread);
      int stuckAt = returned.get();
      assertThat(channel.sent()).hasSize(stuckAt);
      if (stuckAt < packets) {
        channel.ack(1);
        channel.awaitSent(stuckAt + 1);
        awaitWaiting(thread);
        assertThat(channel.sent()).as("one ack, one more packet").hasSize(stuckAt + 1);
        assertThat(returned.get()).isEqualTo(stuckAt + 1);
      }
      for (int acked = stuckAt < packets ? 1 : 0; acked < packets; acked++) {
        channel.awaitSent(acked + 1);
        channel.ack(1);
      }
      assertThat(written.get(60, TimeUnit.SECONDS)).isEqualTo((long) packets * PACKET);
      thread.join();
      return stuckAt;
    }
  }

  /** Waits until {@code thread} waits (it can only be in the window's wait or in the flush's). */
  private static void awaitWaiting(Thread thread) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
      assertThat(thread.isAlive()).as("the writer thread").isTrue();
      assertThat(System.nanoTime()).as("the writer thread to wait").isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  @Test
  void byDefaultEightMiBOfPacketsGoOutBeforeTheFirstAck() throws Exception {
    assertThat(DataTransferConfigKeys.WRITE_WINDOW_BYTES_DEFAULT / PACKET).isEqualTo(128);
    assertThat(writesReturnedWithoutAcks(conf(null, false), 200)).isEqualTo(128);
  }

  @Test
  void withoutTheBytesWindowSixteenPacketsGoOut() throws Exception {
    assertThat(writesReturnedWithoutAcks(conf(0L, false), 100)).isEqualTo(DataTransferConfigKeys.WRITE_WINDOW_DEFAULT);
  }

  @Test
  void packetsAreSentOnceFlushBytesAreQueuedOrOnFlush() throws Exception {
    assertThat(DataTransferConfigKeys.WRITE_FLUSH_BYTES_DEFAULT).isEqualTo(4 * PACKET);
    RecordingChannel channel = new RecordingChannel(false);
    try (PacketWriter writer = writer(channel, conf(null, false))) {
      for (int i = 0; i < 7; i++) {
        writer.write((long) i * PACKET, ByteBuffer.allocate(PACKET));
      }
      List<RecordingChannel.Sent> sent = channel.sent();
      assertThat(sent).extracting(RecordingChannel.Sent::flushed)
          .containsExactly(false, false, false, true, false, false, false);
      assertThat(channel.flushes()).isZero();
      channel.ack(7);
      assertThat(writer.flush()).isEqualTo(7L * PACKET);
      assertThat(channel.flushes()).as("flush sends the three packets held back").isEqualTo(1);
      assertThat(writer.flush()).isEqualTo(7L * PACKET);
      assertThat(channel.flushes()).as("a flush with nothing held back sends nothing").isEqualTo(1);
      writer.write(7L * PACKET, ByteBuffer.allocate(2 * PACKET));  // two packets, held until the flush
      assertThat(channel.sent()).hasSize(9).extracting(RecordingChannel.Sent::flushed).endsWith(false, false);
      channel.ack(2);
      assertThat(writer.flush()).isEqualTo(9L * PACKET);
      assertThat(channel.flushes()).isEqualTo(2);
    }
  }

  @Test
  void inLatencyModeEveryWriteGoesOutAtOnceAndFlushSendsNothingMore() throws Exception {
    RecordingChannel channel = new RecordingChannel(false);
    try (PacketWriter writer = writer(channel, conf(null, true))) {
      for (int i = 0; i < 5; i++) {
        writer.write(i * 100L, ByteBuffer.allocate(100));
      }
      assertThat(channel.sent()).hasSize(5).allMatch(RecordingChannel.Sent::flushed);
      channel.ack(5);
      assertThat(writer.flush()).isEqualTo(500);
      assertThat(channel.flushes()).isZero();
    }
  }

  @Test
  void aTransportThatWantsEachWriteOnItsWayGetsEveryFullPacketAtOnce() throws Exception {
    RecordingChannel channel = new RecordingChannel(true);
    try (PacketWriter writer = writer(channel, conf(null, false))) {
      writer.write(0, ByteBuffer.allocate(3 * PACKET + 10));
      assertThat(channel.sent()).extracting(RecordingChannel.Sent::flushed)
          .containsExactly(true, true, true, false);
      channel.ack(4);
      assertThat(writer.flush()).isEqualTo(3L * PACKET + 10);
      assertThat(channel.flushes()).as("the short last packet goes out with the flush").isEqualTo(1);
    }
  }
}
