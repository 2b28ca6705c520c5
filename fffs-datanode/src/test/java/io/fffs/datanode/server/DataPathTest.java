package io.fffs.datanode.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.data.BlockInfo;
import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferConfigKeys;
import io.fffs.client.data.NettyBlockWriter;
import io.fffs.client.data.NettyDataTransferClient;
import io.fffs.client.data.ReadResult;
import io.fffs.client.data.WriteOptions;
import io.fffs.client.data.frame.ChunkChecksums;
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
import io.fffs.datanode.store.DataNodeConfigKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The data path end to end over loopback: a DataNode (no NameNode) and {@link NettyDataTransferClient}. */
class DataPathTest {
  private static final WriteOptions OPTIONS = new WriteOptions(1 << 20, null);

  @TempDir
  Path dir;

  @Test
  void randomWritesMatchTheModelNowAndAtPastTimes() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      NettyDataTransferClient client = f.client();
      DatanodeIdProto dn = f.datanode.datanodeId();
      long blockId = 7;
      long beforeFirst = PhysicalClock.system().currentTimeMicros() - 1;
      Random random = new Random(42);
      byte[] model = new byte[0];
      List<HlcTimestamp> hlcs = new ArrayList<>();
      List<byte[]> states = new ArrayList<>();
      try (BlockWriter writer = client.openWriter(dn, blockId, OPTIONS)) {
        for (int i = 0; i < 200; i++) {
          int offset = model.length == 0 ? 0 : random.nextInt(model.length + 1);
          byte[] data = randomBytes(random, 1 + random.nextInt(3000));
          writer.write(offset, ByteBuffer.wrap(data));
          model = apply(model, offset, data);
          assertThat(writer.flush()).isEqualTo(model.length);
          HlcTimestamp hlc = ((NettyBlockWriter) writer).lastEntryHlc();
          if (!hlcs.isEmpty()) {
            assertThat(hlc).isGreaterThan(hlcs.get(hlcs.size() - 1));
          }
          hlcs.add(hlc);
          states.add(model);
        }
      }
      assertThat(client.clock().last()).isGreaterThanOrEqualTo(hlcs.get(hlcs.size() - 1));

