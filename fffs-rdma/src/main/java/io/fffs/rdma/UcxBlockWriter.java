package io.fffs.rdma;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.WriteFailure;
import io.fffs.client.data.WriteOptions;
import io.fffs.client.data.WriteWindow;
import io.fffs.client.data.frame.ChunkChecksums;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.rdma.SideChannelFormat.Descriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * {@link BlockWriter} over UCX: each packet (at most {@code fffs.client.write.packet-size} and one registered
 * buffer) is copied into a registered buffer, checksummed (CRC32C per 512-byte chunk) and announced with a small
 * WRITE request on the side channel naming the buffer; the DataNode GETs the bytes and acknowledges. Up to
 * {@link io.fffs.client.data.DataTransferConfigKeys#writeWindow} packets are in flight (and at most as many as
 * there are free registered buffers); a buffer is reused once its packet is acknowledged. As on TCP, requests wait in the send buffer until a
 * packet's worth is queued, the window is full or {@link #flush()} (latency mode: never). Acks come back in order; each one's HLCs are
 * observed into the client clock. The first failure is kept and thrown by the next call; the DataNode refuses the
 * stream's packets after a failed one, so nothing after a failure is applied. Not thread-safe (one writer thread).
 */
final class UcxBlockWriter implements BlockWriter {
  private final SideChannel channel;
  private final RegisteredBuffers buffers;
  private final HybridLogicalClock clock;
  private final long blockId;
  private final BlockToken token;
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

  UcxBlockWriter(SideChannel channel, RegisteredBuffers buffers, HybridLogicalClock clock, long blockId,
      BlockToken token, WriteOptions options, long streamId, int window, int packetSize, boolean latencyMode, long timeoutMillis) {
    this.channel = channel;
    this.buffers = buffers;
    this.clock = clock;
    this.blockId = blockId;
    this.token = token;
    this.options = options;
    this.streamId = streamId;
    this.packetSize = Math.min(packetSize, buffers.slotSize());
    this.timeoutMillis = timeoutMillis;
    this.window = new WriteWindow(window, this.packetSize, latencyMode, timeoutMillis,
        "DataNode " + channel.address(), "UCX write of block " + blockId);
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
    window.acquire(channel::flush, failure);
    RegisteredBuffers.Slot free = buffers.tryTake();
    try {
      if (free == null) {
        channel.flush();
        window.flushed();
        free = buffers.take(timeoutMillis, "a write of block " + blockId);
      }
    } catch (IOException e) {
      window.release();
      throw e;
    }
    RegisteredBuffers.Slot slot = free;
    int n = piece.remaining();
    slot.bytes().clear();
    slot.bytes().put(piece.duplicate()).flip();
    WriteRequestProto.Builder write = WriteRequestProto.newBuilder().setBlockId(blockId).setOffset(offset)
        .setStreamId(streamId);
    write.setChunkCrcs(ChunkChecksums.toWire(ChunkChecksums.of(slot.bytes())));
    if (options.blockSize() > 0) {
      write.setBlockSize(options.blockSize());
    }
    if (options.userTimePlugin() != null) {
      write.setUserTimePlugin(options.userTimePlugin());
    }
    boolean flush = window.queued(n);
    RequestHeaderProto.Builder request = RequestHeaderProto.newBuilder();
    if (token != null) {
      request.addTokens(token.toProto());
    }
    CompletableFuture<ResponseHeaderProto> ack = channel.send(request.setOp(OpProto.WRITE)
        .setHlc(clock.last().toProto()).setWrite(write), new Descriptor(slot.address(), n, buffers.rkey()), flush);
    lastAck = ack.handle((response, error) -> {
      try {
        onAck(response, error);
      } finally {
        buffers.give(slot);
        window.release();
      }
      return null;
    });
  }

  private void onAck(ResponseHeaderProto response, Throwable error) {
    if (error != null) {
      fail(error instanceof IOException ? (IOException) error : new IOException(error.toString(), error));
      return;
    }
    clock.observe(HlcTimestamp.fromProto(response.getHlc()));
    if (response.hasError()) {
      fail(FffsException.fromProto(response.getError()));
    } else {
      HlcTimestamp entry = HlcTimestamp.fromProto(response.getWrite().getEntryHlc());
      clock.observe(entry);
      lastEntryHlc = entry;
      blockLength = response.getWrite().getBlockLength();
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
    channel.flush();
    window.flushed();
    failure.awaitAck(lastAck, timeoutMillis, "the UCX writes of block " + blockId
        + " to DataNode " + channel.address());
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
    if (failure.unreported()) {
      flush();
    }
  }
}
