package io.fffs.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.data.BlockInfo;
import io.fffs.client.data.BlockReadStream;
import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.ReadResult;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A transport without block read streams (as UCX is) still reads every shape of sequential read right: the input
 * stream asks once, learns there are none, and reads through its buffer, the read-ahead and direct reads. The
 * transport here is the real TCP client with its stream capability hidden, against a real cluster.
 */
class StreamlessTransportReadTest {
  private static final int BLOCK = 1 << 20;
  private static final int BUFFER = 64 << 10;

  @TempDir
  Path base;

  /** Delegates everything to the TCP client except {@code openStream}, which it counts and answers "none". */
  private static final class Streamless implements DataTransferClient {
    final DataTransferClient tcp;
    final AtomicInteger streamsAsked = new AtomicInteger();
    final AtomicInteger reads = new AtomicInteger();

    Streamless(DataTransferClient tcp) {
      this.tcp = tcp;
    }

    @Override
    public BlockReadStream openStream(DatanodeIdProto datanode, long blockId, BlockToken token, long offset,
        long end, TimeSpec time) {
      streamsAsked.incrementAndGet();
      return null;
    }

    @Override
    public BlockWriter openWriter(DatanodeIdProto datanode, long blockId, BlockToken token, WriteOptions options)
        throws IOException {
      return tcp.openWriter(datanode, blockId, token, options);
    }

    @Override
    public ReadResult read(DatanodeIdProto datanode, long blockId, BlockToken token, long offset, ByteBuffer dst,
        TimeSpec time) throws IOException {
      reads.incrementAndGet();
      return tcp.read(datanode, blockId, token, offset, dst, time);
    }

    @Override
    public BlockInfo blockInfo(DatanodeIdProto datanode, long blockId, BlockToken token, TimeSpec time)
        throws IOException {
      return tcp.blockInfo(datanode, blockId, token, time);
    }

    @Override
    public long truncate(DatanodeIdProto datanode, long blockId, BlockToken token, long newLength)
        throws IOException {
      return tcp.truncate(datanode, blockId, token, newLength);
    }

    @Override
    public HlcTimestamp sync(DatanodeIdProto datanode, Collection<Long> blockIds, Collection<BlockToken> tokens,
        Collection<Long> minLengths) throws IOException {
      return tcp.sync(datanode, blockIds, tokens, minLengths);
    }

    @Override
    public void close() {}
  }

  @Test
  void sequentialReadsOfEveryShapeGoThroughTheBufferedPath() throws IOException {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", BLOCK);
    conf.setInt("fffs.client.read.request-size", 4096);
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).build()) {
      byte[] data = new byte[2 * BLOCK + 54_321];
      new Random(11).nextBytes(data);
      try (FileSystem fs = FileSystem.newInstance(cluster.getURI(), conf);
          FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path("/streamless"))) {
        out.write(data);
      }
      try (FffsClient client = new FffsClient(cluster.getURI(), conf)) {
        Streamless transport = new Streamless(client.data());
        FileLayout layout = client.layout("/streamless", TimeSpec.latest(),
            new org.apache.hadoop.fs.Path("/streamless"));
        byte[] back = new byte[data.length];
        int[] sizes = {1, 777, BUFFER, 4096, 300_000, 513, 2 * BUFFER + 3, BUFFER - 1};
        try (FffsInputStream in = new FffsInputStream(layout, transport, BUFFER, null)) {
          int at = 0;
          for (int call = 0; at < data.length; call++) {
            int n = in.read(back, at, Math.min(sizes[call % sizes.length], data.length - at));
            assertThat(n).as("read %d at %d", call, at).isPositive();
            at += n;
          }
          assertThat(in.read()).isEqualTo(-1);
        }
        assertThat(Arrays.equals(back, data)).as("bytes read back").isTrue();
        assertThat(transport.streamsAsked.get()).as("streams asked for (then remembered as none)").isEqualTo(1);
        assertThat(transport.reads.get()).as("block reads through the buffered path").isGreaterThanOrEqualTo(
            data.length / (2 * BUFFER + 3));
      }
    }
  }
}
