package io.fffs.datanode.store.persist;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.protocol.frame.ChunkChecksums;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Page CRC32Cs derived from chunk CRC32Cs equal the CRC32C of the page's bytes, and only whole pages get one. */
class PageChecksumsTest {
  private static int crc(byte[] bytes, int from, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, from, length);
    return (int) crc.getValue();
  }

  @Test
  void concatenatingAChunkEqualsTheCrcOfTheConcatenation() {
    Random random = new Random(3);
    for (int round = 0; round < 200; round++) {
      byte[] bytes = new byte[random.nextInt(5000) + ChunkChecksums.CHUNK_BYTES];
      random.nextBytes(bytes);
      int head = bytes.length - ChunkChecksums.CHUNK_BYTES;
      assertThat(PageChecksums.concat(crc(bytes, 0, head), crc(bytes, head, ChunkChecksums.CHUNK_BYTES)))
          .as("round %d, %d bytes before the chunk", round, head).isEqualTo(crc(bytes, 0, bytes.length));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {512, 1024, 4096, 65536})
  void wholePagesOnAChunkBoundaryOfTheWriteAreDerivedAndMatch(int pageSize) {
    Random random = new Random(pageSize);
    int checked = 0;
    for (int round = 0; round < 60; round++) {
      long offset = random.nextInt(4) * (long) pageSize + random.nextInt(pageSize / 512) * 512L
          + (round % 5 == 0 ? random.nextInt(512) : 0);
      byte[] data = new byte[1 + random.nextInt(6 * pageSize)];
      random.nextBytes(data);
      int[] chunks = ChunkChecksums.of(ByteBuffer.wrap(data));
      int pages = (int) ((offset + data.length + pageSize - 1) / pageSize - offset / pageSize);
      for (int j = 0; j < pages; j++) {
        long pageStart = (offset / pageSize + j) * pageSize;
        boolean whole = pageStart >= offset && pageStart + pageSize <= offset + data.length;
        boolean onBoundary = (pageStart - offset) % 512 == 0;
        long derived = PageChecksums.derive(chunks, offset, data.length, pageSize, j);
        if (whole && onBoundary) {
          assertThat(derived).as("page %d of a write at %d", j, offset)
              .isEqualTo(crc(data, (int) (pageStart - offset), pageSize) & 0xFFFFFFFFL);
          checked++;
        } else {
          assertThat(derived).as("page %d of a write at %d (whole %s)", j, offset, whole).isEqualTo(-1L);
        }
      }
    }
    assertThat(checked).as("pages derived").isGreaterThan(20);
  }
}
