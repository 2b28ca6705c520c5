package io.fffs.datanode.store.persist;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The segment files of one persistence thread, written strictly append-only by that thread alone. Opens the next
 * file (numbers shared by all threads, so scan order is creation order) when the current one is full; a full file
 * gets a footer and an fsync before it is closed. Layout: {@link SegmentFormat}.
 */
final class SegmentWriter {
  private final Path dir;
  private final int pageSize;
  private final long fileSizeLimit;
  private final AtomicLong fileNumbers;
  private FileChannel channel;
  private volatile Path path;
  private long fileNumber = -1;
  private long position;
  private long entries;

  SegmentWriter(Path dir, int pageSize, long fileSizeLimit, AtomicLong fileNumbers) {
    this.dir = dir;
    this.pageSize = pageSize;
    this.fileSizeLimit = fileSizeLimit;
    this.fileNumbers = fileNumbers;
  }

  /** Makes sure a file is open that can take {@code bytes} more (or is empty), rolling to a new one if not. */
  void ensureRoom(long bytes) throws IOException {
    if (channel != null && position + bytes > fileSizeLimit && position > SegmentFormat.HEADER_BYTES) {
      closeCleanly();
    }
    if (channel == null) {
      fileNumber = fileNumbers.getAndIncrement();
      path = SegmentFormat.path(dir, fileNumber);
      channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      position = 0;
      entries = 0;
      write(new ByteBuffer[] {SegmentFormat.header(pageSize, fileNumber)});
    }
  }

  long position() {
    return position;
  }

  long fileNumber() {
    return fileNumber;
  }

  Path path() {
    return path;
  }

  void countEntries(int count) {
    entries += count;
  }

  /** Writes every remaining byte of {@code buffers}, in order, at the end of the file. */
  void write(ByteBuffer[] buffers) throws IOException {
    write(buffers, 0, buffers.length);
  }

  void write(ByteBuffer[] buffers, int from, int to) throws IOException {
    long want = 0;
    for (int i = from; i < to; i++) {
      want += buffers[i].remaining();
    }
    long done = 0;
    int first = from;
    while (done < want) {
      done += channel.write(buffers, first, to - first);
      while (first < to && !buffers[first].hasRemaining()) {
        first++;
      }
    }
    position += want;
  }

  void force() throws IOException {
    channel.force(false);
  }

  /** Footer, fsync, close. */
  void closeCleanly() throws IOException {
    if (channel != null) {
      write(new ByteBuffer[] {SegmentFormat.footer(entries)});
      channel.force(false);
      channel.close();
      channel = null;
    }
  }

  /** Closes without footer or fsync: what a crash leaves. */
  void abandon() {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        // Nothing more can be lost than what the failure already lost.
      }
      channel = null;
    }
  }
}
