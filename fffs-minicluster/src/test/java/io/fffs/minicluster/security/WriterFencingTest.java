package io.fffs.minicluster.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FffsClientConfigKeys;
import io.fffs.client.FileVersion;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.security.BlockAccessMode;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.Leases;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.NameNodeConfigKeys;
import io.fffs.namenode.permission.Caller;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writer fencing: once lease recovery (by a new writer or by the NameNode at the hard limit) has taken a file from
 * its writer, that writer's packets are refused at once with {@code STALE_WRITER}, and none of its bytes is in the
 * file at any time after the recovery.
 */
class WriterFencingTest {
  private static final int FIRST = 5_000;

  @TempDir
  static Path base;
  static MiniFffsCluster cluster;
  static DataTransferClient raw;

  @BeforeAll
  static void start() throws IOException {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", 1 << 20);
    conf.set(NameNodeConfigKeys.LEASE_SOFT_LIMIT_KEY, "300ms");
    conf.set(NameNodeConfigKeys.LEASE_HARD_LIMIT_KEY, "3s");
    // The old writer never renews by itself: only its hflushes do, and it stops making them.
    conf.set(FffsClientConfigKeys.LEASE_RENEW_INTERVAL_KEY, "1h");
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(1).build();
    raw = DataTransferClients.tcp(conf, new HybridLogicalClock(PhysicalClock.system(), conf));
  }

  @AfterAll
  static void stop() throws IOException {
    if (raw != null) {
      raw.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aNewWriterFencesTheOldOneBeforeItWritesAnything() throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/fenced-by-append");
    try (FreezeFrameFileSystem a = cluster.getFileSystem(); FreezeFrameFileSystem b = cluster.getFileSystem()) {
      FSDataOutputStream oldWriter = a.create(file);
      oldWriter.write(fill('A', FIRST));
      oldWriter.hflush();
      LocatedBlockProto block = firstBlock(file.toString());

      FSDataOutputStream newWriter = Leases.appendOnceTheLeaseLapses(b, file);
      long recovered = recoveryMicros(a, file, "recoverLease");

      // Before the new writer sends a byte, the old one is refused: the DataNode heard of the fence already.
      oldWriter.write(fill('Z', 4_000));
      assertThatThrownBy(oldWriter::hflush).hasMessageContaining("STALE_WRITER")
          .hasMessageContaining("open the file for append");
      closeQuietly(oldWriter);
      long blockId = block.getBlock().getBlockId();
      assertThat(cluster.getDataNode(0).blockKeys().fences().epoch(blockId)).isEqualTo(1);
      // It keeps sending with the token it was given (epoch 0), at the end and inside the block.
      keepSending(block, 0, FIRST, 0, 2_000);

      newWriter.write(fill('B', 3_000));
      newWriter.hflush();
      keepSending(block, 0, FIRST + 3_000, FIRST);
      newWriter.write(fill('B', 1_000));
      newWriter.close();

      assertNoneOfTheOldWritersBytesAfter(a, file, recovered, FIRST + 4_000);
      assertThat(blockLength(block)).isEqualTo(FIRST + 4_000);
    }
  }

  @Test
  void theNameNodesOwnRecoveryFencesTheWriterToo() throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/fenced-at-hard-limit");
    try (FreezeFrameFileSystem a = cluster.getFileSystem()) {
      FSDataOutputStream oldWriter = a.create(file);
      oldWriter.write(fill('A', FIRST));
      oldWriter.hflush();
      LocatedBlockProto block = firstBlock(file.toString());

      long recovered = recoveryMicros(a, file, "recoverLease");

      oldWriter.write(fill('Z', 4_000));
      assertThatThrownBy(oldWriter::hflush).hasMessageContaining("STALE_WRITER");
      closeQuietly(oldWriter);
      keepSending(block, 0, FIRST, 100);

      assertNoneOfTheOldWritersBytesAfter(a, file, recovered, FIRST);
      assertThat(blockLength(block)).isEqualTo(FIRST);
    }
  }

