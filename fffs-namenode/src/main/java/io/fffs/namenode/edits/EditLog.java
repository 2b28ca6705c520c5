package io.fffs.namenode.edits;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.fault.SyncJournal;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.time.HlcTimestamp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.hadoop.thirdparty.protobuf.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The append side of the edit log: records are queued in txid order by the namespace (under its write lock) and
 * written by one owning thread, which batches everything queued since its last write into one write and one
 * {@code force} (group commit). {@link #awaitSynced} returns once a txid is on disk; a mutation is acknowledged
 * only then. Segments roll at checkpoints ({@link #roll}). Layout: {@link EditLogFormat}.
 *
 * <p>The open segment is preallocated with zeros {@link #PREALLOCATE_BYTES} at a time ahead of the records, as
 * HDFS does, so that an {@code fdatasync} of a write into blocks the file already has need not also commit a size
 * change. The zeros are cut at {@link #roll} and {@link #close}; after a crash {@link EditLogReader} reads a zero
 * tail as the end of the log and start-up cuts it.
 *
 * <p>Appends wake only the writer; a finished batch wakes only the callers waiting for durability
 * ({@link DurabilityWaits}, answered on a notifier thread so the writer goes straight back to the next batch).
 */
public final class EditLog implements Journal {
  private static final Logger LOG = LoggerFactory.getLogger(EditLog.class);
  /** Zeros written ahead of the records of the open segment at a time. */
  static final int PREALLOCATE_BYTES = 1 << 20;
  private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(PREALLOCATE_BYTES);

  /** A queued record, or a request to start a new segment at {@code rollTo}. */
  private static final class Pending {
    final ByteBuffer record;
    final long txid;
    final long rollTo;

    Pending(ByteBuffer record, long txid, long rollTo) {
      this.record = record;
      this.txid = txid;
      this.rollTo = rollTo;
    }
  }

  private final Path dir;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition queued = lock.newCondition();
  private List<Pending> queue = new ArrayList<>();
  private volatile long lastQueuedTxid; // written under the lock, read without it
  /** The txid on disk, and who waits for theirs; advanced once per batch written and forced. */
  private final DurabilityWaits durability;
  private IOException failure;
  private boolean closed;
  private FileChannel channel;
  private Path segmentFile;
  /** Writer thread only: the end of the records of {@link #channel}, and of the zeros written ahead of them. */
  private long written;
  private long allocated;
  private final Thread writer;
  /**
   * Opens a new segment starting at {@code nextTxid} in {@code dir} (replacing an empty segment of that name left
   * by a crash) and starts the writer thread.
   */
  public EditLog(Path dir, long nextTxid) throws IOException {
    this.dir = dir;
    this.lastQueuedTxid = nextTxid - 1;
    this.durability = DurabilityWaits.withNotifier(nextTxid - 1, "fffs-edit-log-notifier");
    this.channel = openSegment(nextTxid);
    this.writer = new Thread(this::writeLoop, "fffs-edit-log-writer");
    writer.setDaemon(true);
    writer.start();
  }

  /**
   * Queues a record. Must be called in txid order (consecutive), which the namespace's write lock ensures.
   *
   * @throws FffsException {@code IO_ERROR} once the log has failed: the NameNode then takes no more changes
   */
  @Override
  public void append(long txid, HlcTimestamp hlc, EditOpProto op) throws FffsException {
    byte[] clientId = CallerIds.clientId();
    EditOpProto logged = clientId.length == 0 ? op : op.toBuilder()
        .setRpcClientId(ByteString.copyFrom(clientId)).setRpcCallId(CallerIds.callId()).build();
    ByteBuffer record = EditLogFormat.encode(txid, hlc.packed(), logged.toByteArray());
    lock.lock();
    try {
      checkUsable();
      if (txid != lastQueuedTxid + 1) {
        throw new IllegalStateException("txid " + txid + " queued after " + lastQueuedTxid);
      }
      queue.add(new Pending(record, txid, -1));
      lastQueuedTxid = txid;
      queued.signal();
    } finally {
      lock.unlock();
    }
  }

  /** Returns once every record up to {@code txid} is on disk. */
  @Override
  public void awaitSynced(long txid) throws IOException {
    durability.await(txid);
  }

  /** Batches written and synced since start: with group commit, fewer than the records in them. */
  @Override
  public long batchesSynced() {
    return durability.rounds();
  }

  /** Whether every record up to {@code txid} is on disk. */
  @Override
  public boolean isSynced(long txid) {
    return durability.isSynced(txid);
  }

  /**
   * Without holding the calling thread: runs {@code synced} once every record up to {@code txid} is on disk, or
   * {@code failed} with why that will not happen (the log failed or closed) — on the log's notifier thread, or on
   * the caller's when that is known already.
   */
  @Override
  public void whenSynced(long txid, Runnable synced, Consumer<IOException> failed) {
    durability.whenSynced(txid, synced, failed);
  }

  /** Ends the current segment after everything queued and starts {@code edits_<next txid>}; waits for it. */
  public void roll() throws IOException {
    long rollTo;
    lock.lock();
    try {
      checkUsable();
      rollTo = lastQueuedTxid + 1;
      queue.add(new Pending(null, -1, rollTo));
      queued.signal();
    } finally {
      lock.unlock();
    }
    awaitSynced(rollTo - 1);
  }

  @Override
  public long lastQueuedTxid() {
    return lastQueuedTxid;
  }

  public long syncedTxid() {
    return durability.durable();
  }

  public Path directory() {
    return dir;
  }

  private void checkUsable() throws FffsException {
    if (failure != null) {
      throw new FffsException(ErrorCode.IO_ERROR, "the edit log failed earlier (" + failure.getMessage()
          + "); the NameNode takes no more changes until restarted");
    }
    if (closed) {
      throw new FffsException(ErrorCode.IO_ERROR, "the edit log is closed");
    }
  }

  private void writeLoop() {
    while (true) {
      List<Pending> batch;
      lock.lock();
      try {
        while (queue.isEmpty() && !closed) {
          try {
            queued.await();
          } catch (InterruptedException e) {
            return;
          }
        }
        if (queue.isEmpty()) {
          return;
        }
        batch = queue;
        queue = new ArrayList<>();
      } finally {
        lock.unlock();
      }
      try {
        durability.advance(writeBatch(batch));
      } catch (IOException e) {
        LOG.error("Edit log write failed; refusing further changes", e);
        lock.lock();
        try {
          failure = e;
        } finally {
          lock.unlock();
        }
        durability.refuse(new FffsException(ErrorCode.IO_ERROR, "the edit log could not be written: "
            + e.getMessage() + "; the change may not be durable and the NameNode takes no more changes", e));
        return;
      }
    }
  }

  /** Writes a batch, rolling where asked; returns the last txid made durable. */
  private long writeBatch(List<Pending> batch) throws IOException {
    long last = -1;
    List<ByteBuffer> buffers = new ArrayList<>();
    for (Pending pending : batch) {
      if (pending.record != null) {
        buffers.add(pending.record);
        last = pending.txid;
        continue;
      }
      flush(buffers);
      closeSegment();
      channel = openSegment(pending.rollTo);
      last = Math.max(last, pending.rollTo - 1);
    }
    flush(buffers);
    return last;
  }

  private void flush(List<ByteBuffer> buffers) throws IOException {
    if (buffers.isEmpty()) {
      return;
    }
    long lastTxid = buffers.get(buffers.size() - 1).getLong(8);
    buffers.add(EditLogFormat.commitMarker(lastTxid, written));
    ByteBuffer[] array = buffers.toArray(new ByteBuffer[0]);
    long remaining = 0;
    for (ByteBuffer buffer : array) {
      remaining += buffer.remaining();
    }
    preallocate(channel, written + remaining);
    written += remaining;
    while (remaining > 0) {
      remaining -= channel.write(array);
    }
    channel.force(false);
    SyncJournal.synced(segmentFile, written, allocated);
    buffers.clear();
  }

  /** Writes zeros ahead of the channel's position until the file reaches {@code end} (its position unchanged). */
  private void preallocate(FileChannel segment, long end) throws IOException {
    while (allocated < end) {
      ByteBuffer zeros = ZEROS.duplicate();
      while (zeros.hasRemaining()) {
        segment.write(zeros, allocated + zeros.position());
      }
      allocated += PREALLOCATE_BYTES;
    }
  }

  private FileChannel openSegment(long firstTxid) throws IOException {
    Path file = dir.resolve(EditLogFormat.fileName(firstTxid));
    FileChannel segment = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING);
    allocated = 0;
    preallocate(segment, EditLogFormat.FILE_HEADER_BYTES);
    segment.write(EditLogFormat.fileHeader(firstTxid));
    written = EditLogFormat.FILE_HEADER_BYTES;
    segment.force(true);
    forceDirectory(dir);
    segmentFile = file;
    SyncJournal.synced(file, written, allocated);
    return segment;
  }

  /** Cuts the zeros after the last record of the open segment and closes it. */
  private void closeSegment() throws IOException {
    channel.truncate(written);
    channel.force(true);
    SyncJournal.synced(segmentFile, written, written);
    channel.close();
  }

  /** Forces a directory entry change (a new or renamed file) to disk. */
  public static void forceDirectory(Path dir) throws IOException {
    try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
      directory.force(true);
    }
  }

  @Override
  public void close() throws IOException {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      queued.signal();
    } finally {
      lock.unlock();
    }
    try {
      writer.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // after the writer wrote what was queued: those waiters are answered as durable
    durability.refuse(new FffsException(ErrorCode.IO_ERROR, "the NameNode is shutting down"));
    durability.shutdown();
    if (failure == null) {
      closeSegment();
    } else {
      channel.close();
    }
  }

  /** Lists the segment files of {@code dir}, oldest first. */
  public static List<Path> segments(Path dir) throws IOException {
    List<Path> segments = new ArrayList<>();
    try (var files = Files.list(dir)) {
      files.filter(f -> EditLogFormat.firstTxidOf(f) >= 0).forEach(segments::add);
    }
    segments.sort((a, b) -> Long.compare(EditLogFormat.firstTxidOf(a), EditLogFormat.firstTxidOf(b)));
    return segments;
  }

  /** The first txid of a segment file. */
  public static long firstTxid(Path segment) {
    return EditLogFormat.firstTxidOf(segment);
  }
}
