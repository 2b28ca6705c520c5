package io.fffs.client.data;

import io.fffs.client.data.frame.ChunkChecksums;
import io.fffs.client.data.frame.Frame;
import io.fffs.client.data.netty.ConnectionPool;
import io.fffs.client.data.netty.DataConnection;
import io.fffs.client.data.netty.EventLoops;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.BlockInfoRequestProto;
import io.fffs.common.proto.DataTransferProtos.BlockInfoResponseProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.ReadResponseProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.SyncRequestProto;
import io.fffs.common.proto.DataTransferProtos.TruncateBlockRequestProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.TimeSpec;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;

/**
 * The data-transfer client over Netty/TCP ({@link DataTransferConfigKeys}). Connections are pooled per DataNode
 * on the JVM-wide client event loops; requests carry the client clock's largest HLC and every response's HLCs are
 * observed into it. Reads are checked end to end: the DataNode sends a CRC32C per 512-byte chunk of what it read
 * and a mismatch is {@code CORRUPT} naming the block and offset. A read is split into requests of
 * {@code fffs.client.read.request-size} that are pipelined on one connection; at {@code latest} these may see
 * different states if the block is written meanwhile (at a system time they cannot).
 */
public final class NettyDataTransferClient implements DataTransferClient {
  private final HybridLogicalClock clock;
  private final ConnectionPool pool;
  private final int window;
  private final int packetSize;
  private final int flushBytes;
  private final int readRequestSize;
  private final int readsInFlight;
  private final boolean latencyMode;
  private final long timeoutMillis;
  private final Map<String, InetSocketAddress> addresses = new ConcurrentHashMap<>();
  private final AtomicLong nextStreamId = new AtomicLong(1);
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * A client configured by {@code conf}; {@code clientClock} is observed, never ticked.
   *
   * @throws FffsException {@code INVALID_ARGUMENT} for an unknown {@code fffs.transport}
   */
  public NettyDataTransferClient(Configuration conf, HybridLogicalClock clientClock) throws FffsException {
    DataTransferConfigKeys.transport(conf);
    this.clock = clientClock;
    this.window = DataTransferConfigKeys.writeWindow(conf);
    this.packetSize = DataTransferConfigKeys.writePacketSize(conf);
    this.flushBytes = DataTransferConfigKeys.writeFlushBytes(conf);
    this.readRequestSize = DataTransferConfigKeys.readRequestSize(conf);
    this.readsInFlight = DataTransferConfigKeys.readRequestsInFlight(conf);
    this.latencyMode = DataTransferConfigKeys.latencyMode(conf);
    this.timeoutMillis = DataTransferConfigKeys.responseTimeoutMillis(conf);
    // Packet buffers live until they are on the socket, so up to a window of them at once: keep that many.
    long keptBufferBytes = Math.max(16L << 20, Math.min(64L << 20, (long) window * packetSize));
    this.pool = new ConnectionPool(EventLoops.acquireShared(), DataTransferConfigKeys.maxFrameSize(conf),
        DataTransferConfigKeys.maxIdleConnections(conf), latencyMode,
        DataTransferConfigKeys.connectTimeoutMillis(conf), timeoutMillis, keptBufferBytes);
  }

  private InetSocketAddress addressOf(DatanodeIdProto datanode) {
    return addresses.computeIfAbsent(datanode.getHost() + ":" + datanode.getDataPort(),
        k -> new InetSocketAddress(datanode.getHost(), datanode.getDataPort()));
  }

  @Override
  public BlockWriter openWriter(DatanodeIdProto datanode, long blockId, BlockToken token, WriteOptions options)
      throws IOException {
    return new NettyBlockWriter(pool, pool.acquire(addressOf(datanode)), clock, blockId, token, options,
        nextStreamId.getAndIncrement(), window, packetSize, flushBytes, latencyMode, timeoutMillis);
  }