  /** The time of the version lease recovery made, waiting for it (the NameNode's recovery runs on its own). */
  private static long recoveryMicros(FreezeFrameFileSystem fs, org.apache.hadoop.fs.Path file, String change)
      throws Exception {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (System.nanoTime() < deadline) {
      for (FileVersion version : fs.listVersions(file)) {
        if (version.change().equals(change)) {
          return version.hlc().physicalMicros();
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no " + change + " version of " + file + ": " + fs.listVersions(file));
  }

  /** Writes 'Z' with an old WRITE token of {@code epoch} at each offset; each write must be STALE_WRITER. */
  private static void keepSending(LocatedBlockProto block, long epoch, int... offsets) throws IOException {
    long blockId = block.getBlock().getBlockId();
    BlockToken old = cluster.getNameNode().namesystem().blockTokens.issue(blockId, BlockAccessMode.WRITE,
        Caller.current().user(), epoch);
    DatanodeIdProto dn = block.getLocations(0);
    for (int offset : offsets) {
      assertThatThrownBy(() -> {
        try (BlockWriter writer = raw.openWriter(dn, blockId, old, new WriteOptions(1 << 20, null))) {
          writer.write(offset, ByteBuffer.wrap(fill('Z', 1_000)));
          writer.flush();
        }
      }).isInstanceOfSatisfying(FffsException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.STALE_WRITER);
        assertThat(e.detail()).contains("WRITE of block " + blockId + " refused").contains("epoch " + epoch);
      });
    }
  }

  /**
   * Every version from the recovery on, and the present, hold the old writer's bytes from before the recovery
   * followed by the new writer's: never a 'Z'.
   */
  private static void assertNoneOfTheOldWritersBytesAfter(FreezeFrameFileSystem fs, org.apache.hadoop.fs.Path file,
      long recoveredMicros, int finalLength) throws IOException {
    List<FileVersion> versions = fs.listVersions(file);
    int checked = 0;
    for (FileVersion version : versions) {
      if (version.hlc().physicalMicros() < recoveredMicros) {
        continue;
      }
      byte[] then = readAll(fs, new org.apache.hadoop.fs.Path(file + version.marker()));
      assertThat(then.length).as("length at %s", version).isEqualTo(version.length());
      assertOldThenNew(then, version.toString());
      checked++;
    }
    assertThat(checked).isGreaterThanOrEqualTo(1);
    byte[] now = readAll(fs, file);
    assertThat(now).hasSize(finalLength);
    assertOldThenNew(now, "the present");
  }

  private static void assertOldThenNew(byte[] content, String when) {
    for (int i = 0; i < content.length; i++) {
      byte expected = (byte) (i < FIRST ? 'A' : 'B');
      if (content[i] != expected) {
        throw new AssertionError("byte " + i + " at " + when + " is '" + (char) content[i] + "', not '"
            + (char) expected + "'");
      }
    }
  }

  /** The block's length on its DataNode now: every byte ever applied to it counts. */
  private static long blockLength(LocatedBlockProto block) throws IOException {
    long blockId = block.getBlock().getBlockId();
    BlockToken read = cluster.getNameNode().namesystem().blockTokens.issue(blockId, BlockAccessMode.READ, "test");
    return raw.blockInfo(block.getLocations(0), blockId, read, TimeSpec.latest()).length();
  }

  private static LocatedBlockProto firstBlock(String path) throws IOException {
    return cluster.getNameNode().namesystem().queries.getBlockLocations(Caller.current(), path, TimeSpec.latest(),
        0, Long.MAX_VALUE).getBlocks(0);
  }

  private static byte[] readAll(FileSystem fs, org.apache.hadoop.fs.Path path) throws IOException {
    try (InputStream in = fs.open(path)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }
  }

  private static byte[] fill(char c, int n) {
    byte[] bytes = new byte[n];
    Arrays.fill(bytes, (byte) c);
    return bytes;
  }

  private static void closeQuietly(FSDataOutputStream out) {
    try {
      out.close();
    } catch (IOException expected) {
      // the stream failed with STALE_WRITER; closing reports it again
    }
  }
}
