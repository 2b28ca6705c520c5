package io.fffs.minicluster.transport;

import static io.fffs.minicluster.dataserver.BlockBytes.apply;
import static io.fffs.minicluster.dataserver.BlockBytes.randomBytes;
import static io.fffs.minicluster.dataserver.BlockBytes.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.data.BlockInfo;
import io.fffs.client.data.BlockReadStream;
import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.ReadResult;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.security.BlockAccessMode;
import io.fffs.common.security.BlockToken;
import io.fffs.common.security.BlockTokenConfigKeys;
import io.fffs.common.security.BlockTokenIssuer;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data path end to end, written once and run per transport (STYLE.md §10): a DataNode and clients chosen by
 * {@code fffs.transport}. Subclasses name the transport and check it is the one that carried the data.
 */
abstract class TransportSuite {
  static final WriteOptions OPTIONS = new WriteOptions(1 << 20, null);

  @TempDir
  Path dir;

  /** The value of {@code fffs.transport} for both sides. */
  abstract String transport();

  /** What the DataNode must advertise. */
  abstract String expectedTransport();

  TransportFixture fixture() {
    return new TransportFixture(dir, transport());
  }

  @Test
  void theDataNodeAdvertisesTheTransport() throws Exception {
    try (TransportFixture f = fixture().start()) {
      assertThat(f.datanode.datanodeId().getTransport()).isEqualTo(expectedTransport());
      assertThat(f.datanode.datanodeId().getTransportPort() != 0).isEqualTo(!expectedTransport().equals("tcp"));
      DataTransferClient client = f.client();
      try (BlockWriter writer = client.openWriter(f.datanode.datanodeId(), 1, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(randomBytes(new Random(1), 10_000)));
      }
      long tcpWrites = f.datanode.serverStats().writes.sum();
      assertThat(tcpWrites).as("writes through the TCP data server").isEqualTo(expectedTransport().equals("tcp")
          ? 1 : 0);
    }
  }

