package io.fffs.client.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.ManualPhysicalClock;
import io.fffs.protocol.frame.ChunkChecksums;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Which writes go out from the caller's memory ({@link DataChannel#wrap}) and which are copied: only bytes the
 * caller keeps until acknowledged ({@link BlockWriter#writeRetained}) in direct memory are sent without a copy, with
 * the same chunk CRCs a copy gets; anything else is copied before the call returns, so the caller may reuse it.
 */
class RetainedWriteTest {
  private static final int PACKET = 64 << 10;

  private static PacketWriter writer(RecordingChannel channel) {
    DataNodeClocks clocks =
        new DataNodeClocks(new HybridLogicalClock(new ManualPhysicalClock(1_800_000_000_000_000L), 250_000));
    return new PacketWriter(channel, null, clocks, 7, null, new WriteOptions(64 << 20, null), 1, 16, PACKET,
        256 << 10, false, 60_000);
  }

  private static byte[] random(int length) {
    byte[] bytes = new byte[length];
    new Random(length).nextBytes(bytes);
    return bytes;
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] out = new byte[buffer.remaining()];
    buffer.duplicate().get(out);
    return out;
  }

  @Test
  void aRetainedDirectWriteGoesOutFromTheCallersMemoryInPacketsWithTheirChecksums() throws Exception {
    RecordingChannel channel = new RecordingChannel(false);
    byte[] data = random(PACKET * 2 + 1000);
    ByteBuffer kept = ByteBuffer.allocateDirect(data.length).put(data).flip();
    try (PacketWriter writer = writer(channel)) {
      writer.writeRetained(0, kept);
      List<RecordingChannel.Sent> sent = channel.sent();
      assertThat(sent).hasSize(3).allMatch(RecordingChannel.Sent::wrapped);
      for (RecordingChannel.Sent packet : sent) {
        int at = (int) packet.request().getWrite().getOffset();
        assertThat(bytes(packet.payload())).containsExactly(java.util.Arrays.copyOfRange(data, at,
            at + packet.length()));
        assertThat(ChunkChecksums.fromWire(packet.request().getWrite().getChunkCrcs()))
            .containsExactly(ChunkChecksums.of(ByteBuffer.wrap(data, at, packet.length())));
      }
      kept.put(0, (byte) ~data[0]);  // the same memory: what the transport reads until the answer
      assertThat(sent.get(0).payload().get(0)).isEqualTo((byte) ~data[0]);
      channel.ack(3);
      assertThat(writer.flush()).isEqualTo(data.length);
    }
  }

  @Test
  void aWriteNotRetainedOrOnTheHeapIsCopiedBeforeTheCallReturns() throws Exception {
    RecordingChannel channel = new RecordingChannel(false);
    byte[] data = random(1000);
    ByteBuffer direct = ByteBuffer.allocateDirect(data.length).put(data).flip();
    ByteBuffer heap = ByteBuffer.wrap(data.clone());
    try (PacketWriter writer = writer(channel)) {
      writer.write(0, direct);
      writer.writeRetained(1000, heap);
      direct.put(0, (byte) ~data[0]);
      heap.put(0, (byte) ~data[0]);
      List<RecordingChannel.Sent> sent = channel.sent();
      assertThat(sent).noneMatch(RecordingChannel.Sent::wrapped);
      assertThat(sent).allSatisfy(packet -> assertThat(bytes(packet.payload())).containsExactly(data));
      channel.ack(2);
      writer.flush();
    }
  }
}
