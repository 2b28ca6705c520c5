package io.fffs.client.data;

import io.fffs.client.data.frame.ChunkChecksums;
import io.fffs.client.data.frame.Frame;
import io.fffs.client.data.netty.ConnectionPool;
import io.fffs.client.data.netty.DataConnection;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.BlockTokenProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * {@link BlockWriter} over one leased {@link DataConnection}: data is cut into packets of at most
 * {@code fffs.client.write.packet-size}, each with a CRC32C per 512-byte chunk, and up to
 * {@link DataTransferConfigKeys#writeWindow} packets are in flight. Acks come back in order on the event loop; each
 * one's HLCs are observed into the client clock and frees a window slot. The first failure is kept and thrown by the
 * next call; the DataNode refuses the stream's packets after a failed one ({@code streamId}), so nothing after a
 * failure is applied.
 *
 * <p>In latency mode every packet is flushed to the socket at once; otherwise packets are flushed once
 * {@code fffs.client.write.flush-bytes} (at least a packet) are queued, when the window is full, and by
 * {@link #flush()}, which asks the connection to flush only when a packet is still held back (a flush from this
 * thread is a task for the event loop, and may wake it). Not thread-safe (one writer thread).
 */
public final class NettyBlockWriter implements BlockWriter {
  /** Bytes copied and checksummed together (a multiple of the 512-byte chunk). */
  static final int COPY_SLICE = 64 * 1024;

  private final ConnectionPool pool;
  private final DataConnection connection;
  private final HybridLogicalClock clock;
  private final long blockId;
  private final BlockTokenProto token;
  private final WriteOptions options;
  private final long streamId;
  private final int packetSize;
  private final long timeoutMillis;
  private final WriteWindow window;
  private CompletableFuture<Void> lastAck = CompletableFuture.completedFuture(null);
  private final WriteFailure failure = new WriteFailure();
  private volatile long blockLength;
  private volatile HlcTimestamp lastEntryHlc = HlcTimestamp.ZERO;
  private boolean closed;

  NettyBlockWriter(ConnectionPool pool, DataConnection connection, HybridLogicalClock clock, long blockId,
      BlockToken token, WriteOptions options, long streamId, int window, int packetSize, int flushBytes,
      boolean latencyMode, long timeoutMillis) {
    this.pool = pool;
    this.connection = connection;
    this.clock = clock;
    this.blockId = blockId;
    this.token = token == null ? null : token.toProto();
    this.options = options;
    this.streamId = streamId;
    this.packetSize = packetSize;
    this.timeoutMillis = timeoutMillis;
    this.window = new WriteWindow(window, flushBytes, latencyMode, timeoutMillis, "DataNode " + connection.address(),
        "write of block " + blockId);
  }

  @Override
  public void write(long offset, ByteBuffer data) throws IOException {
    if (closed) {
      throw new IOException("the writer of block " + blockId + " is closed");
    }
    throwFailure();
    ByteBuffer rest = data.duplicate();
    long at = offset;
    do {
      int n = Math.min(packetSize, rest.remaining());
      sendPacket(at, rest.slice(rest.position(), n));
      rest.position(rest.position() + n);
      at += n;
    } while (rest.hasRemaining());
  }

  private void sendPacket(long offset, ByteBuffer piece) throws IOException {
    window.acquire(connection::flush, failure);
    int n = piece.remaining();
    WriteRequestProto.Builder write = WriteRequestProto.newBuilder().setBlockId(blockId).setOffset(offset)
        .setStreamId(streamId);
    ByteBuf payload = connection.alloc().directBuffer(n);
    write.setChunkCrcs(ChunkChecksums.toWire(copyAndChecksum(piece, payload)));
    if (options.blockSize() > 0) {
      write.setBlockSize(options.blockSize());
    }
    if (options.userTimePlugin() != null) {
      write.setUserTimePlugin(options.userTimePlugin());
    }
    boolean flush = window.queued(n);
    RequestHeaderProto.Builder request = RequestHeaderProto.newBuilder();
    if (token != null) {
      request.addTokens(token);
    }
    CompletableFuture<Frame<ResponseHeaderProto>> ack = connection.send(request
        .setOp(OpProto.WRITE).setHlc(clock.last().toProto()).setWrite(write), payload, flush);
    lastAck = ack.handle((frame, error) -> {
      try {
        onAck(frame, error);
      } finally {
        window.release();
      }
      return null;
    });
  }

  /**
   * Copies {@code piece} into {@code payload} and returns its chunk CRCs, {@value #COPY_SLICE} bytes at a time, so
   * that the checksum reads bytes the copy has just brought into the cache. One pass over the whole packet and then
   * another reads a packet larger than the core's L2 cache (2 MiB here) from memory twice.
   */
  private static int[] copyAndChecksum(ByteBuffer piece, ByteBuf payload) {
    ChunkChecksums sums = new ChunkChecksums(piece.remaining());
    for (int at = piece.position(); at < piece.limit(); at += COPY_SLICE) {
      ByteBuffer slice = piece.slice(at, Math.min(COPY_SLICE, piece.limit() - at));
      payload.writeBytes(slice.duplicate());
      sums.update(slice);
    }
    return sums.finish();
  }

  private void onAck(Frame<ResponseHeaderProto> frame, Throwable error) {
    if (error != null) {
      fail(error instanceof IOException ? (IOException) error : new IOException(error.toString(), error));
      return;
    }
    try {
      ResponseHeaderProto response = frame.header();
      clock.observe(HlcTimestamp.fromProto(response.getHlc()));
      if (response.hasError()) {
        fail(FffsException.fromProto(response.getError()));
      } else {
        HlcTimestamp entry = HlcTimestamp.fromProto(response.getWrite().getEntryHlc());
        clock.observe(entry);
        lastEntryHlc = entry;
        blockLength = response.getWrite().getBlockLength();
      }
    } finally {
      frame.release();
    }
  }

  private void fail(IOException cause) {
    failure.fail(cause);
  }

  private void throwFailure() throws IOException {
    failure.throwIfFailed();
  }

  @Override
  public long flush() throws IOException {
    throwFailure();
    if (window.holding()) {
      connection.flush();
      window.flushed();
    }
    failure.awaitAck(lastAck, timeoutMillis, "the writes of block " + blockId + " to DataNode "
        + connection.address());
    return blockLength;
  }

  /** The block length after the last acknowledged write. */
  public long blockLength() {
    return blockLength;
  }

  @Override
  public HlcTimestamp lastEntryHlc() {
    return lastEntryHlc;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (failure.unreported()) {
        flush();
      }
    } finally {
      pool.release(connection);
    }
  }
}
