package io.fffs.datanode.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.BlockChecksumRequestProto;
import io.fffs.common.proto.DataTransferProtos.BlockChecksumResponseProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.BlockInfo;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.ReadView;
import io.fffs.protocol.frame.ChunkChecksums;
import io.fffs.protocol.frame.Crc32cComposition;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.apache.hadoop.thirdparty.protobuf.ByteString;

/**
 * BLOCK_CHECKSUM: a block's first bytes as of a time reduced to the digests a file checksum is made of, from the
 * CRC32C per 512-byte chunk the store keeps (arena pages: their write's; evicted pages: those their segment file
 * holds, checked when loaded), a piece at a time so that the bytes are never held at once nor sent. The MD5 of the
 * chunk CRCs is HDFS's block MD5 (its default file checksum, MD5-of-MD5-of-CRC32C); their composition is the CRC32C
 * of the bytes (HDFS's COMPOSITE_CRC mode).
 */
final class BlockChecksums {
  /** Bytes per view: a multiple of the chunk size, so the views' chunks are the block's. */
  private static final int PIECE = 8 << 20;
  private static final int CHUNK_SHIFT = Crc32cComposition.shift(ChunkChecksums.CHUNK_BYTES);

  private final BlockStore store;
  private final ReadGate gate;

  BlockChecksums(BlockStore store, ReadGate gate) {
    this.store = store;
    this.gate = gate;
  }

  BlockChecksumResponseProto compute(BlockChecksumRequestProto request) throws FffsException {
    long blockId = request.getBlockId();
    TimeSpec time = TimeSpec.fromProto(request.getTime());
    long length = request.getLength();
    BlockInfo info = store.info(blockId, time);
    if (!info.exists() && length > 0 || length > info.length()) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "block " + blockId + " held " + info.length()
          + " bytes as of " + time + ", fewer than the " + length + " whose checksum was asked for (this replica "
          + "may be behind: ask another)");
    }
    MessageDigest md5 = md5();
    byte[] crcBytes = new byte[4];
    long crcs = 0;
    int crc = 0;
    HlcTimestamp resolved = info.hlc();
    for (long offset = 0; offset < length; ) {
      int asked = (int) Math.min(PIECE, length - offset);
      int[] chunkCrcs;
      gate.enterRead();
      try (ReadView view = store.readForSending(blockId, offset, asked, time)) {
        if (view.length() != asked) {
          throw new FffsException(ErrorCode.INVALID_ARGUMENT, "block " + blockId + " ended at " + (offset
              + view.length()) + " bytes as of " + time + " while its checksum of " + length + " bytes was made");
        }
        chunkCrcs = view.chunkCrcs();
        resolved = view.hlc();
      } finally {
        gate.exitRead();
      }
      for (int k = 0; k < chunkCrcs.length; k++) {
        int value = chunkCrcs[k];
        crcBytes[0] = (byte) (value >>> 24);
        crcBytes[1] = (byte) (value >>> 16);
        crcBytes[2] = (byte) (value >>> 8);
        crcBytes[3] = (byte) value;
        md5.update(crcBytes);
        long chunkStart = offset + (long) k * ChunkChecksums.CHUNK_BYTES;
        long chunkLength = Math.min(ChunkChecksums.CHUNK_BYTES, length - chunkStart);
        crc = crcs == 0 ? value : chunkLength == ChunkChecksums.CHUNK_BYTES
            ? Crc32cComposition.composeShifted(crc, value, CHUNK_SHIFT)
            : Crc32cComposition.compose(crc, value, chunkLength);
        crcs++;
      }
      offset += asked;
    }
    return BlockChecksumResponseProto.newBuilder().setMd5OfCrcs(ByteString.copyFrom(md5.digest())).setCrcs(crcs)
        .setCrc(crc).setResolvedHlc(resolved.toProto()).build();
  }

  private static MessageDigest md5() throws FffsException {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new FffsException(ErrorCode.INTERNAL, "this JVM has no MD5, which block checksums need", e);
    }
  }
}