  /**
   * Reads in requests of {@code fffs.client.read.request-size}, up to {@code fffs.client.read.requests-in-flight}
   * outstanding on one connection, and consumes the answers in order: each payload is checked against its chunk
   * CRCs and copied into {@code dst} in one pass over the socket buffers it arrived in. The first answer shorter
   * than asked ends the read (the block ends there as of {@code time}); answers to requests sent beyond it are
   * awaited and dropped — an error among them too when it asks past the block's end — so the connection stays
   * usable.
   */
  @Override
  public ReadResult read(DatanodeIdProto datanode, long blockId, BlockToken token, long offset, ByteBuffer dst,
      TimeSpec time) throws IOException {
    DataConnection connection = pool.acquire(addressOf(datanode));
    ArrayDeque<PendingRead> inFlight = new ArrayDeque<>();
    try {
      int wanted = dst.remaining();
      int sent = 0;
      int total = 0;
      long blockLength = -1;
      HlcTimestamp resolved = null;
      boolean ended = false;
      int requests = 0;
      while (true) {
        boolean sending = false;
        // At least one request, even for no bytes: its answer carries the block's length and resolved HLC.
        while (!ended && (sent < wanted || requests == 0) && inFlight.size() < readsInFlight) {
          requests++;
          int asked = Math.min(wanted - sent, readRequestSize);
          long at = offset + sent;
          RequestHeaderProto.Builder request = ReadRequests.of(token, blockId, at, asked, time, clock.last());
          inFlight.add(new PendingRead(at, asked, connection.send(request, null, false)));
          sent += asked;
          sending = true;
        }
        if (sending) {
          connection.flush();
        }
        PendingRead next = inFlight.poll();
        if (next == null) {
          return new ReadResult(total, Math.max(blockLength, 0), resolved);
        }
        Frame<ResponseHeaderProto> frame = connection.await(next.call, timeoutMillis);
        try {
          if (ended) {
            continue;  // asked beyond the end: only awaited so the connection can be reused
          }
          ResponseHeaderProto header = frame.header();
          clock.observe(HlcTimestamp.fromProto(header.getHlc()));
          if (header.hasError()) {
            if (resolved != null && next.at >= blockLength) {
              ended = true;  // a request sent ahead past the block's end as of the time read
              continue;
            }
            throw FffsException.fromProto(header.getError());
          }
          ReadResponseProto response = header.getRead();
          ByteBuf payload = frame.payload();
          int got = payload.readableBytes();
          if (got > next.asked) {
            throw new FffsException(ErrorCode.INTERNAL, "DataNode " + connection.address() + " sent " + got
                + " bytes of block " + blockId + " for a read of " + next.asked);
          }
          verifyInto(payload, response, dst, blockId, next.at, connection.address());
          if (resolved == null) {
            resolved = HlcTimestamp.fromProto(response.getResolvedHlc());
            blockLength = response.getBlockLength();
          }
          total += got;
          ended = got < next.asked;
        } finally {
          frame.release();
        }
      }
    } finally {
      // After a failure, answers still to come are released as they arrive; the pool closes the connection.
      for (PendingRead left : inFlight) {
        left.call.thenAccept(Frame::release);
      }
      pool.release(connection);
    }
  }

  /**
   * A {@link NettyBlockReadStream} on a connection leased from the pool until the stream is closed: bytes
   * [offset, end) of the block, requests of {@code fffs.client.read.request-size} with up to
   * {@code fffs.client.read.requests-in-flight} on the wire.
   */
  @Override
  public BlockReadStream openStream(DatanodeIdProto datanode, long blockId, BlockToken token, long offset,
      long end, TimeSpec time) throws IOException {
    return new NettyBlockReadStream(pool, pool.acquire(addressOf(datanode)), clock, blockId, token, time, offset,
        end, readRequestSize, readsInFlight, timeoutMillis);
  }

  /** One READ request on the wire: block offset, bytes asked, and its answer to come. */
  private record PendingRead(long at, int asked, CompletableFuture<Frame<ResponseHeaderProto>> call) {}

  /**
   * Copies {@code payload} to {@code dst} while computing its chunk CRCs, piece by piece as it lies in the receive
   * buffers (each piece is checksummed while it is still in cache, then copied), and checks them against the
   * DataNode's. On a mismatch {@code dst}'s position is left where it was and the read fails with {@code CORRUPT}.
   */
  static void verifyInto(ByteBuf payload, ReadResponseProto response, ByteBuffer dst, long blockId,
      long offset, InetSocketAddress from) throws FffsException {
    int start = dst.position();
    ChunkChecksums sums = new ChunkChecksums(payload.readableBytes());
    for (ByteBuffer piece : payload.nioBuffers()) {
      sums.update(piece.duplicate());
      dst.put(piece);
    }
    FffsException corrupt = mismatch(sums, payload, response, blockId, offset, from);
    if (corrupt != null) {
      dst.position(start);
      throw corrupt;
    }
  }

