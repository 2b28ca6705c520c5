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
import io.fffs.common.proto.DataTransferProtos.ReadRequestProto;
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
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;

/**
 * The data-transfer client over Netty/TCP ({@link DataTransferConfigKeys}). Connections are pooled per DataNode
 * on the JVM-wide client event loops; requests carry the client clock's largest HLC and every response's HLCs are
 * observed into it. Reads are checked end to end: the DataNode sends a CRC32C per 512-byte chunk of what it read
 * and a mismatch is {@code CORRUPT} naming the block and offset. A read larger than one frame's payload is split
 * into several requests; at {@code latest} these may see different states if the block is written meanwhile (at a
 * system time they cannot).
 */
public final class NettyDataTransferClient implements DataTransferClient {
  private final HybridLogicalClock clock;
  private final ConnectionPool pool;
  private final int window;
  private final int packetSize;
  private final int maxReadBytes;
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
    this.maxReadBytes = DataTransferConfigKeys.maxPayload(conf);
    this.latencyMode = DataTransferConfigKeys.latencyMode(conf);
    this.timeoutMillis = DataTransferConfigKeys.responseTimeoutMillis(conf);
    this.pool = new ConnectionPool(EventLoops.acquireShared(), DataTransferConfigKeys.maxFrameSize(conf),
        DataTransferConfigKeys.maxIdleConnections(conf), latencyMode,
        DataTransferConfigKeys.connectTimeoutMillis(conf));
  }

  private InetSocketAddress addressOf(DatanodeIdProto datanode) {
    return addresses.computeIfAbsent(datanode.getHost() + ":" + datanode.getDataPort(),
        k -> new InetSocketAddress(datanode.getHost(), datanode.getDataPort()));
  }

  @Override
  public BlockWriter openWriter(DatanodeIdProto datanode, long blockId, BlockToken token, WriteOptions options)
      throws IOException {
    return new NettyBlockWriter(pool, pool.acquire(addressOf(datanode)), clock, blockId, token, options,
        nextStreamId.getAndIncrement(), window, packetSize, latencyMode, timeoutMillis);
  }

  @Override
  public ReadResult read(DatanodeIdProto datanode, long blockId, BlockToken token, long offset, ByteBuffer dst,
      TimeSpec time) throws IOException {
    DataConnection connection = pool.acquire(addressOf(datanode));
    try {
      int total = 0;
      long blockLength = 0;
      HlcTimestamp resolved = null;
      int wanted = dst.remaining();
      do {
        int asked = Math.min(wanted - total, maxReadBytes);
        long at = offset + total;
        Frame<ResponseHeaderProto> frame = call(connection, withToken(token, RequestHeaderProto.newBuilder())
            .setOp(OpProto.READ).setRead(ReadRequestProto.newBuilder().setBlockId(blockId).setOffset(at).setLength(asked)
                .setTime(time.toProto())));
        int got;
        try {
          ReadResponseProto response = checked(frame).getRead();
          ByteBuf payload = frame.payload();
          got = payload.readableBytes();
          if (got > asked) {
            throw new FffsException(ErrorCode.INTERNAL, "DataNode " + connection.address() + " sent " + got
                + " bytes of block " + blockId + " for a read of " + asked);
          }
          verify(payload, response, blockId, at, connection.address());
          payload.getBytes(payload.readerIndex(), dst.slice(dst.position(), got));
          dst.position(dst.position() + got);
          if (resolved == null) {
            resolved = HlcTimestamp.fromProto(response.getResolvedHlc());
            blockLength = response.getBlockLength();
          }
        } finally {
          frame.release();
        }
        total += got;
        if (got < asked) {
          break;
        }
      } while (total < wanted);
      return new ReadResult(total, blockLength, resolved);
    } finally {
      pool.release(connection);
    }
  }

  private static void verify(ByteBuf payload, ReadResponseProto response, long blockId, long offset,
      InetSocketAddress from) throws FffsException {
    int bad = ChunkChecksums.firstMismatch(payload.nioBuffer(), response.getChunkCrcsList());
    if (bad >= 0) {
      long at = offset + (long) bad * ChunkChecksums.CHUNK_BYTES;
      throw new FffsException(ErrorCode.CORRUPT, "block " + blockId + " read from DataNode " + from
          + " failed its CRC32C check in the 512-byte chunk at offset " + at + " ("
          + response.getChunkCrcsCount() + " checksums for " + payload.readableBytes() + " bytes)");
    }
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
  public HlcTimestamp sync(DatanodeIdProto datanode, Collection<Long> blockIds, Collection<BlockToken> tokens)
      throws IOException {
    RequestHeaderProto.Builder request = RequestHeaderProto.newBuilder();
    for (BlockToken token : tokens) {
      withToken(token, request);
    }
    ResponseHeaderProto response = simpleCall(datanode, request.setOp(OpProto.SYNC)
        .setSync(SyncRequestProto.newBuilder().addAllBlockIds(blockIds)));
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

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      pool.close();
      EventLoops.releaseShared();
    }
  }
}
