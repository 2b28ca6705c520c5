package io.fffs.client.data.frame;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

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
   * Checks {@code data} (position to limit, not moved) against {@code expected}; returns the index of the first
   * chunk that does not match, {@code expected.size()} chunks if the counts differ, or -1 when all match.
   */
  public static int firstMismatch(ByteBuffer data, java.util.List<Integer> expected) {
    return firstMismatch(of(data), expected);
  }

  /**
   * Compares checksums computed here ({@link #finish}) with {@code expected}: the index of the first chunk that
   * differs, {@code expected.size()} (or {@code actual.length}) if the counts differ, or -1 when all match.
   */
  public static int firstMismatch(int[] actual, java.util.List<Integer> expected) {
    return firstMismatch(actual, expected.size(), expected::get);
  }

  /**
   * As {@link #firstMismatch(int[], java.util.List)}, with the expected checksums read through {@code expected}
   * (e.g. a protobuf message's {@code getChunkCrcs(int)}, which does not box each value as its list view does).
   */
  public static int firstMismatch(int[] actual, int expectedCount, java.util.function.IntUnaryOperator expected) {
    int n = Math.min(actual.length, expectedCount);
    for (int i = 0; i < n; i++) {
      if (actual[i] != expected.applyAsInt(i)) {
        return i;
      }
    }
    return actual.length == expectedCount ? -1 : n;
  }
}
