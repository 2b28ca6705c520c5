package io.fffs.http;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.MD5MD5CRC32CastagnoliFileChecksum;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.MD5Hash;
import org.apache.hadoop.util.StringUtils;

/**
 * {@code GETFILECHECKSUM}: HDFS's default file checksum, computed from the bytes of the version asked for — a
 * CRC32C per 512 bytes, an MD5 of each block's CRCs, an MD5 of the blocks' MD5s — as Hadoop's
 * {@link MD5MD5CRC32CastagnoliFileChecksum}, so tools that compare checksums (distcp) can compare FFFS files.
 */
final class FileChecksums {
  static final int BYTES_PER_CRC = 512;

  private FileChecksums() {}

  /** The {@code {"FileChecksum": {"algorithm", "bytes", "length"}}} of {@code path}. */
  static String md5OfMd5OfCrc32c(FreezeFrameFileSystem fs, Path path) throws IOException {
    FileStatus status = fs.getFileStatus(path);
    long blockSize = status.getBlockSize();
    MessageDigest fileMd5 = md5();
    MessageDigest blockMd5 = md5();
    CRC32C crc = new CRC32C();
    byte[] chunk = new byte[BYTES_PER_CRC];
    byte[] crcBytes = new byte[4];
    long blocks = 0;
    try (FSDataInputStream in = fs.open(path, 1 << 20)) {
      long position = 0;
      long length = status.getLen();
      while (position < length) {
        int n = (int) Math.min(BYTES_PER_CRC, Math.min(length - position, blockSize - position % blockSize));
        in.readFully(chunk, 0, n);
        crc.reset();
        crc.update(chunk, 0, n);
        int value = (int) crc.getValue();
        crcBytes[0] = (byte) (value >>> 24);
        crcBytes[1] = (byte) (value >>> 16);
        crcBytes[2] = (byte) (value >>> 8);
        crcBytes[3] = (byte) value;
        blockMd5.update(crcBytes);
        position += n;
        if (position % blockSize == 0 || position == length) {
          fileMd5.update(blockMd5.digest());
          blocks++;
        }
      }
    }
    long crcPerBlock = blocks > 1 ? (blockSize + BYTES_PER_CRC - 1) / BYTES_PER_CRC : 0;
    MD5MD5CRC32CastagnoliFileChecksum checksum = new MD5MD5CRC32CastagnoliFileChecksum(BYTES_PER_CRC,
        crcPerBlock, new MD5Hash(fileMd5.digest()));
    return new Json().beginObject().beginObject("FileChecksum")
        .field("algorithm", checksum.getAlgorithmName())
        .field("bytes", StringUtils.byteToHexString(checksum.getBytes()))
        .field("length", checksum.getLength())
        .endObject().endObject().toString();
  }

  private static MessageDigest md5() throws FffsException {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new FffsException(ErrorCode.INTERNAL, "this JVM has no MD5", e);
    }
  }
}
