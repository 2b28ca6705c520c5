package io.fffs.protocol.frame;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.util.zip.CRC32C;
import org.apache.hadoop.thirdparty.protobuf.ByteString;
import org.apache.hadoop.thirdparty.protobuf.UnsafeByteOperations;

/**
 * CRC32C per {@value #CHUNK_BYTES}-byte chunk of a payload (the last chunk may be shorter), as carried by WRITE
 * requests and READ responses. {@link #update} takes a payload in pieces of any size, so a sender can checksum
 * bytes that live in several buffers or file runs.
 */
public final class ChunkChecksums {
  /** Bytes per checksummed chunk. */
  public static final int CHUNK_BYTES = 512;

  private final CRC32C crc = new CRC32C();
  private int[] crcs;
  private int count;
  private int inChunk;

  /** A calculator for a payload of {@code totalBytes}. */
  public ChunkChecksums(long totalBytes) {
    this.crcs = new int[chunksOf(totalBytes)];
  }

  /** Number of chunks of a payload of {@code bytes}. */
  public static int chunksOf(long bytes) {
    return (int) ((bytes + CHUNK_BYTES - 1) / CHUNK_BYTES);
  }

  /** The checksums of {@code data} from position to limit (the buffer is not moved). */
  public static int[] of(ByteBuffer data) {
    return of(new ByteBuffer[] {data});
  }

  /** The checksums of a payload held in {@code pieces}, in order (each from position to limit; none is moved). */
  public static int[] of(ByteBuffer[] pieces) {
    long total = 0;
    for (ByteBuffer piece : pieces) {
      total += piece.remaining();
    }
    ChunkChecksums sums = new ChunkChecksums(total);
    for (ByteBuffer piece : pieces) {
      sums.update(piece.duplicate());
    }
    return sums.finish();
  }

  /** Adds the next bytes of the payload (position to limit; the position advances to the limit). */
  public void update(ByteBuffer bytes) {
    while (bytes.hasRemaining()) {
      int take = Math.min(CHUNK_BYTES - inChunk, bytes.remaining());
      int limit = bytes.limit();
      bytes.limit(bytes.position() + take);
      crc.update(bytes);
      bytes.limit(limit);
      inChunk += take;
      if (inChunk == CHUNK_BYTES) {
        endChunk();
      }
    }
  }

  /** Whether everything passed so far ends on a chunk boundary, so that {@link #add} may follow. */
  public boolean atChunkBoundary() {
    return inChunk == 0;
  }

  /**
   * Adds the checksum of the payload's next whole chunk, computed elsewhere (a sender that checked those bytes
   * already); only {@link #atChunkBoundary() at a chunk boundary}.
   */
  public void add(int chunkCrc) {
    if (inChunk != 0) {
      throw new IllegalStateException("a chunk's checksum added " + inChunk + " bytes into a chunk");
    }
    crc.reset();
    if (count == crcs.length) {
      crcs = java.util.Arrays.copyOf(crcs, Math.max(4, crcs.length * 2));
    }
    crcs[count++] = chunkCrc;
  }

  private void endChunk() {
    if (count == crcs.length) {
      crcs = java.util.Arrays.copyOf(crcs, Math.max(4, crcs.length * 2));
    }
    crcs[count++] = (int) crc.getValue();
    crc.reset();
    inChunk = 0;
  }

  /** The checksums, one per chunk of everything passed to {@link #update}. */
  public int[] finish() {
    if (inChunk > 0) {
      endChunk();
    }
    return count == crcs.length ? crcs : java.util.Arrays.copyOf(crcs, count);
  }

  /**
   * The checksums as they travel in the {@code chunkCrcs} field of WRITE requests and READ answers: 4 bytes each,
   * little-endian, which is what a packed {@code repeated fixed32} puts on the wire. One array, not a value at a
   * time.
   */
  public static ByteString toWire(int[] crcs) {
    byte[] bytes = new byte[4 * crcs.length];
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().put(crcs);
    return UnsafeByteOperations.unsafeWrap(bytes);
  }

  /** The number of checksums {@code wire} carries; a trailing partial one counts, so it never matches a payload. */
  public static int count(ByteString wire) {
    return (wire.size() + 3) / 4;
  }

  /** The whole checksums {@code wire} carries (a trailing partial one is left out: check {@link #count} first). */
  public static int[] fromWire(ByteString wire) {
    int[] crcs = new int[wire.size() / 4];
    values(wire).get(crcs);
    return crcs;
  }

  private static IntBuffer values(ByteString wire) {
    return wire.asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN).asIntBuffer();
  }

  /** {@link #firstMismatch(int[], ByteString)} of the checksums of {@code data} (position to limit, not moved). */
  public static int firstMismatch(ByteBuffer data, ByteString expected) {
    return firstMismatch(of(data), expected);
  }

  /**
   * Compares checksums computed here ({@link #finish}) with those a peer sent ({@link #toWire} form): -1 when all
   * match, {@link #count count(expected)} when the numbers differ, else the index of the first chunk that differs.
   */
  public static int firstMismatch(int[] actual, ByteString expected) {
    int count = count(expected);
    if (count != actual.length || expected.size() % 4 != 0) {
      return count;
    }
    IntBuffer sent = values(expected);
    for (int i = 0; i < actual.length; i++) {
      if (actual[i] != sent.get(i)) {
        return i;
      }
    }
    return -1;
  }
}
