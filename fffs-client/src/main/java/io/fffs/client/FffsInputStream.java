package io.fffs.client;

import io.fffs.client.data.BlockReadStream;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.ReadResult;
import io.fffs.client.errors.ClientErrors;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.fs.ByteBufferPositionedReadable;
import org.apache.hadoop.fs.ByteBufferReadable;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.StreamCapabilities;

/**
 * Reads a file as of the time it was opened at ({@link FileLayout}): every DataNode read carries that time, so a
 * reader of the past sees exactly that state however long it reads. Once reading is sequential (from the start, or
 * each fetch beginning where the last ended), the block is read through a {@link BlockReadStream}: the transport
 * keeps requests in flight ahead of the caller and each read call checks and copies the bytes that arrived straight
 * into the caller's buffer, whatever its size — one copy, no read-ahead thread, no stream buffer. Other reads fetch
 * {@code fffs.client.read.buffer-size} bytes at once (pipelined as several requests by the data-transfer client); a
 * read of at least a buffer's size that the buffer does not hold, and every positioned read, goes straight into the
 * caller's buffer; positioned reads that each begin where the last one ended ({@code readVectored} over sorted
 * ranges, a reader walking a file with {@code readFully(position, ...)}) go through a stream of their own
 * ({@link PositionalReadAhead}). A stream that fails before returning anything is dropped and the read made the ordinary way,
 * which reports the error (or renews the tokens). Each read tries the block's replicas in turn
 * ({@link ReplicaOrder}, {@link ReplicaFailover}): one that fails is tried last from then on. A read the DataNode refuses with {@code ACCESS_DENIED} (the block
 * token expired during a long read, or the NameNode's keys changed) is retried once with fresh tokens from the
 * NameNode, which checks the permission again. A read that every listed replica failed asks the NameNode for the
 * block's replicas again ({@link ReadRelocation}): one that can answer may have reported since.
 */
