package io.fffs.client;

import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.ReadResult;
import io.fffs.client.errors.ClientErrors;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Locale;
import org.apache.hadoop.fs.ByteBufferReadable;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.StreamCapabilities;

/**
 * Reads a file as of the time it was opened at ({@link FileLayout}): every DataNode read carries that time, so a
 * reader of the past sees exactly that state however long it reads. Sequential reads fetch
 * {@code fffs.client.read.buffer-size} bytes at once (pipelined as several requests by the data-transfer client);
 * a read of at least that size, and every positioned read, goes straight into the caller's buffer. A read the
 * DataNode refuses with {@code ACCESS_DENIED} (the block token expired during a long read, or the NameNode's keys
 * changed) is retried once with fresh tokens from the NameNode, which checks the permission again.
 */
final class FffsInputStream extends FSInputStream implements ByteBufferReadable, CanUnbuffer, StreamCapabilities {
  /** Asks the NameNode again for the file's blocks as of the same time: fresh access tokens. */
  @FunctionalInterface
  interface TokenSource {
    LocatedBlocksProto locate() throws IOException;
  }

  private final FileLayout layout;
  private final TokenSource tokens;
  private final DataTransferClient data;
  private final int bufferSize;
  private ByteBuffer buffer;
  private long bufferStart;
  private long position;
  private boolean closed;

  FffsInputStream(FileLayout layout, DataTransferClient data, int bufferSize, TokenSource tokens) {
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
    if (len == 0) {
      return 0;
    }
    if (len >= bufferSize && !buffered()) {
      return readDirect(ByteBuffer.wrap(b, off, len));
    }
    if (!fill()) {
      return -1;
    }
    int n = Math.min(len, buffer.remaining());
    buffer.get(b, off, n);
    position += n;
    return n;
  }

  @Override
  public synchronized int read(ByteBuffer dst) throws IOException {
    checkOpen();
    if (!dst.hasRemaining()) {
      return 0;
    }
    if (dst.remaining() >= bufferSize && !buffered()) {
      return readDirect(dst);
    }
    if (!fill()) {
      return -1;
    }
    int n = Math.min(dst.remaining(), buffer.remaining());
    ByteBuffer slice = buffer.duplicate();
    slice.limit(slice.position() + n);
    dst.put(slice);
    buffer.position(buffer.position() + n);
    position += n;
    return n;
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
    return n;
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
    return n > 0;
  }

  /** Reads from {@code at} into {@code dst}, within one block; returns the bytes read. */
  private int readAt(long at, ByteBuffer dst) throws IOException {
    FileLayout.Block block = layout.blockAt(at);
    if (block == null) {
      return 0;
    }
    int want = (int) Math.min(dst.remaining(), block.offset + block.length - at);
    ReadResult result;
    try {
      result = readBlock(block, at, dst, want);
    } catch (FffsException e) {
      // A long read outlives its tokens (or the NameNode restarted with new keys): ask again, once.
      if (e.code() != ErrorCode.ACCESS_DENIED || tokens == null) {
        throw e;
      }
      LocatedBlocksProto fresh = ClientErrors.translating(tokens::locate);
      if (fresh == null) {
        throw e;
      }
      layout.renewTokens(fresh);
      result = readBlock(block, at, dst, want);
    }
    if (result.bytesRead() < want) {
      throw new FffsException(ErrorCode.CORRUPT, layout.path + ": block " + block.blockId + " returned "
          + result.bytesRead() + " bytes at offset " + (at - block.offset) + " where " + want
          + " existed as of " + layout.time);
    }
    dst.position(dst.position() + result.bytesRead());
    return result.bytesRead();
  }

  private ReadResult readBlock(FileLayout.Block block, long at, ByteBuffer dst, int want) throws IOException {
    ByteBuffer window = dst.duplicate();
    window.limit(window.position() + want);
    return data.read(FileLayout.firstLocation(layout.path, block.blockId, block.locations), block.blockId,
        block.token, at - block.offset, window, layout.time);
  }

  @Override
  public synchronized int read(long at, byte[] b, int off, int len) throws IOException {
    checkOpen();
    // Hadoop's checks: a null buffer or bad range is IllegalArgumentException/IndexOutOfBounds, at < 0 is EOF.
    validatePositionedReadArgs(at, b, off, len);
    if (at >= layout.length) {
      return -1;
    }
    ByteBuffer dst = ByteBuffer.wrap(b, off, (int) Math.min(len, layout.length - at));
    int total = 0;
    while (dst.hasRemaining()) {
      int n = readAt(at + total, dst);
      if (n <= 0) {
        break;
      }
      total += n;
    }
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
        return true;
      default:
        return false;
    }
  }

  @Override
  public synchronized void unbuffer() {
    buffer = null;
  }

  @Override
  public synchronized void close() {
    closed = true;
    buffer = null;
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException(FSExceptionMessages.STREAM_IS_CLOSED);
    }
  }
}
