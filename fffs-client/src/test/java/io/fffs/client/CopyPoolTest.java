package io.fffs.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.PhysicalClock;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The JVM-wide pool of direct memory the stream's copies of unacknowledged writes are made in: when a stream's
 * writers are closed, the copies they acknowledged go back to it, once; when a follower takes over from a lost
 * primary, the old writer's acknowledged copies go back (the resent writes' copies are made in them) and its
 * unacknowledged ones, which a transport may still send from, never do. The packet arrays a stream hands over are
 * shared by all its blocks' copies, so a stream holds about a window of them however many blocks it writes.
 */
class CopyPoolTest {
  private static final long BLOCK = 7;
  private static final int SIZE = 1000;
  private static final List<DatanodeIdProto> MEMBERS = List.of(node("a"), node("b"), node("c"));

  @Test
  void aClosedStreamsAcknowledgedCopiesGoBackToThePoolOnce() {
    BlockPipelines blocks = pipelines();
    FakeWriter writer = new FakeWriter(MEMBERS);
    blocks.opened(0, writer, true);
    List<ByteBuffer> kept = keep(blocks.copies(BLOCK), 3, 1);
    writer.acknowledged = 2 * SIZE;  // the third write was never answered: its stream failed, then closed
    long before = UnackedWrites.pooledBytes();

    blocks.clearWriters();
    long returned = kept.get(0).capacity() + kept.get(1).capacity();
    assertThat(UnackedWrites.pooledBytes() - before).isEqualTo(returned);
    blocks.clearWriters();
    assertThat(UnackedWrites.pooledBytes() - before).as("returned once").isEqualTo(returned);

    // The next copies are made in the returned memory, and never in the unacknowledged write's.
    List<ByteBuffer> next = keep(new UnackedWrites(), 3, 50);
    assertThat(UnackedWrites.pooledBytes() - before).isLessThanOrEqualTo(0);
    assertThat(List.of(bytes(kept.get(0)), bytes(kept.get(1)))).as("taken by the next copies")
        .containsExactlyInAnyOrder(bytes(next.get(0)), bytes(next.get(1)));
    assertThat(bytes(kept.get(2))).isEqualTo(fill(3));
  }

  @Test
  void aReplacedWritersAcknowledgedCopiesGoBackAndItsUnacknowledgedOnesNever() throws IOException {
    BlockPipelines blocks = pipelines();
    FakeWriter lost = new FakeWriter(MEMBERS);
    blocks.opened(0, lost, true);
    List<ByteBuffer> kept = keep(blocks.copies(BLOCK), 3, 1);
    lost.acknowledged = SIZE;
    FakeWriter promoted = new FakeWriter(MEMBERS.subList(1, 3));
    PrimaryFailover failover = new PrimaryFailover(() -> promoting(promoted), new WriteOptions(1 << 20, null), "/f",
        blocks);

    failover.failOver(BLOCK, lost, blocks.copies(BLOCK), new IOException("primary a gone"));

    assertThat(promoted.offsets).containsExactly((long) SIZE, 2L * SIZE);
    assertThat(promoted.sent).extracting(CopyPoolTest::bytes).containsExactly(fill(2), fill(3));
    assertThat(bytes(kept.get(0))).as("the acknowledged copy's memory holds the first resent write's copy")
        .isEqualTo(fill(2));
    assertThat(bytes(kept.get(1))).as("unacknowledged: not pooled").isEqualTo(fill(2));
    assertThat(bytes(kept.get(2))).isEqualTo(fill(3));

    // The stream closes once the new primary acknowledged everything: its copies go back, once.
    promoted.acknowledged = 2 * SIZE;
    long before = UnackedWrites.pooledBytes();
    blocks.clearWriters();
    long returned = promoted.sent.get(0).capacity() + promoted.sent.get(1).capacity();
    assertThat(UnackedWrites.pooledBytes() - before).isEqualTo(returned);
    blocks.clearWriters();
    blocks.remove(BLOCK);
    assertThat(UnackedWrites.pooledBytes() - before).as("returned once").isEqualTo(returned);
  }

  @Test
  void handedOverPacketArraysAreSharedByTheStreamsBlocks() {
    int blocksWritten = 16;
    int packetsPerBlock = 64;
    int window = 4;
    BlockPipelines blocks = new BlockPipelines(PhysicalClock.system());
    Set<byte[]> arrays = Collections.newSetFromMap(new IdentityHashMap<>());
    byte[] packet = new byte[SIZE];
    for (int b = 0; b < blocksWritten; b++) {
      blocks.add(LocatedBlockProto.newBuilder().setBlock(BlockProto.newBuilder().setBlockId(100 + b)
          .setNumBytes(0)).setOffset((long) b * packetsPerBlock * SIZE).addAllLocations(MEMBERS).build());
      FakeWriter writer = new FakeWriter(MEMBERS);
      blocks.opened(b, writer, true);
      UnackedWrites copies = blocks.copies(100 + b);
      for (int p = 0; p < packetsPerBlock; p++) {
        writer.acknowledged = Math.max(0, (long) (p - window) * SIZE);  // answers trail the sends by a window
        arrays.add(packet);
        copies.handOver((long) p * SIZE, packet, writer.acknowledged);
        packet = copies.spare(SIZE);
      }
      writer.acknowledged = (long) packetsPerBlock * SIZE;  // the block's last answers come in
    }
    assertThat(arrays.size()).as("packet arrays the stream used for %d blocks", blocksWritten)
        .isLessThanOrEqualTo(2 * (window + 1));
  }

  private static BlockPipelines pipelines() {
    BlockPipelines blocks = new BlockPipelines(PhysicalClock.system());
    blocks.add(LocatedBlockProto.newBuilder().setBlock(BlockProto.newBuilder().setBlockId(BLOCK).setNumBytes(0))
        .setOffset(0).addAllLocations(MEMBERS).build());
    return blocks;
  }

  /** Keeps {@code count} writes of {@link #SIZE} bytes, the i-th filled with {@code first + i}; returns the copies. */
  private static List<ByteBuffer> keep(UnackedWrites copies, int count, int first) {
    List<ByteBuffer> kept = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      kept.add(copies.add((long) i * SIZE, fill(first + i), 0, SIZE, 0));
    }
    return kept;
  }

  private static byte[] fill(int value) {
    byte[] bytes = new byte[SIZE];
    Arrays.fill(bytes, (byte) value);
    return bytes;
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] out = new byte[buffer.remaining()];
    buffer.duplicate().get(out);
    return out;
  }

  private static DataTransferClient promoting(BlockWriter promoted) {
    return (DataTransferClient) Proxy.newProxyInstance(DataTransferClient.class.getClassLoader(),
        new Class<?>[] {DataTransferClient.class}, (proxy, method, args) -> {
          if (method.getName().equals("promoteWriter")) {
            return promoted;
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }

  private static DatanodeIdProto node(String uuid) {
    return DatanodeIdProto.newBuilder().setDatanodeUuid(uuid).setHost("h-" + uuid).setDataPort(1).setIpcPort(0)
        .build();
  }

  /** Keeps what it is sent by reference, as a transport sending from it does. */
  private static final class FakeWriter extends FakeBlockWriter {
    final List<ByteBuffer> sent = new ArrayList<>();

    FakeWriter(List<DatanodeIdProto> members) {
      super(members);
    }

    @Override
    public void write(long offset, ByteBuffer data) {
      offsets.add(offset);
      sent.add(data);
    }
  }
}
