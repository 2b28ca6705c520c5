package io.fffs.client.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.security.BlockAccessMode;
import io.fffs.common.security.BlockKey;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.ManualPhysicalClock;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A single-DataNode writer whose token is refused sends exactly the packets the DataNode did not apply again, with
 * the same bytes, through a new stream with the fresh token; the packets are kept by reference where the transport
 * keeps its buffers (and every one is let go by the end), else as copies.
 */
class SingleBlockWriterTest {
  private static final long BLOCK = 9;
  private static final WriteOptions OPTIONS = new WriteOptions(64 << 20, null);
  private static final BlockKey KEY = new BlockKey(1, new byte[BlockKey.SECRET_BYTES], Long.MAX_VALUE);
  private static final BlockToken OLD = BlockToken.sign(KEY, BLOCK, BlockAccessMode.WRITE, "w", Long.MAX_VALUE);
  private static final BlockToken FRESH = BlockToken.sign(new BlockKey(2, new byte[BlockKey.SECRET_BYTES],
      Long.MAX_VALUE), BLOCK, BlockAccessMode.WRITE, "w", Long.MAX_VALUE);

  private final HybridLogicalClock clock =
      new HybridLogicalClock(new ManualPhysicalClock(1_800_000_000_000_000L), 250_000);
  private final DatanodeIdProto datanode = DatanodeIdProto.newBuilder().setDatanodeUuid("d").setHost("d")
      .setDataPort(1).setIpcPort(0).build();

  @Test
  void theRefusedPacketsGoOutAgainFromTheTransportsOwnBuffers() throws Exception {
    refusedPacketsGoOutAgain(true);
  }

  @Test
  void theRefusedPacketsGoOutAgainFromCopiesWhereTheTransportCannotKeepItsBuffers() throws Exception {
    refusedPacketsGoOutAgain(false);
  }

  private void refusedPacketsGoOutAgain(boolean keeps) throws Exception {
    List<RecordingChannel> channels = new ArrayList<>();
    SingleBlockWriter writer = new SingleBlockWriter(token -> {
      RecordingChannel channel = new RecordingChannel(true, keeps);
      channels.add(channel);
      PacketWriter packets = new PacketWriter(channel, datanode, clock, BLOCK, token, OPTIONS, channels.size(), 8,
          64 << 10, 256 << 10, false, 60_000);
      packets.keepUnapplied();
      return packets;
    }, OLD);
    byte[][] data = new byte[4][];
    for (int i = 0; i < 4; i++) {
      data[i] = new byte[100];
      Arrays.fill(data[i], (byte) (i + 1));
    }
    writer.write(0, ByteBuffer.wrap(data[0]));
    writer.write(100, ByteBuffer.wrap(data[1]));
    RecordingChannel first = channels.get(0);
    first.ack(1);
    writer.write(200, ByteBuffer.wrap(data[2]));  // lets go of the acknowledged first packet
    assertThat(first.retained()).isEqualTo(keeps ? 2 : 0);
    first.refuse();
    first.refuse();
    assertThatThrownBy(writer::flush).isInstanceOfSatisfying(FffsException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED));

    writer.renewToken(FRESH);
    RecordingChannel again = channels.get(1);
    assertThat(again.sent()).hasSize(2);
    for (int i = 0; i < 2; i++) {
      RecordingChannel.Sent sent = again.sent().get(i);
      assertThat(sent.request().getWrite().getOffset()).isEqualTo(100L * (i + 1));
      assertThat(sent.payload()).as("the same bytes").isEqualTo(data[i + 1]);
      assertThat(sent.request().getTokensList()).containsExactly(FRESH.toProto());
      assertThat(sent.request().getWrite().getStreamId()).isNotEqualTo(first.sent().get(0).request().getWrite()
          .getStreamId());
    }
    assertThat(first.retained()).as("the old writer let go of its packets").isZero();
    writer.write(300, ByteBuffer.wrap(data[3]));
    again.ack(3);
    assertThat(writer.flush()).isEqualTo(400);
    assertThat(writer.acknowledgedBytes()).isEqualTo(400);
    writer.close();
    assertThat(again.retained()).isZero();
  }
}
