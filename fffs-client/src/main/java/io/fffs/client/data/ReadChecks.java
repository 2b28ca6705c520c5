package io.fffs.client.data;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.ReadResponseProto;
import io.fffs.protocol.frame.ChunkChecksums;
import java.nio.ByteBuffer;

/**
 * The end-to-end check of what a READ brought back, whatever moved it: the DataNode computed a CRC32C per 512-byte
 * chunk of the bytes it read, and the client recomputes them over the bytes as they arrived. A mismatch is
 * {@code CORRUPT}, naming the block, the DataNode and the first bad chunk's offset.
 */
final class ReadChecks {
  private ReadChecks() {}

  /**
   * Bytes checksummed and then copied at a time: small enough that the copy reads them from the core's L1/L2 cache
   * where the checksum left them (a 1 MiB answer checksummed whole and then copied costs about half again as much).
   */
  private static final int PASS_BYTES = 64 << 10;

  /**
   * Copies {@code pieces} (the answer's bytes, in order) to {@code dst} while checksumming them, {@link #PASS_BYTES}
   * at a time, each checked while it is still in cache and then copied. On a mismatch {@code dst}'s position is left
   * where it was.
   */
  static void verifyInto(ByteBuffer[] pieces, int length, ReadResponseProto response, ByteBuffer dst, long blockId,
      long offset, String peer) throws FffsException {
    int start = dst.position();
    ChunkChecksums sums = new ChunkChecksums(length);
    for (ByteBuffer piece : pieces) {
      ByteBuffer pass = piece.duplicate();
      for (int at = piece.position(); at < piece.limit(); at += PASS_BYTES) {
        pass.limit(Math.min(piece.limit(), at + PASS_BYTES)).position(at);
        sums.update(pass);
        dst.put(dst.position(), piece, at, pass.limit() - at);
        dst.position(dst.position() + pass.limit() - at);
      }
      piece.position(piece.limit());
    }
    FffsException corrupt = mismatch(sums, length, response, blockId, offset, peer);
    if (corrupt != null) {
      dst.position(start);
      throw corrupt;
    }
  }

  /** Checks {@code pieces} against the answer's chunk CRCs without copying or moving them. */
  static void verify(ByteBuffer[] pieces, int length, ReadResponseProto response, long blockId, long offset,
      String peer) throws FffsException {
    ChunkChecksums sums = new ChunkChecksums(length);
    for (ByteBuffer piece : pieces) {
      sums.update(piece.duplicate());
    }
    FffsException corrupt = mismatch(sums, length, response, blockId, offset, peer);
    if (corrupt != null) {
      throw corrupt;
    }
  }

  /** {@code CORRUPT} naming the block and the first bad chunk's offset, or null when every checksum matches. */
  private static FffsException mismatch(ChunkChecksums sums, int length, ReadResponseProto response, long blockId,
      long offset, String peer) {
    int bad = ChunkChecksums.firstMismatch(sums.finish(), response.getChunkCrcs());
    if (bad < 0) {
      return null;
    }
    long at = offset + (long) bad * ChunkChecksums.CHUNK_BYTES;
    return new FffsException(ErrorCode.CORRUPT, "block " + blockId + " read from " + peer
        + " failed its CRC32C check in the 512-byte chunk at offset " + at + " ("
        + ChunkChecksums.count(response.getChunkCrcs()) + " checksums for " + length + " bytes)");
  }
}
