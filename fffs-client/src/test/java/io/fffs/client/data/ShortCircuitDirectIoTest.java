package io.fffs.client.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.nio.file.ExtendedOpenOption;
import io.fffs.common.io.PageCache;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.LocalExtentProto;
import io.fffs.common.proto.DataTransferProtos.LocalReadResponseProto;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segment pages read around the page cache: a file laid out as a DataNode's segment file (pages at an unaligned
 * record offset, their CRC32Cs after them) written with O_DIRECT, so the page cache holds none of it; the pages read
 * ahead or by the copy itself with O_DIRECT arrive whole and checked, the page cache still holds none of them, and a
 * damaged page fails its check. Needs a file system that takes O_DIRECT for the temporary directory (ext4, xfs).
 */
class ShortCircuitDirectIoTest {
  private static final int PAGE = 4096;
  private static final int PAGES = 6;
  /** Where the record's pages start: 8 bytes past a block boundary, as an entry record's do. */
  private static final long PAGES_AT = 3L * PAGE + 8;
  private static final long CRCS_AT = PAGES_AT + (long) PAGES * PAGE + 56;
  private static final int FILE_BYTES = 10 * PAGE;

  @TempDir
  Path dir;
  private byte[] pages;
  private byte[] crcs;
  private ShortCircuitFiles files;
  private ShortCircuitStats stats;

  @BeforeEach
  void lay() throws IOException {
    pages = new byte[PAGES * PAGE];
    new Random(7).nextBytes(pages);
    ByteBuffer sums = ByteBuffer.allocate(4 * PAGES).order(ByteOrder.LITTLE_ENDIAN);
    for (int p = 0; p < PAGES; p++) {
      CRC32C crc = new CRC32C();
      crc.update(pages, p * PAGE, PAGE);
      sums.putInt((int) crc.getValue());
    }
    crcs = sums.array();
    files = new ShortCircuitFiles();
    stats = new ShortCircuitStats();
    requireDirectIo();
  }

