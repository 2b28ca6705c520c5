package io.fffs.datanode.store.persist;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.datanode.store.StoreStats;
import io.fffs.datanode.store.log.BlockOp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading evicted pages back from many more segment files than the reader may keep open: idle files beyond the
 * bound are closed least recently used first and reopened when read again, so open files stay at the bound;
 * files a reader holds stay open whatever the bound, and every page reads back right.
 */
class SegmentPageReaderBoundTest {
  private static final int PAGE = 512;
  private static final int FILES = 40;
  private static final int MAX_OPEN = 4;

  @TempDir
  Path dir;

  @Test
  void idleFilesBeyondTheBoundAreClosedAndReopenedWhileHeldOnesStayOpen() throws Exception {
    long[] locations = new long[FILES];
    for (int f = 0; f < FILES; f++) {
      locations[f] = writeSegment(f + 1, page(f));
    }
    try (SegmentPageReader reader = new SegmentPageReader(dir, PAGE, new StoreStats(), MAX_OPEN,
        SegmentPageReader.WINDOW_BYTES)) {
      for (int round = 0; round < 2; round++) {  // the second round reopens files the first closed
        for (int f = 0; f < FILES; f++) {
          assertThat(read(reader, locations[f])).isEqualTo(page(f));
          assertThat(reader.openFiles()).isLessThanOrEqualTo(MAX_OPEN);
        }
      }
      List<SegmentPageReader.Handle> held = new ArrayList<>();
      for (int f = 0; f < 2 * MAX_OPEN; f++) {
        held.add(reader.acquire(locations[f]));
      }
      assertThat(reader.openFiles()).isEqualTo(2 * MAX_OPEN);
      for (int f = 0; f < held.size(); f++) {
        ByteBuffer dst = ByteBuffer.allocate(PAGE);
        reader.readPage(held.get(f), locations[f], 0, 1, dst, "page " + f);
        assertThat(dst.array()).isEqualTo(page(f));
        assertThat(held.get(f).channel().isOpen()).isTrue();
      }
      held.forEach(reader::release);
      assertThat(reader.openFiles()).isEqualTo(MAX_OPEN);
    }
  }

  private static byte[] read(SegmentPageReader reader, long location) throws Exception {
    SegmentPageReader.Handle file = reader.acquire(location);
    try {
      ByteBuffer dst = ByteBuffer.allocate(PAGE);
      reader.readPage(file, location, 0, 1, dst, "a page");
      return dst.array();
    } finally {
      reader.release(file);
    }
  }

  private static byte[] page(int f) {
    byte[] bytes = new byte[PAGE];
    Arrays.fill(bytes, (byte) (f * 7 + 1));
    return bytes;
  }

  /** A closed segment file {@code fileNumber} holding one one-page entry; returns the entry's location. */
  private long writeSegment(long fileNumber, byte[] page) throws IOException {
    ByteBuffer prefix = SegmentFormat.prefix(1);
    EntryMeta meta = new EntryMeta(7, 0, BlockOp.WRITE, 1L << 20, 0, 0, PAGE, PAGE, 0, 1);
    ByteBuffer body = SegmentFormat.body(prefix, meta, new int[] {SegmentFormat.crc(page, 0, PAGE)});
    try (FileChannel out = FileChannel.open(SegmentFormat.path(dir, fileNumber), StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE)) {
      out.write(new ByteBuffer[] {SegmentFormat.header(PAGE, fileNumber, 0), prefix.duplicate(), ByteBuffer.wrap(page),
          body, SegmentFormat.footer(1)});
    }
    return SegmentFormat.location(fileNumber, SegmentFormat.HEADER_BYTES);
  }
}
