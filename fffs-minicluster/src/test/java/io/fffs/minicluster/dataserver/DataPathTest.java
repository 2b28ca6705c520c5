package io.fffs.minicluster.dataserver;

import static io.fffs.minicluster.dataserver.BlockBytes.apply;
import static io.fffs.minicluster.dataserver.BlockBytes.randomBytes;
import static io.fffs.minicluster.dataserver.BlockBytes.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferClient;

import io.fffs.client.data.WriteOptions;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.protocol.frame.ChunkChecksums;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data path end to end over loopback: a DataNode (no NameNode) and {@link DataTransferClient}, for what is
 * particular to Netty/TCP. What every transport must do (random writes against a model at past times, typed store
 * and clock errors, a small window with evicted pages, sync frontiers, block tokens) is {@code TransportSuite} in
 * fffs-rdma, run over Netty by {@code NettyTransportTest} and over UCX by {@code UcxTransportTest}.
 */
class DataPathTest {
  private static final WriteOptions OPTIONS = new WriteOptions(1 << 20, null);

  @TempDir
  Path dir;

  @Test
  void aWriteWithABadChecksumIsCorruptAndWritesNothing() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start();
        RawConnection raw = new RawConnection(f.datanode.dataAddress())) {
      DataTransferClient client = f.client();
      DatanodeIdProto dn = f.datanode.datanodeId();
      byte[] original = randomBytes(new Random(1), 1000);
      try (BlockWriter writer = client.openWriter(dn, 3, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(original));
      }
      byte[] data = randomBytes(new Random(2), 1500);
      int[] crcs = ChunkChecksums.of(ByteBuffer.wrap(data));
      data[700] ^= 0x40;
      raw.send(write(11, 3, 200, crcs), data);
      ResponseHeaderProto refused = raw.receive();
      assertThat(refused.getCallId()).isEqualTo(11);
      assertThat(refused.getError().getCode().name()).isEqualTo("CORRUPT");
      assertThat(refused.getError().getMessage()).contains("block 3").contains("offset 712")
          .contains("nothing was written");
      assertThat(client.blockInfo(dn, 3, TimeSpec.latest()).length()).isEqualTo(1000);
      assertThat(read(client, dn, 3, 0, 4000, TimeSpec.latest())).isEqualTo(original);

      data[700] ^= 0x40;
      raw.send(write(12, 3, 200, crcs), data);
      ResponseHeaderProto applied = raw.receive();
      assertThat(applied.hasError()).isFalse();
      assertThat(applied.getWrite().getBlockLength()).isEqualTo(1700);
      assertThat(read(client, dn, 3, 0, 4000, TimeSpec.latest())).isEqualTo(apply(original, 200, data));
    }
  }

  @Test
  void oversizedAndGarbageFramesCloseOnlyTheirConnection() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      DataTransferClient client = f.client();
      DatanodeIdProto dn = f.datanode.datanodeId();
      byte[] data = randomBytes(new Random(4), 5000);
      try (BlockWriter writer = client.openWriter(dn, 1, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(data));
      }
      try (RawConnection oversized = new RawConnection(f.datanode.dataAddress());
          RawConnection garbage = new RawConnection(f.datanode.dataAddress());
          RawConnection badHeaderLength = new RawConnection(f.datanode.dataAddress())) {
        oversized.sendRaw(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xf0, 0, 0, 0, 1});
        garbage.sendRaw(new byte[] {0, 0, 0, 12, 0, 0, 0, 8, -1, -1, -1, -1, -1, -1, -1, -1});
        badHeaderLength.sendRaw(new byte[] {0, 0, 0, 8, 0, 0, 0, 100, 1, 2, 3, 4});
        assertThat(oversized.closedByServer()).isTrue();
        assertThat(garbage.closedByServer()).isTrue();
        assertThat(badHeaderLength.closedByServer()).isTrue();
        // the pooled connection of the well-behaved client still works, and so do new ones
        assertThat(read(client, dn, 1, 0, 6000, TimeSpec.latest())).isEqualTo(data);
        try (BlockWriter writer = f.client().openWriter(dn, 1, OPTIONS)) {
          writer.write(5000, ByteBuffer.wrap(data));
        }
        assertThat(read(client, dn, 1, 0, 20000, TimeSpec.latest())).isEqualTo(apply(data, 5000, data));
      }
    }
  }

  /**
   * In latency mode a write reaches the DataNode with no flush at all; in throughput mode it does once the writer
   * flushes. (That throughput mode holds a small write back until then is checked exactly, without a network, by
   * the client's {@code WriteWindowTest}.)
   */
  @Test
  void latencyModeWritesArriveUnflushedAndThroughputModeWritesOnFlush() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      DatanodeIdProto dn = f.datanode.datanodeId();
      DataTransferClient reader = f.client();
      Configuration latency = new Configuration(f.conf);
      latency.setBoolean(DataTransferConfigKeys.LATENCY_MODE_KEY, true);
      try (BlockWriter batched = f.client().openWriter(dn, 20, OPTIONS);
          BlockWriter immediate = f.client(latency).openWriter(dn, 21, OPTIONS)) {
        batched.write(0, ByteBuffer.wrap(new byte[100]));
        immediate.write(0, ByteBuffer.wrap(new byte[100]));
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!reader.blockInfo(dn, 21, TimeSpec.latest()).exists()) {
          assertThat(System.nanoTime()).as("latency-mode write to arrive unflushed").isLessThan(deadline);
          Thread.sleep(5);
        }
        assertThat(reader.blockInfo(dn, 21, TimeSpec.latest()).length()).isEqualTo(100);
        assertThat(batched.flush()).isEqualTo(100);
        assertThat(reader.blockInfo(dn, 20, TimeSpec.latest()).length()).isEqualTo(100);
      }
    }
  }

  /**
   * {@code flush} asks the connection to send only what a write held back: in throughput mode small writes wait for
   * it, in latency mode each went out at once. Either way every flush must return the length of everything written
   * before it; a flush that wrongly thought nothing was held back would wait for an acknowledgement that never comes
   * and fail after the (short) response timeout.
   */
  @Test
  void everyFlushReturnsTheLengthOfAllWritesBeforeItInBothModes() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      DatanodeIdProto dn = f.datanode.datanodeId();
      Configuration throughput = new Configuration(f.conf);
      throughput.setLong(DataTransferConfigKeys.RESPONSE_TIMEOUT_KEY, 5_000);
      throughput.setInt(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, 4096);
      Configuration latency = new Configuration(throughput);
      latency.setBoolean(DataTransferConfigKeys.LATENCY_MODE_KEY, true);
      Random random = new Random(8);
      byte[] model = new byte[0];
      byte[] latencyModel = new byte[0];
      try (BlockWriter batched = f.client(throughput).openWriter(dn, 30, OPTIONS);
          BlockWriter immediate = f.client(latency).openWriter(dn, 31, OPTIONS)) {
        for (int round = 0; round < 40; round++) {
          // 1..3 writes of up to 3 KiB: below, at and across the 4 KiB packet, so some flushes find a packet held
          // back and some find everything sent already (a full packet, or a window that filled up).
          int writes = 1 + random.nextInt(3);
          for (int w = 0; w < writes; w++) {
            byte[] data = randomBytes(random, 1 + random.nextInt(3 * 1024));
            batched.write(model.length, ByteBuffer.wrap(data));
            model = apply(model, model.length, data);
            immediate.write(latencyModel.length, ByteBuffer.wrap(data));
            latencyModel = apply(latencyModel, latencyModel.length, data);
          }
          assertThat(batched.flush()).as("throughput-mode flush in round %d", round).isEqualTo(model.length);
          assertThat(immediate.flush()).as("latency-mode flush in round %d", round).isEqualTo(latencyModel.length);
          // a flush with nothing written since returns at once with the same length
          assertThat(batched.flush()).isEqualTo(model.length);
          assertThat(immediate.flush()).isEqualTo(latencyModel.length);
        }
      }
      DataTransferClient reader = f.client();
      assertThat(read(reader, dn, 30, 0, model.length + 100, TimeSpec.latest())).isEqualTo(model);
      assertThat(read(reader, dn, 31, 0, latencyModel.length + 100, TimeSpec.latest())).isEqualTo(latencyModel);
    }
  }

  @Test
  void readAnswersOfEverySizeCarryTheChunkCrcsOfTheirBytes() throws Exception {
    // Answers of up to 1 MiB are checksummed on the event loop, larger ones on a handler thread: the client checks
    // every chunk CRC of both (CORRUPT on a mismatch) and the bytes must be the block's.
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      Configuration wholeReads = new Configuration(f.conf);
      wholeReads.setInt(DataTransferConfigKeys.READ_REQUEST_SIZE_KEY, 4 << 20);
      DataTransferClient client = f.client(wholeReads);
      DatanodeIdProto dn = f.datanode.datanodeId();
      byte[] data = randomBytes(new Random(12), 3 << 20);
      try (BlockWriter writer = client.openWriter(dn, 12, new WriteOptions(4 << 20, null))) {
        writer.write(0, ByteBuffer.wrap(data));
      }
      int[][] ranges = {{0, 100}, {777, 1 << 20}, {0, 1 << 20}, {4096, (1 << 20) + 1}, {333, (3 << 20) - 333}};
      for (int[] range : ranges) {
        assertThat(read(client, dn, 12, range[0], range[1], TimeSpec.latest()))
            .as("%d bytes at %d", range[1], range[0])
            .isEqualTo(Arrays.copyOfRange(data, range[0], range[0] + range[1]));
      }
    }
  }

  @Test
  void pagesOfWritesThroughTheServerArePersistedWithCrcsFromTheCheckedChunkCrcs() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      byte[] data = randomBytes(new Random(9), 64 << 10);
      try (BlockWriter writer = f.client().openWriter(f.datanode.datanodeId(), 4, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(data));
        writer.write(100, ByteBuffer.wrap(data, 0, 5000)); // off every chunk boundary: checksummed from its pages
      }
      f.client().sync(f.datanode.datanodeId(), List.of(4L));
      // 512-byte pages: the 128 of the first write come from its chunk CRCs, none of the second.
      assertThat(f.datanode.store().stats().pageCrcsDerived.sum()).isEqualTo(128);
      f.restart(); // the segment is closed cleanly: every page is read back from disk and checked against its CRC
      byte[] expected = apply(data, 100, Arrays.copyOf(data, 5000));
      assertThat(read(f.client(), f.datanode.datanodeId(), 4, 0, 1 << 20, TimeSpec.latest())).isEqualTo(expected);
      assertThat(f.datanode.store().stats().crcFailures.sum()).isZero();
    }
  }

  @Test
  void aSyncWithLengthsFailsForABlockHoldingFewerBytesThanItsWriterSent() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      DatanodeIdProto dn = f.datanode.datanodeId();
      try (BlockWriter writer = f.client().openWriter(dn, 12, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(randomBytes(new Random(12), 3000)));
      }
      f.client().sync(dn, List.of(12L), List.of(), List.of(3000L));
      f.client().sync(dn, List.of(12L, 777L), List.of(), List.of(2000L, 0L));  // an untouched block holds 0
      // What a DataNode that restarted before 3001 sent bytes were durable would hold.
      assertThatThrownBy(() -> f.client().sync(dn, List.of(12L), List.of(), List.of(3001L)))
          .isInstanceOfSatisfying(FffsException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR);
            assertThat(e.getMessage()).contains("block 12 holds 3000 bytes", "sent 3001", "write them again");
          });
      assertThatThrownBy(() -> f.client().sync(dn, List.of(777L), List.of(), List.of(1L)))
          .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR));
      assertThatThrownBy(() -> f.client().sync(dn, List.of(12L, 777L), List.of(), List.of(1L)))
          .isInstanceOfSatisfying(FffsException.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    }
  }


  static RequestHeaderProto write(long callId, long blockId, long offset, int[] crcs) {
    WriteRequestProto.Builder write = WriteRequestProto.newBuilder().setBlockId(blockId).setOffset(offset)
        .setChunkCrcs(ChunkChecksums.toWire(crcs));
    return RequestHeaderProto.newBuilder().setCallId(callId).setOp(OpProto.WRITE)
        .setHlc(HlcTimestamp.of(PhysicalClock.system().currentTimeMicros(), 0).toProto()).setWrite(write).build();
  }
}
