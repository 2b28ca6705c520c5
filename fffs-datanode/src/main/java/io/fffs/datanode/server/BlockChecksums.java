package io.fffs.datanode.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.BlockChecksumRequestProto;
import io.fffs.common.proto.DataTransferProtos.BlockChecksumResponseProto;
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
  /** Tries at the latest state before a block that keeps changing is refused. */
  private static final int ATTEMPTS = 3;
  private static final int CHUNK_SHIFT = Crc32cComposition.shift(ChunkChecksums.CHUNK_BYTES);

  private final BlockStore store;
  private final ReadGate gate;

  BlockChecksums(BlockStore store, ReadGate gate) {
    this.store = store;
    this.gate = gate;
  }

  /**
   * The digests of the block's first {@code length} bytes as of the time asked: {@code NOT_FOUND} when this
   * DataNode did not hold the block then, {@code REPLICA_STALE} when it held fewer bytes (a replica behind) or,
   * at the latest time, when the block kept changing while its chunks were read (each try starts again).
   */
  BlockChecksumResponseProto compute(BlockChecksumRequestProto request) throws FffsException {
    long blockId = request.getBlockId();
    TimeSpec time = TimeSpec.fromWire(request.getTime());
    for (int attempt = 1; ; attempt++) {
      BlockChecksumResponseProto answer = tryCompute(blockId, request.getLength(), time);
      if (answer != null) {
        return answer;
      }
      if (attempt == ATTEMPTS) {
        throw new FffsException(ErrorCode.REPLICA_STALE, "block " + blockId + " changed while its checksum was"
            + " made, " + ATTEMPTS + " times: ask again once writes to it pause");
      }
    }
  }

  /** The answer, or null when the block changed between two pieces (only the latest state can). */
  private BlockChecksumResponseProto tryCompute(long blockId, long length, TimeSpec time) throws FffsException {
    BlockInfo info = store.info(blockId, time);
    if (!info.exists()) {
      throw new FffsException(ErrorCode.NOT_FOUND, "this DataNode held no state of block " + blockId + " as of "
          + time);
    }
    if (length > info.length()) {
      throw stale(blockId, info.length(), length, time);
    }
    MessageDigest md5 = md5();
    byte[] crcBytes = new byte[4];
    long crcs = 0;
    int crc = 0;
    for (long offset = 0; offset < length; ) {
      int asked = (int) Math.min(PIECE, length - offset);
      int[] chunkCrcs;
      gate.enterRead();
      try (ReadView view = store.readForSending(blockId, offset, asked, time)) {
        if (view.logIndex() != info.logIndex()) {
          return null;
        }
        if (view.length() != asked) {
          throw stale(blockId, offset + view.length(), length, time);
        }
        chunkCrcs = view.chunkCrcs();
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
        .setCrc(crc).setResolvedHlc(info.hlc().toProto()).build();
  }

  private static FffsException stale(long blockId, long held, long asked, TimeSpec time) {
    return new FffsException(ErrorCode.REPLICA_STALE, "this replica of block " + blockId + " held " + held
        + " bytes as of " + time + ", fewer than the " + asked + " whose checksum was asked for");
  }

  private static MessageDigest md5() throws FffsException {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new FffsException(ErrorCode.INTERNAL, "this JVM has no MD5, which block checksums need", e);
    }
  }
}