      assertThat(read(client, dn, blockId, 0, model.length + 100, TimeSpec.latest())).isEqualTo(model);
      for (int i = 0; i < 50; i++) {
        int offset = random.nextInt(model.length + 1);
        int length = random.nextInt(5000);
        assertThat(read(client, dn, blockId, offset, length, TimeSpec.latest()))
            .isEqualTo(Arrays.copyOfRange(model, offset, Math.min(model.length, offset + length)));
      }
      for (int i = 0; i < 60; i++) {
        long t = hlcs.get(random.nextInt(hlcs.size())).physicalMicros();
        int expected = lastAtOrBefore(hlcs, t);
        byte[] state = states.get(expected);
        ReadResult result = readResult(client, dn, blockId, 0, state.length + 10, TimeSpec.system(t));
        assertThat(result.blockLength()).isEqualTo(state.length);
        assertThat(result.resolvedHlc()).isEqualTo(hlcs.get(expected));
        assertThat(read(client, dn, blockId, 0, state.length + 10, TimeSpec.system(t))).isEqualTo(state);
        BlockInfo info = client.blockInfo(dn, blockId, TimeSpec.system(t));
        assertThat(info.exists()).isTrue();
        assertThat(info.length()).isEqualTo(state.length);
        assertThat(info.resolvedHlc()).isEqualTo(hlcs.get(expected));
      }
      assertThat(client.blockInfo(dn, blockId, TimeSpec.system(beforeFirst)).exists()).isFalse();
      assertThatThrownBy(() -> read(client, dn, blockId, 0, 10, TimeSpec.system(beforeFirst)))
          .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
    }
  }

  @Test
  void aWriteWithABadChecksumIsCorruptAndWritesNothing() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start();
        RawConnection raw = new RawConnection(f.datanode.dataAddress())) {
      NettyDataTransferClient client = f.client();
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
  void storeAndClockErrorsReachTheClientTyped() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      NettyDataTransferClient client = f.client();
      DatanodeIdProto dn = f.datanode.datanodeId();
      byte[] original = randomBytes(new Random(3), 1000);
      try (BlockWriter writer = client.openWriter(dn, 5, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(original));
        writer.flush();
        writer.write(5000, ByteBuffer.wrap(new byte[10]));
        writer.write(0, ByteBuffer.wrap(new byte[100]));
        assertThatThrownBy(writer::flush).isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.WRITE_BEYOND_EOF);
          assertThat(e.detail()).contains("5000").contains("block 5");
        });
        assertThatThrownBy(() -> writer.write(0, ByteBuffer.wrap(new byte[1])))
            .isInstanceOfSatisfying(FffsException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.WRITE_BEYOND_EOF));
      }
      // the packet pipelined after the failed one was not applied
      assertThat(read(client, dn, 5, 0, 2000, TimeSpec.latest())).isEqualTo(original);

      BlockWriter small = client.openWriter(dn, 6, new WriteOptions(2048, null));
      small.write(0, ByteBuffer.wrap(new byte[3000]));
      assertThatThrownBy(small::close).isInstanceOfSatisfying(FffsException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.BLOCK_SIZE_EXCEEDED);
        assertThat(e.detail()).contains("2048");
      });

      long future = PhysicalClock.system().currentTimeMicros() + 10_000_000;
      assertThatThrownBy(() -> read(client, dn, 5, 0, 10, TimeSpec.system(future)))
          .isInstanceOfSatisfying(FffsException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.TIME_IN_FUTURE);
            assertThat(e.detail()).contains("block 5").contains("ahead");
          });
      assertThatThrownBy(() -> client.blockInfo(dn, 5, TimeSpec.system(future)))
          .isInstanceOfSatisfying(FffsException.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.TIME_IN_FUTURE));
      assertThatThrownBy(() -> read(client, dn, 999, 0, 10, TimeSpec.latest()))
          .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));

      NettyDataTransferClient skewed = f.client();
      skewed.clock().observe(HlcTimestamp.of(PhysicalClock.system().currentTimeMicros() + 5_000_000, 0));
      try (BlockWriter writer = skewed.openWriter(dn, 5, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(new byte[10]));
        assertThatThrownBy(writer::flush).isInstanceOfSatisfying(FffsException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.CLOCK_SKEW));
      }
      assertThat(read(client, dn, 5, 0, 2000, TimeSpec.latest())).isEqualTo(original);
    }
  }

  @Test
  void oversizedAndGarbageFramesCloseOnlyTheirConnection() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      NettyDataTransferClient client = f.client();
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

  @Test
  void manyPacketsInFlightThroughASmallWindowAndEvictedPagesReadBack() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir)) {
      f.conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, 1L << 20);
      f.start();
      Configuration clientConf = new Configuration(f.conf);
      clientConf.setInt(DataTransferConfigKeys.WRITE_WINDOW_KEY, 4);
      clientConf.setInt(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, 1024);
      clientConf.setLong(DataTransferConfigKeys.MAX_FRAME_SIZE_KEY, 1L << 20);
      NettyDataTransferClient client = f.client(clientConf);
      DatanodeIdProto dn = f.datanode.datanodeId();
      byte[] data = randomBytes(new Random(5), 3 << 20);
      long writesBefore = f.datanode.serverStats().writes.sum();
      try (BlockWriter writer = client.openWriter(dn, 9, new WriteOptions(8 << 20, null))) {
        writer.write(0, ByteBuffer.wrap(data, 0, 1 << 20));
        for (int at = 1 << 20; at < data.length; at += 64 * 1024) {
          writer.write(at, ByteBuffer.wrap(data, at, 64 * 1024));
        }
        assertThat(writer.flush()).isEqualTo(data.length);
      }
      assertThat(f.datanode.serverStats().writes.sum() - writesBefore).isEqualTo(3 * 1024);
      // 3 MiB through a 1 MiB arena: most pages are evicted and read back from segment files
      assertThat(f.datanode.store().stats().pagesEvicted.sum()).isGreaterThan(2048);
      long reloaded = f.datanode.store().stats().pagesReloaded.sum();
      assertThat(read(client, dn, 9, 0, data.length, TimeSpec.latest())).isEqualTo(data);
      assertThat(f.datanode.store().stats().pagesReloaded.sum() - reloaded).isGreaterThan(2048);
      assertThat(read(client, dn, 9, 12_345, 777_777, TimeSpec.latest()))
          .isEqualTo(Arrays.copyOfRange(data, 12_345, 12_345 + 777_777));
    }
  }

  @Test
  void latencyModeSendsEachWriteAtOnceWhileThroughputModeWaitsForAFlush() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      DatanodeIdProto dn = f.datanode.datanodeId();
      NettyDataTransferClient reader = f.client();
      Configuration latency = new Configuration(f.conf);
      latency.setBoolean(DataTransferConfigKeys.LATENCY_MODE_KEY, true);
      try (BlockWriter batched = f.client().openWriter(dn, 20, OPTIONS);
          BlockWriter immediate = f.client(latency).openWriter(dn, 21, OPTIONS)) {
        batched.write(0, ByteBuffer.wrap(new byte[100]));
        immediate.write(0, ByteBuffer.wrap(new byte[100]));
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!reader.blockInfo(dn, 21, TimeSpec.latest()).exists()) {
          assertThat(System.nanoTime()).as("latency-mode write to arrive unflushed").isLessThan(deadline);
          Thread.sleep(5);
        }
        Thread.sleep(200);
        assertThat(reader.blockInfo(dn, 20, TimeSpec.latest()).exists()).isFalse();
        assertThat(batched.flush()).isEqualTo(100);
        assertThat(reader.blockInfo(dn, 20, TimeSpec.latest()).length()).isEqualTo(100);
      }
    }
  }

  @Test
  void syncReturnsADurableFrontierAtOrAfterTheLastAck() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      NettyDataTransferClient client = f.client();
      DatanodeIdProto dn = f.datanode.datanodeId();
      HlcTimestamp last;
      try (BlockWriter writer = client.openWriter(dn, 4, OPTIONS)) {
        for (int i = 0; i < 20; i++) {
          writer.write(i * 1000L, ByteBuffer.wrap(randomBytes(new Random(i), 1000)));
        }
        writer.flush();
        last = ((NettyBlockWriter) writer).lastEntryHlc();
      }
      HlcTimestamp durable = client.sync(dn, List.of(4L, 12345L));
      assertThat(durable).isGreaterThanOrEqualTo(last);
      assertThat(client.clock().last()).isGreaterThanOrEqualTo(durable);
    }
  }

  @Test
  void aRestartOnTheSameDirectoriesKeepsDataHistoryAndIdentity() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      String uuid = f.datanode.uuid();
      byte[] first = randomBytes(new Random(6), 3000);
      byte[] second = randomBytes(new Random(7), 1000);
      HlcTimestamp firstHlc;
      try (BlockWriter writer = f.client().openWriter(f.datanode.datanodeId(), 8, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(first));
        writer.flush();
        firstHlc = ((NettyBlockWriter) writer).lastEntryHlc();
        writer.write(1500, ByteBuffer.wrap(second));
      }
      f.client().sync(f.datanode.datanodeId(), List.of(8L));
      f.restart();
      assertThat(f.datanode.uuid()).isEqualTo(uuid);
      NettyDataTransferClient client = f.client();
      DatanodeIdProto dn = f.datanode.datanodeId();
      assertThat(read(client, dn, 8, 0, 9000, TimeSpec.latest())).isEqualTo(apply(first, 1500, second));
      assertThat(read(client, dn, 8, 0, 9000, TimeSpec.system(firstHlc.physicalMicros()))).isEqualTo(first);
    }
  }

  @Test
  void theUcxTransportIsRefusedAtStartUntilItExists() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir)) {
      f.conf.set(DataTransferConfigKeys.TRANSPORT_KEY, "ucx");
      assertThatThrownBy(f::start).isInstanceOfSatisfying(FffsException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED);
        assertThat(e.detail()).contains("fffs.transport=ucx").contains("auto or tcp");
      });
      f.conf.set(DataTransferConfigKeys.TRANSPORT_KEY, "auto");
      f.start();
      assertThat(f.datanode.datanodeId().getTransport()).isEqualTo("tcp");
    }
  }

  static RequestHeaderProto write(long callId, long blockId, long offset, int[] crcs) {
    WriteRequestProto.Builder write = WriteRequestProto.newBuilder().setBlockId(blockId).setOffset(offset);
    for (int crc : crcs) {
      write.addChunkCrcs(crc);
    }
    return RequestHeaderProto.newBuilder().setCallId(callId).setOp(OpProto.WRITE)
        .setHlc(HlcTimestamp.of(PhysicalClock.system().currentTimeMicros(), 0).toProto()).setWrite(write).build();
  }

  static int lastAtOrBefore(List<HlcTimestamp> hlcs, long micros) {
    int found = -1;
    for (int i = 0; i < hlcs.size(); i++) {
      if (hlcs.get(i).physicalMicros() <= micros) {
        found = i;
      }
    }
    return found;
  }

  static byte[] apply(byte[] model, int offset, byte[] data) {
    byte[] next = Arrays.copyOf(model, Math.max(model.length, offset + data.length));
    System.arraycopy(data, 0, next, offset, data.length);
    return next;
  }

  static byte[] randomBytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  static ReadResult readResult(NettyDataTransferClient client, DatanodeIdProto dn, long blockId, long offset,
      int length, TimeSpec time) throws IOException {
    return client.read(dn, blockId, offset, ByteBuffer.allocate(length), time);
  }

  static byte[] read(NettyDataTransferClient client, DatanodeIdProto dn, long blockId, long offset, int length,
      TimeSpec time) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length);
    ReadResult result = client.read(dn, blockId, offset, buffer, time);
    assertThat(buffer.position()).isEqualTo(result.bytesRead());
    return Arrays.copyOf(buffer.array(), result.bytesRead());
  }
}
