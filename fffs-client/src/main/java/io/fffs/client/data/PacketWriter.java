package io.fffs.client.data;

import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.BlockTokenProto;
import io.fffs.common.proto.DataTransferProtos.ChainMemberProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaStampProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.protocol.frame.ChunkChecksums;
import io.fffs.protocol.transport.DataChannel;
import io.fffs.protocol.transport.PacketBuffer;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link BlockWriter} over one {@link DataChannel}, whatever moves its bytes: data is cut into packets of at most
 * {@code fffs.client.write.packet-size} (and the channel's largest), each copied once into a buffer the transport
 * owns with a CRC32C per 512-byte chunk computed in the same pass — or, for bytes the caller keeps unchanged until
 * acknowledged ({@link #writeRetained}), sent from where they are when the channel can ({@link DataChannel#wrap}) —
 * and sent as a WRITE carrying the client's HLC
 * and the block's WRITE token. Up to a {@link WriteWindow} of packets are in flight; acks come back in order, each
 * one's HLCs are taken into the client clock ({@link DataNodeClocks#observeChange}: one beyond the max offset fails
 * the writer) and frees a window slot. The first failure is kept and thrown by
 * the next call; the DataNode refuses a stream's packets after a failed one ({@code streamId}), so nothing after a
 * failure is applied.
 *
 * <p>Packets are sent at once in latency mode or where the transport wants each on its way (UCX: the DataNode
 * fetches the bytes when it sees the request); otherwise once {@code fffs.client.write.flush-bytes} are queued, when
 * the window is full, and by {@link #flush()}, which asks the channel to send only when a packet is still held back
 * (for Netty a flush from this thread is a task for the event loop, and may wake it). Not thread-safe (one writer
 * thread).
 */
final class PacketWriter implements BlockWriter {
  /** Bytes copied and checksummed together (a multiple of the 512-byte chunk), so the CRC reads cached bytes. */
  static final int COPY_SLICE = 64 * 1024;

  private long pipelineEpoch;
  /** The chain members after this writer's DataNode, each packet forwarded along them (empty: no chain). */
  private List<ChainMemberProto> downstream = List.of();
  private int chainTimeoutMs;
  private final DataChannel channel;
  private final DatanodeIdProto datanode;
  private final DataNodeClocks clocks;
  private final long blockId;
  private final BlockTokenProto token;
  private final WriteOptions options;
  private final long streamId;
  private final int packetSize;
  private final long timeoutMillis;
  private final WriteWindow window;
  private CompletableFuture<?> lastAck = CompletableFuture.completedFuture(null);
  private final WriteFailure failure = new WriteFailure();
  private volatile long blockLength;
  /** Written only by the thread that takes the answers, which come in order. */
  private volatile long acknowledgedBytes;
  private volatile HlcTimestamp lastEntryHlc = HlcTimestamp.ZERO;
  private boolean closed;

  /**
   * @param window packets in flight at most
   * @param flushBytes queued bytes that are sent together (unless the channel sends each write)
   */
  /** The epoch of the replicated pipeline this writer belongs to (0: none); set before the first packet. */
  void pipelineEpoch(long epoch) {
    this.pipelineEpoch = epoch;
  }

  /**
   * The members the DataNode forwards every packet along (a chain pipeline), and how long each member waits for the
   * next ({@code WriteRequestProto.chainTimeoutMs}); set before the first packet.
   */
  void chain(List<ChainMemberProto> members, long timeoutMillis) {
    this.downstream = List.copyOf(members);
    this.chainTimeoutMs = (int) Math.min(Integer.MAX_VALUE, timeoutMillis);
  }

  PacketWriter(DataChannel channel, DatanodeIdProto datanode, DataNodeClocks clocks, long blockId,
      BlockToken token, WriteOptions options, long streamId, int window, int packetSize, int flushBytes,
      boolean latencyMode, long timeoutMillis) {
    this.channel = channel;
    this.datanode = datanode;
    this.clocks = clocks;
    this.blockId = blockId;
    this.token = token == null ? null : token.toProto();
    this.options = options;
    this.streamId = streamId;
    this.packetSize = Math.min(packetSize, channel.maxPacket());
    this.timeoutMillis = timeoutMillis;
    this.window = new WriteWindow(window, channel.sendsEachWrite() ? this.packetSize : flushBytes, latencyMode,
        timeoutMillis, channel.peer(), "write of block " + blockId);
  }

  @Override
  public void write(long offset, ByteBuffer data) throws IOException {
    write(offset, data, false);
  }

  /** The caller keeps {@code data} unchanged until acknowledged: its packets go out from it where the channel can. */
  @Override
  public void writeRetained(long offset, ByteBuffer data) throws IOException {
    write(offset, data, true);
  }

  private void write(long offset, ByteBuffer data, boolean retained) throws IOException {
    if (closed) {
      throw new IOException("the writer of block " + blockId + " is closed");
    }
    failure.throwIfFailed();
    ByteBuffer rest = data.duplicate();
    long at = offset;
    do {
      int n = Math.min(packetSize, rest.remaining());
      sendPacket(at, rest.slice(rest.position(), n), null, retained);
      rest.position(rest.position() + n);
      at += n;
    } while (rest.hasRemaining());
  }

  /** The largest packet this writer sends: a replicated writer cuts its packets to the smallest of its members'. */
  int packetSize() {
    return packetSize;
  }

  /** The DataNode this writer writes to. */
  DatanodeIdProto datanode() {
    return datanode;
  }

  /**
   * Sends {@code piece} (at most {@link #packetSize()} bytes, position to limit) as one WRITE, at the primary's
   * stamps when {@code stamp} is not null. {@code retained}: the caller keeps the bytes unchanged until this packet
   * is acknowledged (they may go out from where they are); else they are not used after return. Returns its answer
   * once this writer has taken it in (null when the packet failed: the failure is kept). Throws a failure kept from
   * earlier.
   */
  CompletableFuture<ResponseHeaderProto> send(long offset, ByteBuffer piece, ReplicaStampProto stamp,
      boolean retained) throws IOException {
    if (closed) {
      throw new IOException("the writer of block " + blockId + " is closed");
    }
    failure.throwIfFailed();
    return sendPacket(offset, piece, stamp, retained);
  }

  /** Throws the failure kept, if any. */
  void throwIfFailed() throws IOException {
    failure.throwIfFailed();
  }

  /** Whether a write of this writer failed (it sends nothing more). */
  boolean failed() {
    return failure.failed();
  }

  /**
   * Takes over the block length and last entry {@code previous} saw, as the next writer to the same DataNode after
   * it (before its first packet), so that a flush or {@link #lastEntryHlc()} with no answer of its own reports them.
   */
  void continueFrom(PacketWriter previous) {
    blockLength = previous.blockLength;
    lastEntryHlc = previous.lastEntryHlc;
  }

  /** The kept failure's message, or null. */
  String failureMessage() {
    try {
      failure.throwIfFailed();
      return null;
    } catch (IOException e) {
      return e.getMessage();
    }
  }

  /** Whether this writer failed because its DataNode refused its token (a fresh token may cure that). */
  boolean refusedToken() {
    return failure.refusedToken();
  }

  /**
   * Waits until every packet sent has its answer, whatever it is, so that {@link #acknowledgedBytes()} is final
   * (after a refused packet the DataNode refuses the rest of the stream, and answers each).
   */
  void settle() throws IOException {
    try {
      lastAck.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      // Not thrown: an answer's failure is kept by the writer that takes it in.
    } catch (TimeoutException e) {
      throw new IOException("the writes of block " + blockId + " to " + channel.peer() + " were not answered within "
          + timeoutMillis + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for the answers of the writes of block " + blockId);
    }
  }

  /** {@link #settle}, then throws the kept failure unless it is a refusal of the token, which a renewal cures. */
  void settleForRenewal() throws IOException {
    settle();
    if (failed() && !refusedToken()) {
      throwIfFailed();
    }
  }

  private CompletableFuture<ResponseHeaderProto> sendPacket(long offset, ByteBuffer piece, ReplicaStampProto stamp,
      boolean retained) throws IOException {
    window.acquire(channel::flush, failure);
    int n = piece.remaining();
    PacketBuffer payload = retained ? channel.wrap(piece) : null;
    int[] crcs;
    if (payload != null) {
      crcs = ChunkChecksums.of(piece);  // sent from the caller's memory: no copy
    } else {
      try {
        payload = channel.allocate(n);
      } catch (IOException e) {
        window.release();
        throw e;
      }
      crcs = copyAndChecksum(piece, payload.bytes());
    }
    WriteRequestProto.Builder write = WriteRequestProto.newBuilder().setBlockId(blockId).setOffset(offset)
        .setStreamId(streamId).setChunkCrcs(ChunkChecksums.toWire(crcs));
    if (options.blockSize() > 0) {
      write.setBlockSize(options.blockSize());
    }
    if (options.userTimePlugin() != null) {
      write.setUserTimePlugin(options.userTimePlugin());
    }
    if (stamp != null) {
      write.setReplica(stamp);
    }
    if (pipelineEpoch != 0) {
      write.setPipelineEpoch(pipelineEpoch);
    }
    if (!downstream.isEmpty()) {
      write.addAllDownstream(downstream).setChainTimeoutMs(chainTimeoutMs);
    }
    boolean flush = window.queued(n);
    RequestHeaderProto.Builder request = RequestHeaderProto.newBuilder();
    if (token != null) {
      request.addTokens(token);
      write.setWriterEpoch(token.getWriterEpoch());
    }
    CompletableFuture<ResponseHeaderProto> ack = channel.write(request.setOp(OpProto.WRITE)
        .setHlc(clocks.clock().last().toProto()).setWrite(write), payload, flush);
    CompletableFuture<ResponseHeaderProto> taken = ack.handle((response, error) -> {
      try {
        onAck(response, error, n);
      } finally {
        window.release();
      }
      return error == null && !response.hasError() ? response : null;
    });
    lastAck = taken;
    return taken;
  }

  /**
   * Copies {@code piece} into {@code payload} and returns its chunk CRCs, {@value #COPY_SLICE} bytes at a time, so
   * that the checksum reads bytes the copy has just brought into the cache (one pass and then another would read a
   * packet larger than the L2 cache from memory twice).
   */
  private static int[] copyAndChecksum(ByteBuffer piece, ByteBuffer payload) {
    ChunkChecksums sums = new ChunkChecksums(piece.remaining());
    for (int at = piece.position(); at < piece.limit(); at += COPY_SLICE) {
      ByteBuffer slice = piece.slice(at, Math.min(COPY_SLICE, piece.limit() - at));
      payload.put(slice.duplicate());
      sums.update(slice);
    }
    return sums.finish();
  }

  private void onAck(ResponseHeaderProto response, Throwable error, int bytes) {
    if (error != null) {
      Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
          ? error.getCause() : error;
      failure.fail(cause instanceof IOException ? (IOException) cause : new IOException(cause.toString(), cause));
      return;
    }
    if (response.hasError()) {
      // A refusal changed nothing: its clock is taken in as a read's, and its own reason is the one to report.
      clocks.observeRead(datanode, HlcTimestamp.fromProto(response.getHlc()));
      failure.fail(FffsException.fromProto(response.getError()));
      return;
    }
    try {
      clocks.observeChange(datanode, HlcTimestamp.fromProto(response.getHlc()));
      clocks.observeChange(datanode, HlcTimestamp.fromProto(response.getWrite().getEntryHlc()));
    } catch (FffsException e) {
      failure.fail(e);  // stamped in the cluster's future: this replica failed
      return;
    }
    lastEntryHlc = HlcTimestamp.fromProto(response.getWrite().getEntryHlc());
    blockLength = response.getWrite().getBlockLength();
    if (!failure.failed()) {
      acknowledgedBytes += bytes;
    }
  }

  @Override
  public long flush() throws IOException {
    failure.throwIfFailed();
    if (window.holding()) {
      channel.flush();
      window.flushed();
    }
    failure.awaitAck(lastAck, timeoutMillis, "the writes of block " + blockId + " to " + channel.peer());
    return blockLength;
  }

  @Override
  public long acknowledgedBytes() {
    return acknowledgedBytes;
  }

  @Override
  public java.util.List<DatanodeIdProto> replicas() {
    return datanode == null ? java.util.List.of() : java.util.List.of(datanode);
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
      channel.release();
    }
  }
}
