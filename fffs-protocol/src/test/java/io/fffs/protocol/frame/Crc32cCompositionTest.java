package io.fffs.protocol.frame;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** Composed CRC32Cs equal the CRC32C of the joined bytes, for any split, chunk size and count of pieces. */
class Crc32cCompositionTest {
  private static int crc(byte[] bytes, int from, int to) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, from, to - from);
    return (int) crc.getValue();
  }

  @Test
  void twoPiecesComposeToTheCrcOfBoth() {
    Random random = new Random(42);
    for (int round = 0; round < 200; round++) {
      byte[] bytes = new byte[1 + random.nextInt(5000)];
      random.nextBytes(bytes);
      int split = random.nextInt(bytes.length + 1);
      int composed = Crc32cComposition.compose(crc(bytes, 0, split), crc(bytes, split, bytes.length),
          bytes.length - split);
      assertThat(composed).as("split at %d of %d", split, bytes.length).isEqualTo(crc(bytes, 0, bytes.length));
    }
  }

  @Test
  void chunkCrcsComposeToTheWholeCrcWithAShortLastChunk() {
    Random random = new Random(7);
    byte[] bytes = new byte[3 * 512 * 7 + 123];
    random.nextBytes(bytes);
    int shift = Crc32cComposition.shift(512);
    int composed = crc(bytes, 0, 512);
    int at = 512;
    for (; at + 512 <= bytes.length; at += 512) {
      composed = Crc32cComposition.composeShifted(composed, crc(bytes, at, at + 512), shift);
    }
    composed = Crc32cComposition.compose(composed, crc(bytes, at, bytes.length), bytes.length - at);
    assertThat(composed).isEqualTo(crc(bytes, 0, bytes.length));
  }

  @Test
  void anEmptySecondPieceChangesNothingAndALongOneShiftsFar() {
    byte[] bytes = "freeze frame".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    int a = crc(bytes, 0, bytes.length);
    assertThat(Crc32cComposition.compose(a, crc(bytes, 0, 0), 0)).isEqualTo(a);
    // 1 GiB of zeros after A: composed from a shift of 2^30 bytes, checked against a zero-filled CRC32C pass.
    CRC32C zeros = new CRC32C();
    byte[] mib = new byte[1 << 20];
    CRC32C both = new CRC32C();
    both.update(bytes);
    for (int i = 0; i < 1024; i++) {
      zeros.update(mib);
      both.update(mib);
    }
    assertThat(Crc32cComposition.compose(a, (int) zeros.getValue(), 1L << 30)).isEqualTo((int) both.getValue());
    assertThatThrownBy(() -> Crc32cComposition.shift(-1)).isInstanceOf(IllegalArgumentException.class);
  }
}
