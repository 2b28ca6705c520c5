package io.fffs.minicluster.datapath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CompositeCrcFileChecksum;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.MD5MD5CRC32CastagnoliFileChecksum;
import org.apache.hadoop.fs.MD5MD5CRC32GzipFileChecksum;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.MD5Hash;
import org.apache.hadoop.util.DataChecksum;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code getFileChecksum} against checksums this test makes from the bytes itself, in both of HDFS's forms: made by
 * DataNodes whose arena is smaller than the file (so most chunks' CRCs come from segment files), at past times, of
 * prefixes, and from the other replica once one DataNode is gone.
 */
class FileChecksumTest {
  private static final int BLOCK = 1 << 20;
  private static final int CHUNK = 512;

  @TempDir
  static java.nio.file.Path base;
  private static MiniFffsCluster cluster;
  private static FreezeFrameFileSystem fs;

  @BeforeAll
  static void start() throws IOException {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", BLOCK);
    conf.setInt("fffs.replication", 2);
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(2).memoryCapacity(4L << 20).build();
    fs = cluster.getFileSystem();
  }

  @AfterAll
  static void stop() throws IOException {
    if (fs != null) {
      fs.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static byte[] bytes(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static void write(Path path, byte[] bytes) throws IOException {
    try (FSDataOutputStream out = fs.create(path, true)) {
      out.write(bytes, 0, bytes.length / 3);  // in several writes: the stream's packets are not the chunks
      out.write(bytes, bytes.length / 3, bytes.length - bytes.length / 3);
    }
  }

  /**
   * HDFS's MD5-of-MD5-of-CRC32C of {@code bytes} in blocks of {@link #BLOCK}, made here from the bytes: an MD5 of
   * each block's chunk CRCs (big-endian), then an MD5 of those MD5s followed by zeros up to 32 bytes or the next
   * power of two above (HDFS's client digests the whole buffer it gathered them in).
   */
  static FileChecksum md5OfMd5s(byte[] bytes) throws Exception {
    if (bytes.length == 0) {
      return new MD5MD5CRC32GzipFileChecksum(0, 0, MD5Hash.digest(new byte[32]));  // HDFS's, for no blocks
    }
    java.io.ByteArrayOutputStream md5s = new java.io.ByteArrayOutputStream();
    int blocks = 0;
    for (int start = 0; start < bytes.length; start += BLOCK) {
      MessageDigest block = MessageDigest.getInstance("MD5");
      int end = Math.min(bytes.length, start + BLOCK);
      for (int chunk = start; chunk < end; chunk += CHUNK) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, chunk, Math.min(CHUNK, end - chunk));
        int value = (int) crc.getValue();
        block.update(new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value});
      }
      md5s.write(block.digest());
      blocks++;
    }
    int padded = Math.max(32, Integer.highestOneBit(md5s.size() - 1) << 1);
    return new MD5MD5CRC32CastagnoliFileChecksum(CHUNK, blocks > 1 ? BLOCK / CHUNK : 0,
        MD5Hash.digest(Arrays.copyOf(md5s.toByteArray(), padded)));
  }

  static FileChecksum composite(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return new CompositeCrcFileChecksum((int) crc.getValue(), DataChecksum.Type.CRC32C, CHUNK);
  }

  private static FileSystem compositeClient() throws IOException {
    Configuration conf = new Configuration(cluster.getConfiguration());
    conf.set("dfs.checksum.combine.mode", "COMPOSITE_CRC");
    return FileSystem.newInstance(cluster.getURI(), conf);
  }

  @Test
  void aFilesChecksumIsHdfssFormOfItsBytesAtEveryTimeAndLength() throws Exception {
    Path file = new Path("/ck/multi");
    byte[] first = bytes(6 * BLOCK + 1234, 1);  // 6 MiB: most of it evicted from the 4 MiB arenas
    write(file, first);
    FileChecksum checksum = fs.getFileChecksum(file);
    assertThat(checksum).isEqualTo(md5OfMd5s(first));
    assertThat(checksum.getAlgorithmName()).isEqualTo("MD5-of-2048MD5-of-512CRC32C");
    assertThat(fs.getFileChecksum(file)).as("asked again (evicted pages now checked)").isEqualTo(checksum);

    long before = Moments.now(fs);
    byte[] second = first.clone();
    System.arraycopy(bytes(700, 2), 0, second, 3 * BLOCK - 300, 700);  // across a block boundary
    write(file, second);
    assertThat(fs.getFileChecksum(file)).isEqualTo(md5OfMd5s(second)).isNotEqualTo(checksum);
    assertThat(fs.getFileChecksum(Moments.at(file, before))).as("as of before the rewrite").isEqualTo(checksum);

    int[] lengths = {0, 1, 511, 512, 1000, BLOCK, BLOCK + 1, 3 * BLOCK - 1};
    for (int length : lengths) {
      assertThat(fs.getFileChecksum(file, length)).as("the first %d bytes", length)
          .isEqualTo(md5OfMd5s(Arrays.copyOf(second, length)));
    }
    assertThat(fs.getFileChecksum(file, Long.MAX_VALUE)).isEqualTo(md5OfMd5s(second));
    try (FileSystem composite = compositeClient()) {
      assertThat(composite.getFileChecksum(file)).isEqualTo(composite(second));
      assertThat(composite.getFileChecksum(Moments.at(file, before))).isEqualTo(composite(first));
      assertThat(composite.getFileChecksum(file, BLOCK + 7)).isEqualTo(composite(Arrays.copyOf(second, BLOCK + 7)));
      assertThat(composite.getFileChecksum(file).getAlgorithmName()).isEqualTo("COMPOSITE-CRC32C");
    }
  }

  @Test
  void emptyAndOneBlockFilesAndBadRequestsAnswerAsHdfsDoes() throws Exception {
    Path empty = new Path("/ck/empty");
    write(empty, new byte[0]);
    assertThat(fs.getFileChecksum(empty)).isEqualTo(md5OfMd5s(new byte[0]));
    Path small = new Path("/ck/small");
    byte[] bytes = bytes(5000, 3);
    write(small, bytes);
    assertThat(fs.getFileChecksum(small)).isEqualTo(md5OfMd5s(bytes));
    assertThat(fs.getFileChecksum(small).getAlgorithmName()).as("one block: no CRC count per block")
        .isEqualTo("MD5-of-0MD5-of-512CRC32C");

    assertThatThrownBy(() -> fs.getFileChecksum(new Path("/ck"))).hasMessageContaining("is a directory");
    assertThatThrownBy(() -> fs.getFileChecksum(new Path("/ck/none"))).hasMessageContaining("does not exist");
    assertThatThrownBy(() -> fs.getFileChecksum(small, -1)).hasMessageContaining("must not be negative");
    Configuration conf = new Configuration(cluster.getConfiguration());
    conf.set("dfs.checksum.combine.mode", "SHA1");
    try (FileSystem other = FileSystem.newInstance(cluster.getURI(), conf)) {
      assertThatThrownBy(() -> other.getFileChecksum(small)).hasMessageContaining(
          "dfs.checksum.combine.mode=SHA1 is not a checksum combine mode; use MD5MD5CRC (the default) or "
          + "COMPOSITE_CRC");
    }
  }

  @Test
  void withOneReplicaGoneTheOtherMakesTheSameChecksum() throws Exception {
    Path file = new Path("/ck/replicated");
    byte[] bytes = bytes(2 * BLOCK + 99, 4);
    write(file, bytes);
    FileChecksum both = fs.getFileChecksum(file);
    assertThat(both).isEqualTo(md5OfMd5s(bytes));
    cluster.stopDataNode(0);
    try (FreezeFrameFileSystem fresh = cluster.getFileSystem()) {
      assertThat(fresh.getFileChecksum(file)).isEqualTo(both);
    } finally {
      cluster.restartDataNode(0);
    }
  }
}
