package io.fffs.datanode.store.persist;

import com.sun.nio.file.ExtendedOpenOption;
import io.fffs.common.fault.SyncJournal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The segment files of one persistence thread, written strictly append-only by that thread alone. Opens the next
 * file (numbers shared by all threads, so scan order is creation order) when the current one is full; a full file
 * gets a footer and an fsync before it is closed. Layout: {@link SegmentFormat}.
 *
 * <p>Two ways to write. Through the page cache ({@code alignment == 0}): {@link #write} hands the caller's buffers
 * (slices of the arena) to one gathering write. With O_DIRECT ({@code alignment > 0}): the caller {@link #stage}s
 * its bytes into one aligned staging buffer and, where the bytes so far end on the alignment, may add whole aligned
 * blocks of memory (arena pages) with {@link #appendInPlace}, which are written from where they are, without a
 * copy. Everything goes to the file in one gathering write whenever the staging buffer is full and at
 * {@link #endBatch}, where a padding record first fills the batch up to the alignment; every write therefore starts
 * and ends on the alignment, and no byte is written twice except by {@link #flushStaged} (fault-injection tests
 * only).
 */
final class SegmentWriter {
  /** Staging buffer bounds: big enough for one default batch in one write, small enough per thread. */
  private static final int MIN_STAGING = 1 << 20;
  private static final int MAX_STAGING = 16 << 20;
  /** Zeros that padding records are filled from, shared so that no padding record allocates and zeroes its own. */
  private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 << 10).asReadOnlyBuffer();

  private final Path dir;
  private final int pageSize;
  private final long fileSizeLimit;
  private final AtomicLong fileNumbers;
  private final int alignment;
  private final ByteBuffer staging;
  /** O_DIRECT: what goes to the file next, in order — sealed parts of the staging buffer and in-place blocks. */
  private final List<ByteBuffer> pending = new ArrayList<>();
  private long pendingBytes;
  /** O_DIRECT: staging bytes before this index are in {@link #pending} (always a multiple of the alignment). */
  private int sealedUpTo;
  private FileChannel channel;
  private volatile Path path;
  private long fileNumber = -1;
  /** Buffered: the file's size. O_DIRECT: where the first pending or staged byte goes (a multiple of the alignment). */
  private long position;
  private long entries;

  /**
   * @param alignment 0 to write through the page cache, else the O_DIRECT alignment ({@link DirectIo#choose})
   * @param batchBytes the persistence batch size; sizes the staging buffer
   */
  SegmentWriter(Path dir, int pageSize, long fileSizeLimit, AtomicLong fileNumbers, int alignment, long batchBytes) {
    this.dir = dir;
    this.pageSize = pageSize;
    this.fileSizeLimit = fileSizeLimit;
    this.fileNumbers = fileNumbers;
    this.alignment = alignment;
    if (alignment > 0) {
      long wanted = Math.min(MAX_STAGING, Math.max(MIN_STAGING, batchBytes + 2L * alignment));
      this.staging = DirectIo.alignedBuffer((int) (wanted / alignment * alignment), alignment);
    } else {
      this.staging = null;
    }
  }

  /** The O_DIRECT alignment; 0 through the page cache. */
  int alignment() {
    return alignment;
  }

  /** Whether this writer uses O_DIRECT (then bytes go through {@link #stage}, else through {@link #write}). */
  boolean direct() {
    return alignment > 0;
  }

  /**
   * Makes sure a file is open that can take {@code bytes} more (or is empty), rolling to a new one if not. With
   * O_DIRECT the batch must then be {@link #stage}d and ended with {@link #endBatch}. Returns whether a full file
   * was closed (and so fsync'd) to make room.
   */
  boolean ensureRoom(long bytes) throws IOException {
    // O_DIRECT: the batch's padding, a commit mark's block after an fsync, the footer's block.
    long padded = bytes + 3L * alignment;
    boolean rolled = false;
    if (channel != null && position() + padded > fileSizeLimit && position() > SegmentFormat.HEADER_BYTES
        + alignment) {
      closeCleanly();
      rolled = true;
    }
    if (channel == null) {
      fileNumber = fileNumbers.getAndIncrement();
      path = SegmentFormat.path(dir, fileNumber);
      OpenOption[] options = direct()
          ? new OpenOption[] {StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT}
          : new OpenOption[] {StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE};
      channel = FileChannel.open(path, options);
      position = 0;
      entries = 0;
      ByteBuffer header = SegmentFormat.header(pageSize, fileNumber, alignment);
      if (direct()) {
        stage(header);
        endBatch();
      } else {
        write(new ByteBuffer[] {header});
      }
      syncDirectory();
    }
    return rolled;
  }

  /**
   * Makes the new file's directory entry durable: an fsync of the file covers its contents, not its name, and
   * without this a power loss could drop a whole file of entries that were reported durable.
   */
  private void syncDirectory() throws IOException {
    try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
      directory.force(true);
    }
  }

  /** Where the next byte goes in the file. */
  long position() {
    return direct() ? position + pendingBytes + staging.position() - sealedUpTo : position;
  }

  /** O_DIRECT only: bytes of the padding record that makes the next {@code tail} bytes end on the alignment. */
  int paddingBefore(int tail) {
    return SegmentFormat.paddingBytes(position(), tail, alignment);
  }

  /**
   * O_DIRECT only: whether {@link #appendInPlace} can take arena pages of {@code pageSize} bytes (they must be whole
   * multiples of the alignment).
   */
  boolean inPlace(int pageSize) {
    return direct() && pageSize % alignment == 0;
  }

  /**
   * O_DIRECT only: adds {@code blocks} — direct memory whose address and length are multiples of the alignment —
   * to be written after everything staged so far, from where it is. The bytes so far must end on the alignment
   * ({@link SegmentFormat#paddingBytes} gets them there). The memory must not change until {@link #endBatch} (or
   * {@link #abandon}) returns.
   */
  void appendInPlace(ByteBuffer blocks) throws IOException {
    if (position() % alignment != 0 || blocks.remaining() % alignment != 0) {
      throw new IllegalStateException("in-place bytes must start at and cover whole blocks of " + alignment
          + ": at " + position() + ", " + blocks.remaining() + " bytes");
    }
    seal();
    pending.add(blocks.duplicate());
    pendingBytes += blocks.remaining();
  }

  /** Moves the staged bytes not yet pending to the end of {@link #pending} (as a slice; nothing is copied). */
  private void seal() {
    int end = staging.position();
    if (end > sealedUpTo) {
      pending.add(staging.duplicate().position(sealedUpTo).limit(end).slice());
      pendingBytes += end - sealedUpTo;
      sealedUpTo = end;
    }
  }

  /** Writes everything pending and staged (which ends on the alignment) in one gathering write and starts over. */
  private void writePending() throws IOException {
    seal();
    channel.position(position);
    write(pending.toArray(new ByteBuffer[0]));
    pending.clear();
    pendingBytes = 0;
    sealedUpTo = 0;
    staging.clear();
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

  /**
   * Writes every remaining byte of {@code buffers}, in order, at the channel's position (through the page cache: the
   * end of the file) and advances {@link #position} by as much.
   */
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

  /** O_DIRECT only: copies the remaining bytes of {@code src} after those staged, writing out full stagings. */
  void stage(ByteBuffer src) throws IOException {
    while (src.hasRemaining()) {
      if (!staging.hasRemaining()) {
        writePending();
      }
      int n = Math.min(src.remaining(), staging.remaining());
      staging.put(staging.position(), src, src.position(), n);
      staging.position(staging.position() + n);
      src.position(src.position() + n);
    }
  }

  /** O_DIRECT only: stages a padding record of {@code bytes} bytes (at least {@link SegmentFormat#PAD_MIN_BYTES}). */
  void stagePadding(int bytes) throws IOException {
    stage(SegmentFormat.paddingHeader(bytes));
    for (int zeros = bytes - SegmentFormat.PAD_MIN_BYTES; zeros > 0; ) {
      int n = Math.min(zeros, ZEROS.capacity());
      stage(ZEROS.duplicate().limit(n));
      zeros -= n;
    }
  }

  /** O_DIRECT only: pads the staged bytes to the alignment with a padding record and writes them. */
  void endBatch() throws IOException {
    int pad = SegmentFormat.paddingBytes(position(), 0, alignment);
    if (pad > 0) {
      stagePadding(pad);
    }
    writePending();
  }

  /**
   * O_DIRECT only: writes what is staged so far, its last block filled up with zeros, without ending the batch —
   * so a fault hook sees the file as a crash at that point would leave it. The next write covers those blocks
   * again. (Fault-injection tests only: production batches never write a block twice.)
   */
  void flushStaged() throws IOException {
    if (!pending.isEmpty()) {
      throw new IllegalStateException("flushStaged with in-place blocks pending");
    }
    int staged = staging.position();
    int rounded = (staged + alignment - 1) / alignment * alignment;
    for (int i = staged; i < rounded; i++) {
      staging.put(i, (byte) 0);
    }
    writeStaged(rounded);
  }

  private void writeStaged(int bytes) throws IOException {
    ByteBuffer out = staging.duplicate().position(0).limit(bytes);
    long at = position;
    while (out.hasRemaining()) {
      at += channel.write(out, at);
    }
  }

  void force() throws IOException {
    channel.force(false);
    long size = channel.size();
    SyncJournal.synced(path, size, size);
  }

  /** Footer, fsync, close. */
  void closeCleanly() throws IOException {
    if (channel != null) {
      ByteBuffer footer = SegmentFormat.footer(entries);
      if (direct()) {
        int pad = SegmentFormat.paddingBytes(position(), SegmentFormat.FOOTER_BYTES, alignment);
        if (pad > 0) {
          stagePadding(pad);
        }
        stage(footer);
        endBatch();
      } else {
        write(new ByteBuffer[] {footer});
      }
      channel.force(false);
      long size = channel.size();
      SyncJournal.synced(path, size, size);
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
      if (staging != null) {
        staging.clear();
        pending.clear();
        pendingBytes = 0;
        sealedUpTo = 0;
      }
    }
  }
}