final class FffsInputStream extends FSInputStream
    implements ByteBufferReadable, ByteBufferPositionedReadable, CanUnbuffer, StreamCapabilities {
  /** Asks the NameNode again for the file's blocks as of the same time: fresh access tokens. */
  @FunctionalInterface
  interface TokenSource {
    LocatedBlocksProto locate() throws IOException;
  }

  private final FileLayout layout;
  private final TokenSource tokens;
  private final ReplicaFailover.BadReplicas bad;
  private final ReadRelocation relocation;
  private final DataTransferClient data;
  private final int bufferSize;
  /** Holds bytes [bufferStart, bufferStart + limit) of the file once fetched and verified. */
  private ByteBuffer buffer;
  private long bufferStart;
  /** The sequential read of the block under way, or null; it reads block offsets, from {@link #streamBlockStart}. */
  private BlockReadStream stream;
  private long streamBlockStart;
  /** Where the last fetch (buffer fill, direct read or stream read) ended; -1 before any. */
  private long fetchedEnd = -1;
  private long position;
  private boolean closed;
  /** DataNodes (uuids) that failed a read of this stream: later reads try them last. */
  private final Set<String> failedReplicas = new HashSet<>();
  /** The DataNode {@link #stream} reads from. */
  private DatanodeIdProto streamReplica;
  /** Positioned reads that each begin where the last ended go through a stream of their own. */
  private final PositionalReadAhead positional = new PositionalReadAhead(this::open, failedReplicas);

  /**
   * @param bad told of replicas whose bytes failed their checksums
   * @param relocation when to ask {@code tokens} for a block's replicas again once every listed one failed
   */
  FffsInputStream(FileLayout layout, DataTransferClient data, int bufferSize, TokenSource tokens,
      ReplicaFailover.BadReplicas bad, ReadRelocation relocation) {
    this.bad = bad;
    this.relocation = relocation;
    this.layout = layout;
    this.tokens = tokens;
    this.data = data;
    this.bufferSize = bufferSize;
  }

  long length() {
    return layout.length;
  }

  @Override
  public synchronized int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public synchronized int read(byte[] b, int off, int len) throws IOException {
    checkOpen();
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    return len == 0 ? 0 : readInto(ByteBuffer.wrap(b, off, len));
  }

  @Override
  public synchronized int read(ByteBuffer dst) throws IOException {
    checkOpen();
    return dst.hasRemaining() ? readInto(dst) : 0;
  }

  /** Reads at {@link #position} into {@code dst} (which has room): from the buffers, or straight from DataNodes. */
  private int readInto(ByteBuffer dst) throws IOException {
    if (!buffered()) {
      int n = readStreamed(dst);
      if (n > 0) {
        return n;
      }
    }
    if (!buffered()) {
      if (position >= layout.length) {
        return -1;
      }
      if (dst.remaining() >= bufferSize) {
        return readDirect(dst);
      }
      if (!fill()) {
        return -1;
      }
    }
    buffer.position((int) (position - bufferStart));
    int n = Math.min(dst.remaining(), buffer.remaining());
    ByteBuffer slice = buffer.duplicate();
    slice.limit(slice.position() + n);
    dst.put(slice);
    position += n;
    return n;
  }

  /**
   * Reads at {@link #position} through the block's stream straight into {@code dst}, until it is full or the block
   * ends. Returns 0 (nothing read) when the read is not sequential, or the stream failed or ended early before
   * returning a byte: the caller then reads the ordinary way.
   */
  private int readStreamed(ByteBuffer dst) throws IOException {
    int total = 0;
    boolean reopened = false;
    try {
      while (dst.hasRemaining() && streamAtPosition()) {
        int n = stream.read(dst);
        if (n < 0) {
          closeStream();  // the block's end: the next block's stream, unless this call already has bytes
          if (total > 0 || reopened) {
            break;
          }
          reopened = true;
          continue;
        }
        total += n;
        position += n;
        fetchedEnd = position;
      }
    } catch (InterruptedIOException e) {
      closeStream();
      throw e;  // the caller was interrupted: no replica failed
    } catch (IOException e) {
      if (streamReplica != null) {
        failedReplicas.add(streamReplica.getDatanodeUuid());  // the ordinary read tries the others first
      }
      closeStream();
    }
    return total;
  }

  /** Whether {@link #stream} reads on at {@link #position}, opening one if the read is sequential. */
  private boolean streamAtPosition() throws IOException {
    if (stream != null && streamBlockStart + stream.position() == position) {
      return true;
    }
    closeStream();
    return position < layout.length && isSequential() && openStream();
  }

  /** Opens a stream from {@link #position} to the end of its block; false when there is none to open. */
  private boolean openStream() throws IOException {
    closeStream();
    PositionalReadAhead.Opened opened = open(position);
    if (opened == null) {
      return false;
    }
    stream = opened.stream();
    streamReplica = opened.replica();
    streamBlockStart = opened.blockStart();
    return true;
  }

  /**
   * A stream from {@code at} to the end of its block from the first replica in order, or null when there is no
   * block there or that replica cannot be reached (it is then tried last; the ordinary read reports what failed).
   */
  private PositionalReadAhead.Opened open(long at) throws IOException {
    FileLayout.Block block = layout.blockAt(at);
    if (block == null) {
      return null;
    }
    FileLayout.firstLocation(layout.path, block.blockId, block.locations);  // none: NOT_FOUND, saying why
    DatanodeIdProto replica = ReplicaOrder.order(block.locations, failedReplicas, data::skewedAhead).get(0);
    try {
      return new PositionalReadAhead.Opened(data.openStream(replica, block.blockId, block.token, at - block.offset,
          block.length, layout.time), block.offset, replica);
    } catch (IOException e) {
      failedReplicas.add(replica.getDatanodeUuid());
      return null;
    }
  }

  private void closeStream() {
    if (stream != null) {
      stream.close();
      stream = null;
      streamReplica = null;
    }
  }

  /** Whether the buffer holds the byte at {@link #position}. */
  private boolean buffered() {
    return buffer != null && position >= bufferStart && position < bufferStart + buffer.limit();
  }

  /**
   * A read of at least a buffer's worth goes straight into the caller's buffer, up to the end of the block it starts
   * in: one copy fewer, as nothing of it would be read from the stream's buffer again.
   */
  private int readDirect(ByteBuffer dst) throws IOException {
    if (position >= layout.length) {
      return -1;
    }
    ByteBuffer window = dst.duplicate();
    window.limit(window.position() + (int) Math.min(dst.remaining(), layout.length - position));
    int n = readAt(position, window);
    if (n <= 0) {
      return -1;
    }
    dst.position(dst.position() + n);
    position += n;
    fetchedEnd = position;
    return n;
  }

  /** A fetch at {@link #position} continues the previous one (or starts the file): worth streaming. */
  private boolean isSequential() {
    return position == fetchedEnd || fetchedEnd < 0 && position == 0;
  }

  /** Makes the buffer hold the byte at {@link #position}; false at the end of the file. */
  private boolean fill() throws IOException {
    if (position >= layout.length) {
      return false;
    }
    if (buffered()) {
      buffer.position((int) (position - bufferStart));
      return true;
    }
    if (buffer == null) {
      buffer = ByteBuffer.allocate(bufferSize);
    }
    buffer.clear();
    int n;
    try {
      n = readAt(position, buffer);
    } catch (IOException | RuntimeException e) {
      buffer.limit(0);  // holds a partial or unverified fetch: nothing of it may be served
      throw e;
    }
    buffer.flip();
    bufferStart = position;
    fetchedEnd = position + n;
    return n > 0;
  }

  /**
   * Reads from {@code at} into {@code dst}, within one block; returns the bytes read. When every listed replica
   * failed for a reason of its own, the NameNode is asked for the block's replicas again ({@link ReadRelocation}).
   */
  private int readAt(long at, ByteBuffer dst) throws IOException {
    FileLayout.Block block = layout.blockAt(at);
    if (block == null) {
      return 0;
    }
    int want = (int) Math.min(dst.remaining(), block.offset + block.length - at);
    ReadResult result;
    for (int attempt = 0; ; attempt++) {
      try {
        result = readRenewingTokens(block, at, dst, want);
        break;
      } catch (IOException e) {
        if (tokens == null || !relocation.again(e, attempt, layout.path + " block " + block.blockId)) {
          throw e;
        }
        LocatedBlocksProto fresh = ClientErrors.translating(tokens::locate);
        if (fresh == null) {
          throw e;
        }
        layout.refresh(fresh);
      }
    }
    dst.position(dst.position() + result.bytesRead());
    return result.bytesRead();
  }

  private ReadResult readRenewingTokens(FileLayout.Block block, long at, ByteBuffer dst, int want)
      throws IOException {
    try {
      return readBlock(block, at, dst, want);
    } catch (FffsException e) {
      // A long read outlives its tokens (or the NameNode restarted with new keys): ask again, once.
      if (e.code() != ErrorCode.ACCESS_DENIED || tokens == null) {
        throw e;
      }
      LocatedBlocksProto fresh = ClientErrors.translating(tokens::locate);
      if (fresh == null) {
        throw e;
      }
      layout.refresh(fresh);
      return readBlock(block, at, dst, want);
    }
  }

  /** Reads {@code want} bytes from the block's replicas in turn ({@link ReplicaFailover}): a short answer is one's. */
  private ReadResult readBlock(FileLayout.Block block, long at, ByteBuffer dst, int want) throws IOException {
    FileLayout.firstLocation(layout.path, block.blockId, block.locations);  // none: NOT_FOUND, saying why
    return ReplicaFailover.run(layout.path, block.blockId,
        ReplicaOrder.order(block.locations, failedReplicas, data::skewedAhead), failedReplicas, replica -> {
          ByteBuffer window = dst.duplicate();
          window.limit(window.position() + want);
          ReadResult result = data.read(replica, block.blockId, block.token, at - block.offset, window,
              layout.time);
          if (result.bytesRead() < want) {
            throw new ReplicaFailover.ShortAnswer(layout.path + ": block " + block.blockId + " returned "
                + result.bytesRead() + " bytes at offset " + (at - block.offset) + " from " + replica.getHost()
                + ":" + replica.getDataPort() + " where " + want + " existed as of " + layout.time);
          }
          return result;
        }, bad);
  }

  @Override
  public synchronized int read(long at, byte[] b, int off, int len) throws IOException {
    checkOpen();
    // Hadoop's checks: a null buffer or bad range is IllegalArgumentException/IndexOutOfBounds, at < 0 is EOF.
    validatePositionedReadArgs(at, b, off, len);
    return at >= layout.length ? -1 : readFrom(at, ByteBuffer.wrap(b, off, (int) Math.min(len, layout.length - at)));
  }

  /** A positioned read into {@code buf} from its position (left alone is the stream's): as into an array. */
  @Override
  public synchronized int read(long at, ByteBuffer buf) throws IOException {
    checkOpen();
    if (at < 0) {
      throw new EOFException(FSExceptionMessages.NEGATIVE_SEEK + ": " + at);
    }
    if (!buf.hasRemaining()) {
      return 0;
    }
    if (at >= layout.length) {
      return -1;
    }
    ByteBuffer dst = buf.duplicate();
    dst.limit(dst.position() + (int) Math.min(buf.remaining(), layout.length - at));
    int n = readFrom(at, dst);
    buf.position(buf.position() + n);
    return n;
  }

  @Override
  public synchronized void readFully(long at, ByteBuffer buf) throws IOException {
    int wanted = buf.remaining();
    int n = read(at, buf);
    if (n < wanted) {
      throw new EOFException(FSExceptionMessages.EOF_IN_READ_FULLY + ": " + wanted + " bytes at " + at + " of "
          + layout.length);
    }
  }

  /** Fills {@code dst} from file offset {@code at} (within the file), as far as the file goes. */
  private int readFrom(long at, ByteBuffer dst) throws IOException {
    int total = positional.read(at, dst);
    while (dst.hasRemaining()) {
      int n = readAt(at + total, dst);
      if (n <= 0) {
        break;
      }
      total += n;
    }
    positional.ended(at + total);
    return total;
  }

  @Override
  public synchronized void seek(long target) throws IOException {
    checkOpen();
    if (target < 0) {
      throw new EOFException(FSExceptionMessages.NEGATIVE_SEEK);
    }
    if (target > layout.length) {
      throw new EOFException(FSExceptionMessages.CANNOT_SEEK_PAST_EOF + ": " + target + " > " + layout.length);
    }
    position = target;
  }

  @Override
  public synchronized long getPos() {
    return position;
  }

  @Override
  public boolean seekToNewSource(long targetPos) {
    return false;
  }

  @Override
  public synchronized int available() throws IOException {
    checkOpen();
    return (int) Math.min(Integer.MAX_VALUE, layout.length - position);
  }

  /** FSDataInputStream only forwards {@code unbuffer()} and ByteBuffer reads to streams that say they can. */
  @Override
  public boolean hasCapability(String capability) {
    switch (capability.toLowerCase(Locale.ROOT)) {
      case StreamCapabilities.UNBUFFER:
      case StreamCapabilities.READBYTEBUFFER:
      case StreamCapabilities.PREADBYTEBUFFER:
        return true;
      default:
        return false;
    }
  }

  @Override
  public synchronized void unbuffer() {
    dropBuffers();
  }

  @Override
  public synchronized void close() {
    closed = true;
    dropBuffers();
  }

  /** Forgets the streams and the buffer. */
  private void dropBuffers() {
    closeStream();
    positional.close();
    buffer = null;
    fetchedEnd = -1;
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException(FSExceptionMessages.STREAM_IS_CLOSED);
    }
  }
}
