package io.fffs.client.data;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.nio.file.ExtendedOpenOption;
import io.fffs.common.io.PageCache;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.LocalExtentProto;
import io.fffs.common.proto.DataTransferProtos.LocalReadResponseProto;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which stretches of which segment files a located piece's read-ahead brings in, on files written with O_DIRECT. */
class SegmentReadAheadTest {
  private static final int PAGE = 4096;
  /** Pages per entry record, each record {@link #RECORD} bytes long: 8-byte prefix, pages, 56 bytes, CRCs. */
  private static final int PAGES = 320;
  private static final int RECORD = (PAGES + 2) * PAGE;
  private static final int RECORDS = 4;
  private static final int FILE_BYTES = 12 * RECORD;

  @TempDir
  Path dir;
  private final ShortCircuitFiles files = new ShortCircuitFiles();

  @AfterEach
  void close() {
    files.close();
  }

  private static long pagesAt(int record) {
    return (long) record * RECORD + 8;
  }

  private static long crcsAt(int record) {
    return pagesAt(record) + (long) PAGES * PAGE + 56;
  }

  private Path coldSegment(String name) throws IOException {
    Path file = dir.resolve(name);
    ByteBuffer image = ShortCircuitPreload.alignedBuffer(FILE_BYTES);
    try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
        ExtendedOpenOption.DIRECT)) {
      assertThat(out.write(image.clear(), 0)).isEqualTo(FILE_BYTES);
    } catch (IOException | UnsupportedOperationException e) {
      Assumptions.abort("the temporary directory's file system refuses O_DIRECT: " + e);
    }
    Assumptions.assumeFalse(resident(file, 0, FILE_BYTES),
        "the temporary directory's file system keeps O_DIRECT writes in the page cache (tmpfs, say)");
    return file;
  }

  private static boolean resident(Path file, long position, long length) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      return PageCache.resident(channel, position, length);
    }
  }

  /** A segment extent: {@code length} bytes from byte {@code skip} of record {@code record}'s pages. */
  private static LocalExtentProto extent(Path file, int record, long crcsAt, int skip, int length) {
    int firstPage = skip / PAGE;
    int endPage = (skip + length + PAGE - 1) / PAGE;
    return LocalExtentProto.newBuilder().setPath(file.toString()).setPosition(pagesAt(record) + firstPage * PAGE)
        .setLength(length).setSkip(skip - firstPage * PAGE).setPages(endPage - firstPage)
        .setCrcsAt(crcsAt + 4L * firstPage).setPageSize(PAGE).build();
  }

  private static LocalReadResponseProto answer(LocalExtentProto... extents) {
    LocalReadResponseProto.Builder answer = LocalReadResponseProto.newBuilder()
        .setResolvedHlc(HlcProto.newBuilder().setPacked(1)).setArenaEpochFile("unused").setArenaInstance(1);
    long total = 0;
    for (LocalExtentProto extent : extents) {
      answer.addExtents(extent);
      total += extent.getLength();
    }
    return answer.setBlockLength(total).build();
  }

  @Test
  void recordsThatFollowEachOtherAreBroughtInByOneStretchWithTheirCrcs() throws IOException {
    Path file = coldSegment("seg-1");
    LocalExtentProto[] extents = new LocalExtentProto[RECORDS];
    for (int r = 0; r < RECORDS; r++) {
      extents[r] = extent(file, r, crcsAt(r), 0, PAGES * PAGE);
    }
    LocalReadResponseProto answer = answer(extents);
    long stretch = crcsAt(RECORDS - 1) + 4 * PAGES - pagesAt(0);

    assertThat(SegmentReadAhead.warm(answer, files, 0, Long.MAX_VALUE)).isEqualTo(stretch);
    assertThat(resident(file, pagesAt(0), stretch)).isTrue();
    assertThat(resident(file, pagesAt(RECORDS + 2), PAGES * PAGE)).as("a record beyond the piece").isFalse();
    assertThat(SegmentReadAhead.warm(answer, files, 0, Long.MAX_VALUE)).as("resident already").isZero();
  }

  @Test
  void onlyWhatTheCopyTakesIsBroughtIn() throws IOException {
    Path file = coldSegment("seg-2");
    LocalReadResponseProto answer = answer(extent(file, 0, crcsAt(0), 0, PAGES * PAGE),
        extent(file, 1, crcsAt(1), 0, PAGES * PAGE), extent(file, 2, crcsAt(2), 0, PAGES * PAGE));

    assertThat(SegmentReadAhead.warm(answer, files, PAGES * PAGE + 10, 2 * PAGE)).as("too little to be worth it")
        .isZero();
    // 310 pages from record 1's third: pages 2 to 312 and, 7 pages and 56 bytes on, their CRCs.
    long taken = SegmentReadAhead.warm(answer, files, PAGES * PAGE + 2 * PAGE + 10, 310 * PAGE);
    assertThat(taken).isEqualTo(crcsAt(1) + 4 * 313 - (pagesAt(1) + 2 * PAGE));
    assertThat(resident(file, pagesAt(1) + 2 * PAGE, 311 * PAGE)).isTrue();
    assertThat(resident(file, pagesAt(0), PAGES * PAGE)).as("record 0, skipped").isFalse();
    assertThat(resident(file, pagesAt(2), PAGES * PAGE)).as("record 2, not reached").isFalse();
  }

  @Test
  void crcsKeptFarAwayAndOtherFilesAreBroughtInApart() throws IOException {
    Path first = coldSegment("seg-3");
    Path second = coldSegment("seg-4");
    long farCrcs = 10L * RECORD;  // more than SegmentReadAhead.GAP past the pages
    LocalExtentProto arena = LocalExtentProto.newBuilder().setPath("/nonexistent/arena").setPosition(0)
        .setLength(PAGE).setFirstSeq(5).build();
    LocalReadResponseProto answer = answer(extent(first, 0, farCrcs, 0, PAGES * PAGE), arena,
        extent(second, 0, crcsAt(0), 0, PAGES * PAGE));

    // The CRCs far away are too few to be worth a read-ahead: the copy reads them.
    long expected = PAGES * PAGE + (crcsAt(0) + 4 * PAGES - pagesAt(0));
    assertThat(SegmentReadAhead.warm(answer, files, 0, Long.MAX_VALUE)).isEqualTo(expected);
    assertThat(resident(first, pagesAt(0), PAGES * PAGE)).isTrue();
    assertThat(resident(first, farCrcs, 4 * PAGES)).isFalse();
    assertThat(resident(second, pagesAt(0), PAGES * PAGE)).isTrue();
  }
}