  /** Checks {@code payload} (its readable bytes, not moved) against its chunk CRCs without copying it. */
  static void verify(ByteBuf payload, ReadResponseProto response, long blockId, long offset,
      InetSocketAddress from) throws FffsException {
    ChunkChecksums sums = new ChunkChecksums(payload.readableBytes());
    for (ByteBuffer piece : payload.nioBuffers()) {
      sums.update(piece);
    }
    FffsException corrupt = mismatch(sums, payload, response, blockId, offset, from);
    if (corrupt != null) {
      throw corrupt;
    }
  }

  /** {@code CORRUPT} naming the block and the first bad chunk's offset, or null when every checksum matches. */
  private static FffsException mismatch(ChunkChecksums sums, ByteBuf payload, ReadResponseProto response,
      long blockId, long offset, InetSocketAddress from) {
    int bad = ChunkChecksums.firstMismatch(sums.finish(), response.getChunkCrcs());
    if (bad < 0) {
      return null;
    }
    long at = offset + (long) bad * ChunkChecksums.CHUNK_BYTES;
    return new FffsException(ErrorCode.CORRUPT, "block " + blockId + " read from DataNode " + from
        + " failed its CRC32C check in the 512-byte chunk at offset " + at + " ("
        + ChunkChecksums.count(response.getChunkCrcs()) + " checksums for " + payload.readableBytes() + " bytes)");
  }

  @Override
  public BlockInfo blockInfo(DatanodeIdProto datanode, long blockId, BlockToken token, TimeSpec time)
      throws IOException {
    BlockInfoResponseProto info = simpleCall(datanode, withToken(token, RequestHeaderProto.newBuilder())
        .setOp(OpProto.BLOCK_INFO)
        .setBlockInfo(BlockInfoRequestProto.newBuilder().setBlockId(blockId).setTime(time.toProto())))
        .getBlockInfo();
    return new BlockInfo(info.getExists(), info.getLength(), HlcTimestamp.fromProto(info.getResolvedHlc()));
  }

  @Override
  public long truncate(DatanodeIdProto datanode, long blockId, BlockToken token, long newLength)
      throws IOException {
    return simpleCall(datanode, withToken(token, RequestHeaderProto.newBuilder()).setOp(OpProto.TRUNCATE)
        .setTruncate(TruncateBlockRequestProto.newBuilder().setBlockId(blockId).setNewLength(newLength)))
        .getWrite().getBlockLength();
  }

  @Override
  public HlcTimestamp sync(DatanodeIdProto datanode, Collection<Long> blockIds, Collection<BlockToken> tokens,
      Collection<Long> minLengths) throws IOException {
    RequestHeaderProto.Builder request = RequestHeaderProto.newBuilder();
    for (BlockToken token : tokens) {
      withToken(token, request);
    }
    ResponseHeaderProto response = simpleCall(datanode, request.setOp(OpProto.SYNC)
        .setSync(SyncRequestProto.newBuilder().addAllBlockIds(blockIds).addAllMinLengths(minLengths)));
    HlcTimestamp durable = HlcTimestamp.fromProto(response.getSync().getDurableHlc());
    clock.observe(durable);
    return durable;
  }

  /** Adds {@code token} (if any) to {@code request}. */
  static RequestHeaderProto.Builder withToken(BlockToken token, RequestHeaderProto.Builder request) {
    return token == null ? request : request.addTokens(token.toProto());
  }

  private ResponseHeaderProto simpleCall(DatanodeIdProto datanode, RequestHeaderProto.Builder request)
      throws IOException {
    DataConnection connection = pool.acquire(addressOf(datanode));
    try {
      Frame<ResponseHeaderProto> frame = call(connection, request);
      try {
        return checked(frame);
      } finally {
        frame.release();
      }
    } finally {
      pool.release(connection);
    }
  }

  private Frame<ResponseHeaderProto> call(DataConnection connection, RequestHeaderProto.Builder request)
      throws IOException {
    return connection.await(connection.send(request.setHlc(clock.last().toProto()), null, true), timeoutMillis);
  }

  /** Observes the response's HLC; throws its error as the {@link FffsException} it stands for. */
  private ResponseHeaderProto checked(Frame<ResponseHeaderProto> frame) throws FffsException {
    ResponseHeaderProto response = frame.header();
    clock.observe(HlcTimestamp.fromProto(response.getHlc()));
    if (response.hasError()) {
      throw FffsException.fromProto(response.getError());
    }
    return response;
  }

  public HybridLogicalClock clock() {
    return clock;
  }

  /** This client's connections to DataNodes. */
  public ConnectionPool connections() {
    return pool;
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      pool.close();
      EventLoops.releaseShared();
    }
  }
}
