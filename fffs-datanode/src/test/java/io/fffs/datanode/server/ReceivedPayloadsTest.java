package io.fffs.datanode.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferConfigKeys;
import io.fffs.client.data.NettyDataTransferClient;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.time.TimeSpec;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data server slices WRITE payloads out of its socket reads as they are; only a payload that spans two reads is
 * copied into a buffer of its own ({@link DataServerStats#writePayloadsCopied}). Either way the block must hold
 * exactly the bytes written.
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
      assertThat(stats.writePayloadsCopied.sum()).as("payloads copied").isLessThan(writes / 2);
    }
  }

  @Test
  void aPayloadLargerThanTheLargestSocketReadIsCopiedOnceAndArrivesWhole() throws Exception {
    try (DataNodeFixture f = new DataNodeFixture(dir).start()) {
      int size = 3 << 19;  // 1.5 MiB: more than one socket read takes (1 MiB)
      Configuration clientConf = new Configuration(f.conf);
      clientConf.setLong(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, size);
      writeAndCheck(f, f.client(clientConf), 301, bytes(size, 2), size);
      DataServerStats stats = f.datanode.serverStats();
      assertThat(stats.writes.sum()).isEqualTo(1);
      assertThat(stats.writePayloadsCopied.sum()).isEqualTo(1);
    }
  }

  private static void writeAndCheck(DataNodeFixture f, NettyDataTransferClient client, long blockId, byte[] data,
      int writeSize) throws Exception {
    DatanodeIdProto dn = f.datanode.datanodeId();
    try (BlockWriter writer = client.openWriter(dn, blockId, new WriteOptions(4 << 20, null))) {
      for (int at = 0; at < data.length; at += writeSize) {
        writer.write(at, ByteBuffer.wrap(data, at, writeSize));
      }
      assertThat(writer.flush()).isEqualTo(data.length);
    }
    ByteBuffer read = ByteBuffer.allocate(data.length);
    assertThat(f.client().read(dn, blockId, 0, read, TimeSpec.latest()).bytesRead()).isEqualTo(data.length);
    assertThat(read.array()).isEqualTo(data);
  }

  private static byte[] bytes(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }
}
