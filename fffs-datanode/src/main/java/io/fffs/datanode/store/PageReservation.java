package io.fffs.datanode.store;

import io.fffs.common.error.FffsException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;

/**
 * The arena pages a write will occupy, reserved before its bytes exist, so that a transport can put the bytes
 * straight into them (the UCX transport GETs them from the client: no staging copy). Made by
 * {@link BlockStore#reserve}; then the caller
 * <ol>
 *   <li>fills {@link #regions()} — the write's bytes, in order, in one or more runs of contiguous arena memory;</li>
 *   <li>checks them (CRC32C) through {@link #bytes()};</li>
 *   <li>{@link #commit()}s: the entry is stamped and published exactly as {@link BlockStore#write} would have, or
 *       {@link #close()}s without committing (a failed CRC, a failed stream, a lost peer): the pages go back to the
 *       arena and nothing is visible — no entry, no length change, no page any reader could reach.</li>
 * </ol>
 * Partly written first and last pages already hold the previous version's bytes (or zeros past the block's end)
 * around the write's range when the reservation is handed out; the caller writes only the write's range.
 *
 * <p>The block's writer lock is held from {@code reserve} to {@code commit}/{@code close} (other writers of the
 * block wait; the block's state cannot change underneath), so both must be called on the thread that reserved, and
 * promptly. {@code close()} after {@code commit()} does nothing; {@code close()} is idempotent.
 *
 * <p>A transport that has several writes of one stream in hand can fill them at once: {@link #reserveNext} reserves
 * the write that directly follows an uncommitted one. Such a <em>chain</em> of reservations holds the writer lock
 * together until the last of them is committed or closed; they commit in order, and a reservation whose
 * predecessor was closed uncommitted cannot commit (the transport's stream has failed anyway).
 */
public interface PageReservation extends AutoCloseable {
  /**
   * One run of contiguous arena memory: {@code length} bytes of the write, starting {@code writeOffset} bytes into
   * it, go to {@code [position, position + length)} of {@code map} — the whole-file mapping of {@code channel}, an
   * arena file (register the mapping, not a slice, with an RDMA library; never close the channel).
   */
  record Region(FileChannel channel, MappedByteBuffer map, int position, int length, int writeOffset) {
    /** A writable view of exactly this run. */
    public ByteBuffer buffer() {
      return map.slice(position, length);
    }
  }

  long blockId();

  /** Block offset of the write. */
  long offset();

  /** Bytes of the write. */
  int length();

  /**
   * Where the write's bytes go, in write order; the lengths add up to {@link #length()}. Runs break only where the
   * arena's pages stop being adjacent — at the end of an arena file (and so at the ring's wrap) — so a write of any
   * size has one run, or two if it straddles a file boundary.
   */
  List<Region> regions();

  /** The write's bytes as they are now: a read-only view of the arena if one run, else a copy. */
  ByteBuffer bytes();

  /**
   * Reserves the pages of the next write of a stream — {@code length} bytes at {@link #offset()} + {@link #length()},
   * same options — before this one is committed, so that both can be filled at once. The new reservation is checked
   * as if this one had committed, belongs to this one's chain and commits only after it ({@code commit} of the new
   * one fails with {@code INVALID_ARGUMENT}, releasing its pages, if this one was closed uncommitted). Call it before
   * committing this one.
   *
   * @throws FffsException {@code UNSUPPORTED} if this write ends inside a page (the next write's first page would
   *     need bytes that are not there yet: commit this one, then reserve); {@code BLOCK_SIZE_EXCEEDED};
   *     {@code INVALID_ARGUMENT} if this one is already committed or closed, or {@code length < 1};
   *     {@code IO_ERROR} if the arena stays full. Nothing is reserved when it throws.
   */
  default PageReservation reserveNext(int length) throws FffsException {
    return reserveNext(length, null);
  }

  /**
   * {@link #reserveNext(int)} for a write whose bytes come with their CRC32C per 512-byte chunk
   * ({@link WriteOptions#chunkCrcs}; null for none): the next write has this one's options but its own checksums.
   *
   * @throws FffsException as {@link #reserveNext(int)}; {@code INVALID_ARGUMENT} if there are not as many checksums
   *     as chunks
   */
  PageReservation reserveNext(int length, int[] chunkCrcs) throws FffsException;

  /**
   * Publishes the write: the same entry, HLC, stats and persistence as {@link BlockStore#write}. On any error the
   * pages are released and nothing changed.
   *
   * @throws FffsException {@code USER_TIME_REGRESSION} if a record of the bytes goes back in user time;
   *     {@code INVALID_ARGUMENT} if already committed or closed
   */
  WriteResult commit() throws FffsException;

  /** Releases the pages and the block unless committed. */
  @Override
  void close();
}
