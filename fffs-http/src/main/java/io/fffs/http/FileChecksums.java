package io.fffs.http;

import io.fffs.client.FreezeFrameFileSystem;
import java.io.IOException;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.Options.ChecksumCombineMode;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.StringUtils;

/**
 * {@code GETFILECHECKSUM}: the file system's checksum of the version asked for, made by the DataNodes from the CRCs
 * they keep, in WebHDFS's JSON, so tools that compare checksums (distcp) can compare FFFS files. Always HDFS's
 * MD5-of-MD5-of-CRC32C, whatever the gateway's {@code dfs.checksum.combine.mode}: the only form Hadoop's WebHDFS
 * client reads.
 */
final class FileChecksums {
  private FileChecksums() {}

  /** The {@code {"FileChecksum": {"algorithm", "bytes", "length"}}} of {@code path}. */
  static String json(FreezeFrameFileSystem fs, Path path) throws IOException {
    FileChecksum checksum = fs.getFileChecksum(path, Long.MAX_VALUE, ChecksumCombineMode.MD5MD5CRC);
    return new Json().beginObject().beginObject("FileChecksum")
        .field("algorithm", checksum.getAlgorithmName())
        .field("bytes", StringUtils.byteToHexString(checksum.getBytes()))
        .field("length", checksum.getLength())
        .endObject().endObject().toString();
  }
}