  @Test
  void everyDataOperationNeedsAValidBlockToken() throws Exception {
    TransportFixture fixture = fixture();
    fixture.conf.setBoolean(BlockTokenConfigKeys.ENABLE_KEY, true);
    try (TransportFixture f = fixture.start()) {
      // What a NameNode would do: sign tokens and hand its keys to the DataNode.
      BlockTokenIssuer issuer = new BlockTokenIssuer(true, 60_000, 3_600_000, PhysicalClock.system());
      f.datanode.blockKeys().update(issuer.exportKeys());
      DataTransferClient client = f.client();
      DatanodeIdProto dn = f.datanode.datanodeId();
      BlockToken write = issuer.issue(3, BlockAccessMode.WRITE, "alice");
      BlockToken read = issuer.issue(3, BlockAccessMode.READ, "bob");
      byte[] data = randomBytes(new Random(3), 20_000);
      try (BlockWriter writer = client.openWriter(dn, 3, write, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(data));
      }
      ByteBuffer back = ByteBuffer.allocate(data.length);
      client.read(dn, 3, read, 0, back, TimeSpec.latest());
      assertThat(back.array()).isEqualTo(data);

      assertThatThrownBy(() -> client.read(dn, 3, null, 0, ByteBuffer.allocate(100), TimeSpec.latest()))
          .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED))
          .hasMessageContaining("READ of block 3 refused");
      assertThatThrownBy(() -> {
        try (BlockWriter writer = client.openWriter(dn, 3, read, OPTIONS)) {
          writer.write(0, ByteBuffer.wrap(new byte[100]));
          writer.flush();
        }
      }).isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED))
          .hasMessageContaining("grants READ, not WRITE");
      back.clear();
      client.read(dn, 3, read, 0, back, TimeSpec.latest());
      assertThat(back.array()).as("nothing was written").isEqualTo(data);
    }
  }

  @Test
  void randomWritesMatchTheModelNowAndAtPastTimes() throws Exception {
    try (TransportFixture f = fixture().start()) {
      DataTransferClient client = f.client();
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
          HlcTimestamp hlc = writer.lastEntryHlc();
          if (!hlcs.isEmpty()) {
            assertThat(hlc).isGreaterThan(hlcs.get(hlcs.size() - 1));
          }
          hlcs.add(hlc);
          states.add(model);
        }
      }
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
        ReadResult result = client.read(dn, blockId, 0, ByteBuffer.allocate(state.length + 10),
            TimeSpec.system(t));
        assertThat(result.blockLength()).isEqualTo(state.length);
        assertThat(result.resolvedHlc()).isEqualTo(hlcs.get(expected));
        assertThat(read(client, dn, blockId, 0, state.length + 10, TimeSpec.system(t))).isEqualTo(state);
        BlockInfo info = client.blockInfo(dn, blockId, TimeSpec.system(t));
        assertThat(info.length()).isEqualTo(state.length);
        assertThat(info.resolvedHlc()).isEqualTo(hlcs.get(expected));
      }
      assertThat(client.blockInfo(dn, blockId, TimeSpec.system(beforeFirst)).exists()).isFalse();
      assertThatThrownBy(() -> read(client, dn, blockId, 0, 10, TimeSpec.system(beforeFirst)))
          .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
    }
  }

  @Test
  void storeAndClockErrorsReachTheClientTyped() throws Exception {
    try (TransportFixture f = fixture().start()) {
      DataTransferClient client = f.client();
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
      }
      // the packet pipelined after the failed one was not applied
      assertThat(read(client, dn, 5, 0, 2000, TimeSpec.latest())).isEqualTo(original);

      BlockWriter small = client.openWriter(dn, 6, new WriteOptions(2048, null));
      small.write(0, ByteBuffer.wrap(new byte[3000]));
      assertThatThrownBy(small::close).isInstanceOfSatisfying(FffsException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.BLOCK_SIZE_EXCEEDED));

      long future = PhysicalClock.system().currentTimeMicros() + 10_000_000;
      assertThatThrownBy(() -> read(client, dn, 5, 0, 10, TimeSpec.system(future)))
          .isInstanceOfSatisfying(FffsException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.TIME_IN_FUTURE);
            assertThat(e.detail()).contains("block 5");
          });
      assertThatThrownBy(() -> read(client, dn, 999, 0, 10, TimeSpec.latest()))
          .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));

      HybridLogicalClock skewedClock = new HybridLogicalClock(PhysicalClock.system(), f.conf);
      skewedClock.observe(HlcTimestamp.of(PhysicalClock.system().currentTimeMicros() + 5_000_000, 0));
      DataTransferClient skewed = f.client(f.conf, skewedClock);
      try (BlockWriter writer = skewed.openWriter(dn, 5, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(new byte[10]));
        assertThatThrownBy(writer::flush).isInstanceOfSatisfying(FffsException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.CLOCK_SKEW));
      }
      assertThat(read(client, dn, 5, 0, 2000, TimeSpec.latest())).isEqualTo(original);
    }
  }

  /**
   * A read split into many requests in flight that runs past the block's end returns the bytes up to the end, and
   * the requests beyond it leave nothing behind: read again and again (a lost registered buffer or connection slot
   * would soon stall), and an empty read still answers with the block's length.
   */
  @Test
  void readsPastTheEndSpanningManyRequestsStopAtTheEnd() throws Exception {
    try (TransportFixture f = fixture().start()) {
      Configuration clientConf = new Configuration(f.conf);
      clientConf.setInt(DataTransferConfigKeys.READ_REQUEST_SIZE_KEY, 64 * 1024);
      clientConf.setInt(DataTransferConfigKeys.READ_REQUESTS_IN_FLIGHT_KEY, 8);
      DataTransferClient client = f.client(clientConf);
      DatanodeIdProto dn = f.datanode.datanodeId();
      byte[] data = randomBytes(new Random(13), 600_000);
      try (BlockWriter writer = client.openWriter(dn, 12, new WriteOptions(8 << 20, null))) {
        writer.write(0, ByteBuffer.wrap(data));
      }
      for (int i = 0; i < 40; i++) {
        ByteBuffer dst = ByteBuffer.allocate(2 << 20);
        ReadResult result = client.read(dn, 12, 100, dst, TimeSpec.latest());
        assertThat(result.bytesRead()).isEqualTo(599_900);
        assertThat(result.blockLength()).isEqualTo(600_000);
        assertThat(Arrays.copyOf(dst.array(), 599_900)).isEqualTo(Arrays.copyOfRange(data, 100, 600_000));
      }
      ReadResult empty = client.read(dn, 12, 0, ByteBuffer.allocate(0), TimeSpec.latest());
      assertThat(empty.bytesRead()).isZero();
      assertThat(empty.blockLength()).isEqualTo(600_000);
    }
  }

  @Test
  void manyPacketsInFlightThroughASmallWindowAndEvictedPagesReadBack() throws Exception {
    try (TransportFixture f = fixture()) {
      f.conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, 1L << 20);
      f.start();
      Configuration clientConf = new Configuration(f.conf);
      clientConf.setInt(DataTransferConfigKeys.WRITE_WINDOW_KEY, 4);
      clientConf.setLong(DataTransferConfigKeys.WRITE_WINDOW_BYTES_KEY, 0);
      clientConf.setInt(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, 1024);
      DataTransferClient client = f.client(clientConf);
      DatanodeIdProto dn = f.datanode.datanodeId();
      byte[] data = randomBytes(new Random(5), 3 << 20);
      try (BlockWriter writer = client.openWriter(dn, 9, new WriteOptions(8 << 20, null))) {
        writer.write(0, ByteBuffer.wrap(data, 0, 1 << 20));
        for (int at = 1 << 20; at < data.length; at += 64 * 1024) {
          writer.write(at, ByteBuffer.wrap(data, at, 64 * 1024));
        }
        assertThat(writer.flush()).isEqualTo(data.length);
      }
      assertThat(f.datanode.store().stats().pagesEvicted.sum()).isGreaterThan(2048);
      // The evicted pages were persisted with CRCs derived from the writes' checked chunk CRCs; reading them back
      // checks those against the bytes on disk.
      assertThat(f.datanode.store().stats().pageCrcsDerived.sum()).isGreaterThan(2048);
      long reloaded = f.datanode.store().stats().pagesReloaded.sum();
      assertThat(read(client, dn, 9, 0, data.length, TimeSpec.latest())).isEqualTo(data);
      assertThat(f.datanode.store().stats().pagesReloaded.sum() - reloaded).isGreaterThan(2048);
      assertThat(read(client, dn, 9, 12_345, 777_777, TimeSpec.latest()))
          .isEqualTo(Arrays.copyOfRange(data, 12_345, 12_345 + 777_777));
    }
  }

  @Test
  void largeWritesAndReadsOfResidentPagesSpanManyRuns() throws Exception {
    try (TransportFixture f = fixture()) {
      f.conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, 16L << 20);
      f.start();
      DataTransferClient client = f.client();
      DatanodeIdProto dn = f.datanode.datanodeId();
      byte[] data = randomBytes(new Random(8), 2 << 20);
      try (BlockWriter writer = client.openWriter(dn, 10, new WriteOptions(8 << 20, null))) {
        writer.write(0, ByteBuffer.wrap(data));
        // overwrite every other page so that the latest state is many runs of non-adjacent pages
        for (int at = 0; at < data.length; at += 1024) {
          byte[] patch = randomBytes(new Random(at), 512);
          writer.write(at, ByteBuffer.wrap(patch));
          System.arraycopy(patch, 0, data, at, 512);
        }
      }
      assertThat(read(client, dn, 10, 0, data.length, TimeSpec.latest())).isEqualTo(data);
      assertThat(read(client, dn, 10, 100, 300_000, TimeSpec.latest()))
          .isEqualTo(Arrays.copyOfRange(data, 100, 300_100));
    }
  }

  @Test
  void syncReturnsADurableFrontierAtOrAfterTheLastAck() throws Exception {
    try (TransportFixture f = fixture().start()) {
      DataTransferClient client = f.client();
      DatanodeIdProto dn = f.datanode.datanodeId();
      HlcTimestamp last;
      try (BlockWriter writer = client.openWriter(dn, 4, OPTIONS)) {
        for (int i = 0; i < 20; i++) {
          writer.write(i * 1000L, ByteBuffer.wrap(randomBytes(new Random(i), 1000)));
        }
        writer.flush();
        last = writer.lastEntryHlc();
      }
      HlcTimestamp durable = client.sync(dn, List.of(4L, 12345L));
      assertThat(durable).isGreaterThanOrEqualTo(last);
    }
  }

  @Test
  void aRestartKeepsDataHistoryAndIdentity() throws Exception {
    try (TransportFixture f = fixture().start()) {
      String uuid = f.datanode.uuid();
      byte[] first = randomBytes(new Random(6), 3000);
      byte[] second = randomBytes(new Random(7), 1000);
      HlcTimestamp firstHlc;
      try (BlockWriter writer = f.client().openWriter(f.datanode.datanodeId(), 8, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(first));
        writer.flush();
        firstHlc = writer.lastEntryHlc();
        writer.write(1500, ByteBuffer.wrap(second));
      }
      f.client().sync(f.datanode.datanodeId(), List.of(8L));
      f.restart();
      assertThat(f.datanode.uuid()).isEqualTo(uuid);
      DataTransferClient client = f.client();
      DatanodeIdProto dn = f.datanode.datanodeId();
      assertThat(read(client, dn, 8, 0, 9000, TimeSpec.latest())).isEqualTo(apply(first, 1500, second));
      assertThat(read(client, dn, 8, 0, 9000, TimeSpec.system(firstHlc.physicalMicros()))).isEqualTo(first);
    }
  }

  /**
   * A read stream keeps requests in flight ahead of its reader over every transport: read in pieces of every size
   * (one byte, odd sizes, more than one request's answer), as of the latest state and as of a past one, it returns
   * exactly the block's bytes and ends where the block ends as of the time read, even when asked for more.
   */
  @Test
  void readStreamsReturnEveryShapeOfReadAndEndWhereTheBlockEnds() throws Exception {
    try (TransportFixture f = fixture().start()) {
      DataTransferClient client = f.client();
      DatanodeIdProto dn = f.datanode.datanodeId();
      byte[] first = randomBytes(new Random(21), 700_000);
      byte[] second = randomBytes(new Random(22), 200_000);
      HlcTimestamp firstHlc;
      try (BlockWriter writer = client.openWriter(dn, 14, OPTIONS)) {
        writer.write(0, ByteBuffer.wrap(first));
        writer.flush();
        firstHlc = writer.lastEntryHlc();
        writer.write(650_000, ByteBuffer.wrap(second));
      }
      byte[] latest = apply(first, 650_000, second);
      assertThat(stream(client, dn, 14, 0, latest.length, TimeSpec.latest(), new int[] {1, 333, 70_000, 300_001}))
          .isEqualTo(latest);
      assertThat(stream(client, dn, 14, 12_345, 2_000_000, TimeSpec.system(firstHlc.physicalMicros()),
          new int[] {4096, 1, 250_000})).isEqualTo(Arrays.copyOfRange(first, 12_345, first.length));
    }
  }

  /**
   * A caller that keeps more streams open than the transport has buffers for answers (UCX: the fixture's 8
   * registered buffers against 5 streams of 4 requests in flight each), reading a little from each in turn, gets
   * every byte: answers it holds never leave another stream waiting for room.
   */
  @Test
  void aReaderAlternatingBetweenManyOpenStreamsGetsEveryByte() throws Exception {
    try (TransportFixture f = fixture().start()) {
      DataTransferClient client = f.client();
      DatanodeIdProto dn = f.datanode.datanodeId();
      int streams = 5;
      byte[][] blocks = new byte[streams][];
      for (int i = 0; i < streams; i++) {
        blocks[i] = randomBytes(new Random(30 + i), 600_000);
        try (BlockWriter writer = client.openWriter(dn, 40 + i, OPTIONS)) {
          writer.write(0, ByteBuffer.wrap(blocks[i]));
        }
      }
      Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> {
        BlockReadStream[] open = new BlockReadStream[streams];
        java.io.ByteArrayOutputStream[] got = new java.io.ByteArrayOutputStream[streams];
        try {
          for (int i = 0; i < streams; i++) {
            open[i] = client.openStream(dn, 40 + i, null, 0, blocks[i].length, TimeSpec.latest());
            got[i] = new java.io.ByteArrayOutputStream();
          }
          for (boolean more = true; more; ) {
            more = false;
            for (int i = 0; i < streams; i++) {
              ByteBuffer piece = ByteBuffer.allocate(50_000);
              int n = open[i].read(piece);
              if (n > 0) {
                got[i].write(piece.array(), 0, n);
                more = true;
              }
            }
          }
        } finally {
          for (BlockReadStream stream : open) {
            if (stream != null) {
              stream.close();
            }
          }
        }
        for (int i = 0; i < streams; i++) {
          assertThat(got[i].toByteArray()).as("block " + (40 + i)).isEqualTo(blocks[i]);
        }
      });
    }
  }

  /** Reads bytes [offset, end) of a block through a stream, in pieces of the given sizes taken in turn. */
  static byte[] stream(DataTransferClient client, DatanodeIdProto dn, long blockId, long offset, long end,
      TimeSpec time, int[] sizes) throws IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    try (BlockReadStream stream = client.openStream(dn, blockId, null, offset, end, time)) {
      for (int i = 0; ; i++) {
        ByteBuffer piece = ByteBuffer.allocate(sizes[i % sizes.length]);
        assertThat(stream.position()).isEqualTo(offset + out.size());
        int n = stream.read(piece);
        if (n < 0) {
          break;
        }
        assertThat(n).isPositive().isEqualTo(piece.position());
        out.write(piece.array(), 0, n);
      }
    }
    return out.toByteArray();
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
}
