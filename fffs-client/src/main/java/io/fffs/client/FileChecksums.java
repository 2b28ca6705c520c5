package io.fffs.client;

import io.fffs.client.data.DataTransferClient;
import io.fffs.client.errors.ClientErrors;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.proto.DataTransferProtos.BlockChecksumResponseProto;
import io.fffs.protocol.frame.ChunkChecksums;
import io.fffs.protocol.frame.Crc32cComposition;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CompositeCrcFileChecksum;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.MD5MD5CRC32CastagnoliFileChecksum;
import org.apache.hadoop.fs.MD5MD5CRC32GzipFileChecksum;
import org.apache.hadoop.fs.Options.ChecksumCombineMode;
import org.apache.hadoop.io.MD5Hash;
import org.apache.hadoop.util.DataChecksum;

/**
 * A file's checksum as HDFS makes it, so that tools comparing checksums (distcp, {@code fs -checksum}) can compare
 * FFFS files with each other and with HDFS's: each block's part comes from a replica's DataNode, made from the
 * CRC32C per 512-byte chunk it keeps ({@code BLOCK_CHECKSUM}: no byte crosses the network), the next replica when
 * one fails. {@code MD5MD5CRC} (the default) is HDFS's MD5 of the blocks' MD5s of their chunk CRCs, equal to HDFS's
 * for the same bytes in the same block size; {@code COMPOSITE_CRC} is the CRC32C of the bytes, equal whatever the
 * block sizes ({@value #COMBINE_MODE_KEY}, HDFS's key).
 */
final class FileChecksums {
  static final String COMBINE_MODE_KEY = "dfs.checksum.combine.mode";

  private FileChecksums() {}

  /** The combine mode {@code conf} asks for; a value HDFS does not know is refused, naming those it does. */
  static ChecksumCombineMode mode(Configuration conf) throws FffsException {
    String value = conf.getTrimmed(COMBINE_MODE_KEY, ChecksumCombineMode.MD5MD5CRC.name());
    try {
      return ChecksumCombineMode.valueOf(value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, COMBINE_MODE_KEY + "=" + value + " is not a checksum "
          + "combine mode; use " + ChecksumCombineMode.MD5MD5CRC + " (the default) or "
          + ChecksumCombineMode.COMPOSITE_CRC);
    }
  }

  /**
   * The checksum of the first {@code length} bytes of the file {@code layout} describes (all, if it is shorter).
   * A block every listed replica failed, or whose token expired meanwhile, is asked of the replicas and with the
   * tokens {@code tokens} gives, as a read does ({@link FffsInputStream}).
   */
  static FileChecksum of(FileLayout layout, long length, ChecksumCombineMode mode, DataTransferClient data,
      FffsInputStream.TokenSource tokens, ReadRelocation relocation) throws IOException {
    if (length < 0) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a checksum of " + length + " bytes of " + layout.path
          + ": the length must not be negative");
    }
    long wanted = Math.min(length, layout.length);
    ByteArrayOutputStream blockMd5s = new ByteArrayOutputStream();
    long crcPerBlock = 0;
    int crc = 0;
    int blocks = 0;
    Set<String> failed = new HashSet<>();
    for (FileLayout.Block block : layout.blocks) {
      if (block.offset >= wanted) {
        break;
      }
      long bytes = Math.min(block.length, wanted - block.offset);
      BlockChecksumResponseProto part = null;
      for (int attempt = 0; part == null; attempt++) {
        try {
          part = ReplicaFailover.run(layout.path, block.blockId,
              ReplicaOrder.order(block.locations, failed, data::skewedAhead), failed, replica -> checked(layout,
                  block, bytes, data.blockChecksum(replica, block.blockId, block.token, bytes, layout.time)));
        } catch (IOException e) {
          boolean expired = e instanceof FffsException && ((FffsException) e).code() == ErrorCode.ACCESS_DENIED;
          if (!(expired && attempt == 0) && !relocation.again(e, attempt, layout.path + " block " + block.blockId)) {
            throw e;
          }
          LocatedBlocksProto fresh = ClientErrors.translating(tokens::locate);
          if (fresh == null) {
            throw e;
          }
          layout.refresh(fresh);
        }
      }
      part.getMd5OfCrcs().writeTo(blockMd5s);
      if (blocks == 0) {
        crc = part.getCrc();
        crcPerBlock = part.getCrcs();
      } else {
        crc = Crc32cComposition.compose(crc, part.getCrc(), bytes);
      }
      blocks++;
    }
    if (blocks == 0) {
      // HDFS's answer for a file without blocks in either mode, kept from its older versions: MD5 of 32 zero bytes.
      return new MD5MD5CRC32GzipFileChecksum(0, 0, MD5Hash.digest(new byte[32]));
    }
    if (mode == ChecksumCombineMode.COMPOSITE_CRC) {
      return new CompositeCrcFileChecksum(crc, DataChecksum.Type.CRC32C, ChunkChecksums.CHUNK_BYTES);
    }
    // HDFS gives the first block's CRC count only when there is more than one block.
    return new MD5MD5CRC32CastagnoliFileChecksum(ChunkChecksums.CHUNK_BYTES, blocks > 1 ? crcPerBlock : 0,
        MD5Hash.digest(hdfsPadded(blockMd5s.toByteArray())));
  }

  /** {@code part} if it is whole (a CRC per chunk, a 16-byte MD5), else {@code CORRUPT}: the next replica is asked. */
  private static BlockChecksumResponseProto checked(FileLayout layout, FileLayout.Block block, long bytes,
      BlockChecksumResponseProto part) throws FffsException {
    if (part.getCrcs() != ChunkChecksums.chunksOf(bytes) || part.getMd5OfCrcs().size() != 16) {
      throw new FffsException(ErrorCode.CORRUPT, "block " + block.blockId + " of " + layout.path + " gave "
          + part.getCrcs() + " chunk CRCs and an MD5 of " + part.getMd5OfCrcs().size() + " bytes for " + bytes
          + " bytes");
    }
    return part;
  }

  /**
   * The blocks' MD5s as HDFS digests them: its client gathers them in a buffer of 32 bytes that doubles when full,
   * and digests the whole buffer, zeros after the last MD5 included.
   */
  static byte[] hdfsPadded(byte[] md5s) {
    int capacity = 32;
    while (capacity < md5s.length) {
      capacity <<= 1;
    }
    return Arrays.copyOf(md5s, capacity);
  }
}
