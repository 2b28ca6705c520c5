package io.fffs.datanode.store.persist;

import io.fffs.protocol.frame.ChunkChecksums;

/**
 * The CRC32C of a whole page, derived from the CRC32Cs of the {@value ChunkChecksums#CHUNK_BYTES}-byte chunks that
 * make it up (the checksums a WRITE carries and the DataNode verified on arrival), without reading the page.
 *
 * <p>For CRC32C (reflected polynomial {@code 0x82F63B78}, pre- and post-inverted), the CRC of {@code A || B} is
 * {@code shift(crc(A)) ^ crc(B)}, where {@code shift} multiplies by {@code x^(8·|B|)} modulo the polynomial. That
 * multiplication is linear over GF(2), so for the fixed {@code |B|} of one chunk it is four look-ups of a byte of
 * the CRC in tables built once: a 4 KiB page costs seven shifts (tens of nanoseconds) instead of a pass over its
 * bytes.
 */
final class PageChecksums {
  private static final int POLY = 0x82F63B78;
  private static final int CHUNK = ChunkChecksums.CHUNK_BYTES;
  /** {@code SHIFT[i][b]}: the chunk shift of a CRC whose only non-zero byte is byte {@code i}, equal to {@code b}. */
  private static final int[][] SHIFT = shiftTables(CHUNK);

  private PageChecksums() {}

  /**
   * The CRC32C of page {@code j} of a WRITE entry at {@code offset} of {@code length} bytes, from the write's chunk
   * CRCs (chunk 0 starts at {@code offset}), or {@code -1L} when they cannot give it: the page is only partly
   * written (its other bytes come from the previous version) or its start is not on a chunk boundary of the write.
   * The result is the unsigned CRC in the low 32 bits.
   */
  static long derive(int[] chunkCrcs, long offset, int length, int pageSize, int j) {
    long pageStart = (offset / pageSize + j) * pageSize;
    long delta = pageStart - offset;
    if (delta < 0 || pageStart + pageSize > offset + length || delta % CHUNK != 0) {
      return -1L;
    }
    int first = (int) (delta / CHUNK);
    int chunks = pageSize / CHUNK;
    if (first + chunks > chunkCrcs.length) {
      return -1L;
    }
    int crc = chunkCrcs[first];
    for (int i = 1; i < chunks; i++) {
      crc = shift(crc) ^ chunkCrcs[first + i];
    }
    return crc & 0xFFFFFFFFL;
  }

  /** The CRC32C of {@code A || B} from those of {@code A} and of a chunk-sized {@code B}. */
  static int concat(int crcA, int crcChunk) {
    return shift(crcA) ^ crcChunk;
  }

  private static int shift(int crc) {
    return SHIFT[0][crc & 0xFF] ^ SHIFT[1][(crc >>> 8) & 0xFF] ^ SHIFT[2][(crc >>> 16) & 0xFF]
        ^ SHIFT[3][crc >>> 24];
  }

  private static int[][] shiftTables(int bytes) {
    // x^0 is the top bit in the reflected representation; x^8 is eight places lower.
    int op = 0x80000000;
    for (int i = 0; i < bytes; i++) {
      op = multiply(op, 0x00800000);
    }
    int[][] tables = new int[4][256];
    for (int i = 0; i < 4; i++) {
      for (int b = 0; b < 256; b++) {
        tables[i][b] = multiply(op, b << (8 * i));
      }
    }
    return tables;
  }

  /** {@code a · b} modulo the CRC32C polynomial, both reflected. */
  private static int multiply(int a, int b) {
    int product = 0;
    for (int m = 0x80000000; m != 0; m >>>= 1) {
      if ((a & m) != 0) {
        product ^= b;
      }
      b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
    }
    return product;
  }
}
