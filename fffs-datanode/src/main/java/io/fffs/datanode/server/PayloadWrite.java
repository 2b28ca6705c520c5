package io.fffs.datanode.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.PageReservation;
import io.fffs.datanode.store.WriteOptions;
import io.fffs.datanode.store.WriteResult;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/**
 * Puts a received WRITE payload into the store with no copy of its own. The payload is a slice of the socket reads
 * it arrived in ({@link DataServer}): when it lies in one read it goes to {@code store.write} as it is; when it
 * spans reads (a packet larger than a read, or one that straddles two) its pieces are copied straight into the
 * pages of a {@link PageReservation}, the same single copy into the arena that {@code store.write} makes. Only a
 * store that cannot reserve pages gets the pieces merged into one buffer first.
 */
final class PayloadWrite {
  private PayloadWrite() {}

  /** Writes {@code payload} (not released here) at {@code offset} of the block. */
  static WriteResult apply(BlockStore store, long blockId, long offset, ByteBuf payload, WriteOptions options,
      DataServerStats stats) throws FffsException {
    // Not nioBufferCount(): a slice answers it for the whole buffer it slices, not for its own range.
    ByteBuffer[] pieces = payload.nioBuffers();
    if (pieces.length <= 1) {
      return store.write(blockId, offset, pieces.length == 1 ? pieces[0] : payload.nioBuffer(), options);
    }
    stats.writePayloadsGathered.increment();
    PageReservation reservation;
    try {
      reservation = store.reserve(blockId, offset, payload.readableBytes(), options);
    } catch (FffsException e) {
      if (e.code() != ErrorCode.UNSUPPORTED) {
        throw e;
      }
      stats.writePayloadsCopied.increment();
      return store.write(blockId, offset, merged(pieces, payload.readableBytes()), options);
    }
    try (reservation) {
      fill(reservation, pieces);
      return reservation.commit();
    }
  }

  /** Copies the pieces, in order, into the reservation's runs of arena memory. */
  private static void fill(PageReservation reservation, ByteBuffer[] pieces) {
    int piece = 0;
    ByteBuffer from = pieces[0].duplicate();
    for (PageReservation.Region region : reservation.regions()) {
      ByteBuffer to = region.buffer();
      while (to.hasRemaining()) {
        while (!from.hasRemaining()) {
          from = pieces[++piece].duplicate();
        }
        int n = Math.min(from.remaining(), to.remaining());
        to.put(to.position(), from, from.position(), n);
        to.position(to.position() + n);
        from.position(from.position() + n);
      }
    }
  }

  private static ByteBuffer merged(ByteBuffer[] pieces, int length) {
    ByteBuffer all = ByteBuffer.allocate(length);
    for (ByteBuffer piece : pieces) {
      all.put(piece.duplicate());
    }
    return all.flip();
  }
}
