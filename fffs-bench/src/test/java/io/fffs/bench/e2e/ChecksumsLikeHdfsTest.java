package io.fffs.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same bytes in FFFS and in HDFS ({@code MiniDFSCluster}, which lives with the benchmarks' HDFS baseline) have
 * equal file checksums: MD5-of-MD5-of-CRC32C at the same block size, COMPOSITE_CRC at different ones, so distcp
 * and {@code fs -checksum} compare files across the two.
 */
class ChecksumsLikeHdfsTest {
  private static final long BLOCK = 1L << 20;

  @TempDir
  Path tmp;

  private static void write(FileSystem fs, org.apache.hadoop.fs.Path path, byte[] bytes, long blockSize)
      throws IOException {
    try (FSDataOutputStream out = fs.create(path, true, 65536, (short) 1, blockSize)) {
      out.write(bytes);
    }
  }

  @Test
  void fffsAndHdfsGiveEqualChecksumsForEqualBytes() throws IOException {
    int[] lengths = {0, 700, (int) BLOCK, 3 * (int) BLOCK + 4321};
    MiniDFSCluster hdfs = Clusters.hdfs(tmp.resolve("hdfs"), new Configuration());
    try (MiniFffsCluster fffs = Clusters.fffs(tmp.resolve("fffs"), new Configuration(), 2L << 20)) {
      for (String mode : new String[] {"MD5MD5CRC", "COMPOSITE_CRC"}) {
        try (FileSystem h = Clusters.client(hdfs, "dfs.checksum.combine.mode", mode);
            FileSystem f = Clusters.client(fffs, "dfs.checksum.combine.mode", mode)) {
          FileChecksum previous = null;
          for (int length : lengths) {
            byte[] bytes = new byte[length];
            new Random(length).nextBytes(bytes);
            org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("/ck/" + mode + "-" + length);
            write(h, path, bytes, BLOCK);
            write(f, path, bytes, BLOCK);
            FileChecksum expected = h.getFileChecksum(path);
            assertEquals(expected, f.getFileChecksum(path), mode + ", " + length + " bytes");
            assertEquals(h.getFileChecksum(path, 500), f.getFileChecksum(path, 500), mode + ", first 500 bytes");
            assertNotEquals(previous, expected, "different bytes, different checksums");
            previous = expected;
          }
          if (mode.equals("COMPOSITE_CRC")) {
            // Block size does not matter to the composite CRC: FFFS with 2 MiB blocks against HDFS with 1 MiB.
            byte[] bytes = new byte[5 * (int) BLOCK + 17];
            new Random(5).nextBytes(bytes);
            org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("/ck/sizes");
            write(h, path, bytes, BLOCK);
            write(f, path, bytes, 2 * BLOCK);
            assertEquals(h.getFileChecksum(path), f.getFileChecksum(path), "different block sizes");
          }
        }
      }
    } finally {
      Clusters.shutdown(hdfs);
    }
  }
}
