package io.fffs.minicluster.dataserver;

import static io.fffs.minicluster.dataserver.BlockBytes.read;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.data.BlockWriter;

import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.client.data.WriteOptions;
import io.fffs.client.data.netty.NettyTransport;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.server.DataServerStats;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.protocol.DataTransferConfigKeys;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data server slices WRITE payloads out of its socket reads as they are; a payload that spans reads goes to the
 * store in pieces ({@link DataServerStats#writePayloadsGathered}), copied straight into reserved arena pages, or,
 * for a store that cannot reserve pages, merged into one buffer first ({@link DataServerStats#writePayloadsCopied}).
 * Every way, the block must hold exactly the bytes written.
 */
class ReceivedPayloadsTest {
  @TempDir
  Path dir;

  @Test
  void pipelinedSmallWritesAreMostlyTakenFromTheirSocketReadsWithoutCopy() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      int writes = 256;
      byte[] data = bytes(writes * 4096, 1);
      writeAndCheck(f, f.client(), 300, data, 4096);
      DataServerStats stats = f.datanode.serverStats();
      assertThat(stats.writes.sum()).isEqualTo(writes);
      // Eight packets go out per flush (the fixture's window); a read holds several whole frames.
      assertThat(stats.writePayloadsGathered.sum()).as("payloads in pieces").isLessThan(writes / 2);
      assertThat(stats.writePayloadsCopied.sum()).isZero();
    }
  }

  @Test
  void socketReadAndPacketBuffersAreReused() throws Exception {
    DataNodeFixture fixture = new DataNodeFixture(dir);
    fixture.conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, 40L << 20);
    try (DataNodeFixture f = fixture.start()) {
      int blocks = 8;
      NettyTransport tcp = new NettyTransport(f.conf);
      DataTransferClient client = f.keep(DataTransferClients.tcp(f.conf, new HybridLogicalClock(PhysicalClock.system(),
          f.conf), tcp));
      for (int block = 0; block < blocks; block++) {
        writeAndCheck(f, client, 310 + block, bytes(4 << 20, block), 65536);
      }
      DataServerStats stats = f.datanode.serverStats();
      assertThat(stats.writes.sum()).isEqualTo(blocks * 64);
      // 32 MiB arrive in reads of 64 KiB - 1 MiB; each buffer is allocated once and reused by later reads.
      assertThat(stats.receiveBuffersReused.sum()).as("reused read buffers")
          .isGreaterThan(stats.receiveBuffersAllocated.sum());
      // The client's 64 KiB packets likewise: 512 of them, from a few buffers.
      assertThat(tcp.connections().buffersReused()).as("reused packet buffers")
          .isGreaterThan(tcp.connections().buffersAllocated());
    }
  }

  @Test
  void payloadsLargerThanTheLargestSocketReadGoInPiecesIntoReservedPagesAndArriveWhole() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      // 1.5 MiB packets, more than one socket read takes (1 MiB): one from offset 0, one from mid-page, and one
      // that overwrites parts of both from another unaligned offset (partly covered first and last pages).
      int size = 3 << 19;
      Configuration clientConf = new Configuration(f.conf);
      clientConf.setLong(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, size);
      DataTransferClient client = f.client(clientConf);
      DatanodeIdProto dn = f.datanode.datanodeId();
      byte[] expected = bytes(2 * size + 1000, 2);
      byte[] over = bytes(size, 3);
      try (BlockWriter writer = client.openWriter(dn, 301, new WriteOptions(8 << 20, null))) {
        writer.write(0, ByteBuffer.wrap(expected, 0, size + 1000));
        writer.write(size + 1000, ByteBuffer.wrap(expected, size + 1000, size));
        writer.write(777, ByteBuffer.wrap(over));
        assertThat(writer.flush()).isEqualTo(expected.length);
      }
      System.arraycopy(over, 0, expected, 777, size);
      assertThat(read(client, dn, 301, 0, expected.length, TimeSpec.latest())).isEqualTo(expected);
      DataServerStats stats = f.datanode.serverStats();
      assertThat(stats.writes.sum()).isEqualTo(4);  // the first call's last 1000 bytes are a packet of their own
      assertThat(stats.writePayloadsGathered.sum()).isBetween(3L, 4L);
      assertThat(stats.writePayloadsCopied.sum()).isZero();
    }
  }

  @Test
  void aStoreThatCannotReservePagesGetsSuchAPayloadMergedIntoOneBuffer() throws Exception {
    int size = 3 << 19;
    try (SlowStoreServer rig = new SlowStoreServer(dir,
        conf -> conf.setLong(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, size))) {
      byte[] data = bytes(size, 4);
      try (BlockWriter writer = rig.client.openWriter(rig.dn, 302, new WriteOptions(4 << 20, null))) {
        writer.write(0, ByteBuffer.wrap(data));
        assertThat(writer.flush()).isEqualTo(size);
      }
      assertThat(read(rig.client, rig.dn, 302, 0, size, TimeSpec.latest())).isEqualTo(data);
      assertThat(rig.server.stats().writePayloadsGathered.sum()).isEqualTo(1);
      assertThat(rig.server.stats().writePayloadsCopied.sum()).isEqualTo(1);
    }
  }

  private static void writeAndCheck(DataNodeFixture f, DataTransferClient client, long blockId, byte[] data,
      int writeSize) throws Exception {
    DatanodeIdProto dn = f.datanode.datanodeId();
    try (BlockWriter writer = client.openWriter(dn, blockId, new WriteOptions(4 << 20, null))) {
      for (int at = 0; at < data.length; at += writeSize) {
        writer.write(at, ByteBuffer.wrap(data, at, writeSize));
      }
      assertThat(writer.flush()).isEqualTo(data.length);
    }
    assertThat(read(f.client(), dn, blockId, 0, data.length, TimeSpec.latest())).isEqualTo(data);
  }

  private static byte[] bytes(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }
}