  /** Writes the segment file with O_DIRECT (bytes flipped at {@code damagedAt} of the pages, if not negative). */
  private Path segment(String name, int damagedAt) throws IOException {
    ByteBuffer image = ShortCircuitPreload.alignedBuffer(FILE_BYTES);
    image.put((int) PAGES_AT, pages).put((int) CRCS_AT, crcs);
    if (damagedAt >= 0) {
      image.put((int) PAGES_AT + damagedAt, (byte) ~pages[damagedAt]);
    }
    Path file = dir.resolve(name);
    try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
        ExtendedOpenOption.DIRECT)) {
      assertThat(out.write(image.clear(), 0)).isEqualTo(FILE_BYTES);
    }
    return file;
  }

  /** An answer with one segment extent: {@code length} bytes from {@code skip} into the record's pages. */
  private static LocalReadResponseProto answer(Path file, int skip, int length) {
    return answer(file, new int[] {skip, length});
  }

  /** An answer with a segment extent per pair of {@code skipsAndLengths}, each into the record's pages. */
  private static LocalReadResponseProto answer(Path file, int[]... skipsAndLengths) {
    LocalReadResponseProto.Builder answer = LocalReadResponseProto.newBuilder()
        .setResolvedHlc(HlcProto.newBuilder().setPacked(1)).setArenaEpochFile("unused").setArenaInstance(1);
    long total = 0;
    for (int[] range : skipsAndLengths) {
      int skip = range[0];
      int length = range[1];
      int firstPage = skip / PAGE;
      int endPage = (skip + length + PAGE - 1) / PAGE;
      answer.addExtents(LocalExtentProto.newBuilder().setPath(file.toString())
          .setPosition(PAGES_AT + (long) firstPage * PAGE).setLength(length).setSkip(skip - firstPage * PAGE)
          .setPages(endPage - firstPage).setCrcsAt(CRCS_AT + 4L * firstPage).setPageSize(PAGE));
      total += length;
    }
    return answer.setBlockLength(total).build();
  }

  /** These tests need a file system that takes O_DIRECT and keeps what it writes so out of the page cache. */
  private void requireDirectIo() throws IOException {
    Path probe;
    try {
      probe = segment("probe", -1);
    } catch (IOException | UnsupportedOperationException e) {
      Assumptions.abort("the temporary directory's file system refuses O_DIRECT: " + e);
      return;
    }
    Assumptions.assumeFalse(pagesCached(probe), "the temporary directory's file system keeps O_DIRECT writes in"
        + " the page cache (tmpfs, say)");
  }

  /** Whether the page cache holds blocks 4 to 8, which hold nothing but the record's pages. */
  private boolean pagesCached(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      return PageCache.resident(channel, 4L * PAGE, 5L * PAGE);
    }
  }

  @Test
  void pagesReadAheadAroundThePageCacheAreCopiedWholeAndLeaveItAsItWas() throws IOException {
    Path file = segment("seg-1", -1);
    int skip = 1000;
    int length = PAGES * PAGE - 3000;
    LocalReadResponseProto answer = answer(file, skip, length);
    List<ByteBuffer> released = new ArrayList<>();
    ShortCircuitPreload preload = ShortCircuitPreload.read(answer, files, stats,
        ShortCircuitPreload.alignedBuffer(1 << 20), released::add);
    assertThat(preload.pages(0)).as("the extent was read ahead").isNotNull();
    assertThat(stats.directBytes.sum()).isEqualTo((long) PAGES * PAGE);
    assertThat(stats.preloadedBytes.sum()).isEqualTo((long) PAGES * PAGE);

    ShortCircuitCopy copy = new ShortCircuitCopy(files, stats, 1 << 20, true);
    ByteBuffer dst = ByteBuffer.allocate(length);
    // In two calls, as a reader's smaller buffers would take it.
    assertThat(copy.copy(answer, preload, 0, dst.limit(5000))).isEqualTo(5000);
    assertThat(copy.copy(answer, preload, 5000, dst.limit(length))).isEqualTo(length - 5000);
    assertThat(dst.array()).isEqualTo(Arrays.copyOfRange(pages, skip, skip + length));
    assertThat(stats.directBytes.sum()).as("nothing read again").isEqualTo((long) PAGES * PAGE);
    assertThat(pagesCached(file)).as("the page cache holds none of the pages").isFalse();

    preload.release();
    preload.release();
    assertThat(released).as("the buffer goes back once").hasSize(1);
    files.close();
  }

  @Test
  void withoutAPreloadTheCopyReadsAroundThePageCacheItselfOnlyWithDirectIo() throws IOException {
    Path direct = segment("seg-direct", -1);
    ByteBuffer dst = ByteBuffer.allocate(PAGES * PAGE);
    new ShortCircuitCopy(files, stats, 2 * PAGE, true).copy(answer(direct, 0, PAGES * PAGE), null, 0, dst);
    assertThat(dst.array()).isEqualTo(pages);
    assertThat(stats.directBytes.sum()).isEqualTo((long) PAGES * PAGE);
    assertThat(pagesCached(direct)).isFalse();

    Path buffered = segment("seg-buffered", -1);
    new ShortCircuitCopy(files, stats, 2 * PAGE, false).copy(answer(buffered, 0, PAGES * PAGE), null, 0, dst.clear());
    assertThat(dst.array()).isEqualTo(pages);
    assertThat(stats.directBytes.sum()).as("unchanged").isEqualTo((long) PAGES * PAGE);
    assertThat(pagesCached(buffered)).as("read through the page cache, which keeps them").isTrue();

    // Pages the page cache holds are read from it, even with direct I/O.
    new ShortCircuitCopy(files, stats, 2 * PAGE, true).copy(answer(buffered, 0, PAGES * PAGE), null, 0, dst.clear());
    assertThat(dst.array()).isEqualTo(pages);
    assertThat(stats.directBytes.sum()).isEqualTo((long) PAGES * PAGE);
    files.close();
  }

  /** Two extents of one piece, each laid at its own aligned place in the buffer, copied in order. */
  @Test
  void eachExtentOfAPieceIsReadAheadToAPlaceOfItsOwn() throws IOException {
    Path file = segment("seg-2", -1);
    LocalReadResponseProto answer = answer(file, new int[] {3 * PAGE + 5, PAGE + 100}, new int[] {10, 2 * PAGE});
    ShortCircuitPreload preload = ShortCircuitPreload.read(answer, files, stats,
        ShortCircuitPreload.alignedBuffer(1 << 20), buffer -> { });
    assertThat(preload.pages(0)).isNotNull();
    assertThat(preload.pages(1)).isNotNull();
    assertThat(preload.pages(2)).as("no such extent").isNull();
    assertThat(stats.preloadedBytes.sum()).as("2 pages, then 3").isEqualTo(5L * PAGE);
    ByteBuffer dst = ByteBuffer.allocate(3 * PAGE + 100);
    assertThat(new ShortCircuitCopy(files, stats, 1 << 20, true).copy(answer, preload, 0, dst))
        .isEqualTo(dst.capacity());
    byte[] expected = new byte[dst.capacity()];
    System.arraycopy(pages, 3 * PAGE + 5, expected, 0, PAGE + 100);
    System.arraycopy(pages, 10, expected, PAGE + 100, 2 * PAGE);
    assertThat(dst.array()).isEqualTo(expected);
    files.close();
  }

  @Test
  void aDamagedPageReadAheadFailsItsCheckAndLeavesTheBufferAsItWas() throws IOException {
    Path file = segment("seg-damaged", 2 * PAGE + 17);
    LocalReadResponseProto answer = answer(file, 0, PAGES * PAGE);
    ShortCircuitPreload preload = ShortCircuitPreload.read(answer, files, stats,
        ShortCircuitPreload.alignedBuffer(1 << 20), buffer -> { });
    assertThat(preload.pages(0)).isNotNull();
    ByteBuffer dst = ByteBuffer.allocate(PAGES * PAGE);
    ShortCircuitCopy copy = new ShortCircuitCopy(files, stats, 1 << 20, true);
    assertThatThrownBy(() -> copy.copy(answer, preload, 0, dst)).isInstanceOf(ShortCircuitStale.class)
        .hasMessageContaining("page 2 ").hasMessageContaining("fails its CRC32C");
    assertThat(dst.position()).isZero();
    assertThat(stats.stale.sum()).isEqualTo(1);
    files.close();
  }

  @Test
  void aDirectReadTakesTheAlignedBlocksAroundTheRangeAndStopsAtTheFilesEnd() throws IOException {
    byte[] bytes = new byte[3 * PAGE + 123];  // an end that is not on a block
    new Random(3).nextBytes(bytes);
    Path file = Files.write(dir.resolve("short"), bytes);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, ExtendedOpenOption.DIRECT)) {
      ByteBuffer buffer = ShortCircuitPreload.alignedBuffer(4 * PAGE);
      int at = ShortCircuitPreload.readDirect(channel, buffer, PAGE + 10, 2 * PAGE + 100);
      assertThat(at).isEqualTo(10);
      assertThat(buffer.position()).as("whole blocks").isEqualTo(3 * PAGE);
      byte[] got = new byte[2 * PAGE + 100];
      buffer.get(at, got);
      assertThat(got).isEqualTo(Arrays.copyOfRange(bytes, PAGE + 10, 3 * PAGE + 110));
      assertThat(ShortCircuitPreload.readDirect(channel, buffer.clear(), 3 * PAGE, 123)).isZero();
      assertThat(buffer.get(122)).isEqualTo(bytes[3 * PAGE + 122]);
      assertThatThrownBy(() -> ShortCircuitPreload.readDirect(channel, buffer.clear(), 2 * PAGE, PAGE + 124))
          .isInstanceOf(EOFException.class);
    }
  }
}
