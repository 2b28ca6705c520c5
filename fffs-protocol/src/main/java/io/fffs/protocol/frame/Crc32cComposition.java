package io.fffs.protocol.frame;

/**
 * The CRC32C of two byte strings joined, from their CRC32Cs and the second one's length, without the bytes: the
 * first CRC multiplied by x^(8 * length) modulo the polynomial, plus the second (as {@link java.util.zip.CRC32C}
 * computes them: reflected, initial value and final XOR all ones, which cancel out here). A file checksum composed
 * this way is the CRC32C of the file's bytes, whatever its block and chunk sizes.
 */
public final class Crc32cComposition {
  /** The CRC32C polynomial, bit-reversed: bit 31 holds x^0. */
  private static final int POLYNOMIAL = 0x82F63B78;
  /** x^0 in the reflected order. */
  private static final int ONE = 1 << 31;
  /** x^8, one byte's shift. */
  private static final int X8 = 1 << 23;

  private Crc32cComposition() {}

  /** The CRC32C of A followed by B, given A's CRC32C, B's and B's length in bytes. */
  public static int compose(int crcA, int crcB, long lengthB) {
    return multiply(crcA, shift(lengthB)) ^ crcB;
  }

  /** The CRC32C of A followed by B, given {@code shift(lengthB)} (worth keeping for a length used often). */
  public static int composeShifted(int crcA, int crcB, int shiftOfB) {
    return multiply(crcA, shiftOfB) ^ crcB;
  }

  /** x^(8 * bytes) modulo the polynomial: the factor that moves a CRC past {@code bytes} more bytes. */
  public static int shift(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("a negative length: " + bytes);
    }
    int result = ONE;
    int square = X8;
    for (long n = bytes; n != 0; n >>>= 1) {
      if ((n & 1) != 0) {
        result = multiply(result, square);
      }
      square = multiply(square, square);
    }
    return result;
  }

  /** The product of two polynomials modulo the CRC32C polynomial, both in the reflected order. */
  static int multiply(int a, int b) {
    int product = 0;
    for (int bit = 31; bit >= 0; bit--) {
      if ((a & (1 << bit)) != 0) {
        product ^= b;
      }
      b = (b & 1) != 0 ? (b >>> 1) ^ POLYNOMIAL : b >>> 1;
    }
    return product;
  }
}
