package io.fffs.client.data;

import io.fffs.client.data.netty.NettyTransport;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.BlockChecksumRequestProto;
import io.fffs.common.proto.DataTransferProtos.BlockChecksumResponseProto;
import io.fffs.common.proto.DataTransferProtos.BlockInfoRequestProto;
import io.fffs.common.proto.DataTransferProtos.BlockInfoResponseProto;
import io.fffs.common.proto.DataTransferProtos.BlockLogRequestProto;
import io.fffs.common.proto.DataTransferProtos.BlockLogResponseProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaStampProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.SyncRequestProto;
import io.fffs.common.proto.DataTransferProtos.TruncateBlockRequestProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.transport.TransportSelection;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.protocol.DataTransferTls;
import io.fffs.protocol.transport.DataChannel;
import io.fffs.protocol.transport.DataTransport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data-transfer client, written once over the transport seam ({@link DataChannel}): block writes
 * ({@link PacketWriter}), reads ({@link PipelinedRead}) and read streams ({@link PipelinedReadStream}) go over the
 * data transport — UCX where a provider was chosen and the DataNode agrees, else TCP — and the requests without
 * payload (BLOCK_INFO, SYNC, TRUNCATE) over TCP. Requests carry the client clock's largest HLC and every answer's
 * HLCs are taken into it unless beyond the max offset ({@link DataNodeClocks}: an answer to a read is used without
 * its HLC, one to a change is refused); reads are checked end to end against the DataNode's chunk CRCs. Reads of a
 * replica on this host copy the bytes from its DataNode's files instead ({@link ShortCircuit}) unless that is turned
 * off; their LOCAL_READ requests go over plain blocking connections ({@link BlockingCalls}) where the data port runs
 * without TLS. Data-port reads over TCP without TLS go over plain sockets the reading thread serves itself
 * ({@link PlainSocketReads}). The TCP transport (Netty's event loops and buffer pools) is started on first use, so a
 * fresh client that only reads never pays for it. Thread-safe.
 */
final class ChannelDataTransferClient implements DataTransferClient {
  private static final Logger LOG = LoggerFactory.getLogger(ChannelDataTransferClient.class);

  /** Starts the TCP transport. */
  @FunctionalInterface
  interface TcpFactory {
    NettyTransport start() throws FffsException;
  }

  private final HybridLogicalClock clock;
  private final DataNodeClocks clocks;
  private final TcpFactory tcpFactory;
  /** The TCP transport once started; guarded by this. */
  private NettyTransport tcp;
  /** LOCAL_READ requests without Netty; null where the data port runs TLS (they go over {@link #tcp}). */
  private final BlockingCalls blocking;
  /** The transport for block data, or null for TCP. */
  private final DataTransport data;
  private final int window;
  private final int packetSize;
  private final int flushBytes;
  private final int readRequestSize;
  private final int streamRequestSize;
  private final int readsInFlight;
  private final boolean latencyMode;
  /** Replicated blocks are written as a chain (else by fan-out from here). */
  private final boolean chain;
  private final long timeoutMillis;
  /** How long a chain member waits for the next (sent with each chained packet). */
  private final long chainTimeoutMillis;
  private final AtomicLong nextStreamId = new AtomicLong(1);
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Reads of replicas on this host through their DataNode's files; null when off. */
  private final ShortCircuit shortCircuit;
  /** Data-port reads over plain sockets ({@code fffs.client.read.plain-sockets}); null: over the data transport. */
  private final PlainSocketReads plainReads;

  /** Owns both transports from now on (closes them). */
  ChannelDataTransferClient(Configuration conf, HybridLogicalClock clock, NettyTransport tcp, DataTransport data) {
    this(conf, clock, null, tcp, data);
  }

  /** Starts the TCP transport with {@code tcpFactory} on first use; owns both transports (closes them). */
  ChannelDataTransferClient(Configuration conf, HybridLogicalClock clock, TcpFactory tcpFactory, DataTransport data) {
    this(conf, clock, tcpFactory, null, data);
  }

  private ChannelDataTransferClient(Configuration conf, HybridLogicalClock clock, TcpFactory tcpFactory,
      NettyTransport tcp, DataTransport data) {
    this.clock = clock;
    this.clocks = new DataNodeClocks(clock);
    this.tcpFactory = tcpFactory;
    this.tcp = tcp;
    this.data = data;
    this.window = DataTransferConfigKeys.writeWindow(conf);
    this.packetSize = DataTransferConfigKeys.writePacketSize(conf);
    this.flushBytes = DataTransferConfigKeys.writeFlushBytes(conf);
    this.readRequestSize = DataTransferConfigKeys.readRequestSize(conf);
    this.streamRequestSize = DataTransferConfigKeys.readStreamRequestSize(conf);
    this.readsInFlight = DataTransferConfigKeys.readRequestsInFlight(conf);
    this.latencyMode = DataTransferConfigKeys.latencyMode(conf);
    this.chain = DataTransferConfigKeys.chainPipeline(conf) && data == null
        && !io.fffs.protocol.DataTransferTls.enabled(conf);
    this.timeoutMillis = DataTransferConfigKeys.responseTimeoutMillis(conf);
    this.chainTimeoutMillis = DataTransferConfigKeys.chainTimeoutMillis(conf);
    this.shortCircuit = DataTransferConfigKeys.shortCircuit(conf)
        ? new ShortCircuit(DataTransferConfigKeys.shortCircuitRequestSize(conf),
            DataTransferConfigKeys.shortCircuitDirectIo(conf), this::localCall) : null;
    this.blocking = shortCircuit != null && !DataTransferTls.enabled(conf)
        ? new BlockingCalls(timeoutMillis, DataTransferConfigKeys.maxFrameSize(conf)) : null;
    this.plainReads = data == null && !DataTransferTls.enabled(conf) && DataTransferConfigKeys.readPlainSockets(conf)
        ? new PlainSocketReads(DataTransferConfigKeys.connectTimeoutMillis(conf), timeoutMillis,
            DataTransferConfigKeys.maxFrameSize(conf), DataTransferConfigKeys.maxIdleConnections(conf)) : null;
  }

  /** The TCP transport, started now if it was not. */
  private synchronized NettyTransport tcp() throws IOException {
    if (tcp == null) {
      if (closed.get()) {
        throw new IOException("the data-transfer client is closed");
      }
      tcp = tcpFactory.start();
    }
    return tcp;
  }

  /** A channel for block data to {@code datanode}: over the data transport if it reaches it, else over TCP. */
  private DataChannel channel(DatanodeIdProto datanode) throws IOException {
    DataChannel channel = data == null ? null : data.open(datanode);
    return channel != null ? channel : tcp().open(datanode);
  }

  /** A channel for READs from {@code datanode}: a plain socket where they are on, else {@link #channel}. */
  private DataChannel readChannel(DatanodeIdProto datanode) throws IOException {
    return plainReads != null ? plainReads.open(datanode) : channel(datanode);
  }

  @Override
  public String transport() {
    return data != null ? data.name() : TransportSelection.TCP;
  }

  @Override
  public BlockWriter openWriter(DatanodeIdProto datanode, long blockId, BlockToken token, WriteOptions options)
      throws IOException {
    return packetWriter(datanode, blockId, token, options);
  }

  private PacketWriter packetWriter(DatanodeIdProto datanode, long blockId, BlockToken token, WriteOptions options)
      throws IOException {
    return new PacketWriter(channel(datanode), datanode, clocks, blockId, token, options,
        nextStreamId.getAndIncrement(), window, packetSize, flushBytes, latencyMode, timeoutMillis);
  }

  @Override
  public BlockWriter openWriter(List<DatanodeIdProto> datanodes, long blockId, BlockToken token,
      WriteOptions options) throws IOException {
    if (datanodes.size() == 1) {
      return packetWriter(datanodes.get(0), blockId, token, options);
    }
    return pipelineWriter(ReplicaPipeline.open(this::callWithinOffset, datanodes, blockId, token, clock), blockId,
        token, options);
  }

  @Override
  public BlockWriter promoteWriter(List<DatanodeIdProto> survivors, long blockId, BlockToken token,
      WriteOptions options, HlcTimestamp acknowledged) throws IOException {
    ReplicaPipeline pipeline = ReplicaPipeline.promote(this::callWithinOffset, survivors, blockId, token, clock,
        acknowledged);
    return pipelineWriter(pipeline, blockId, token, options);
  }

  private BlockWriter pipelineWriter(ReplicaPipeline pipeline, long blockId, BlockToken token, WriteOptions options)
      throws IOException {
    if (chain) {
      try {
        return new ChainBlockWriter(pipeline, clock, blockId, token, (links, current) -> {
          PacketWriter writer = packetWriter(pipeline.primary(), blockId, current, options);
          writer.pipelineEpoch(pipeline.epoch());
          writer.chain(links, chainTimeoutMillis);
          return writer;
        });
      } catch (IOException e) {
        List<DatanodeIdProto> members = pipeline.members();
        pipeline.end(members.subList(1, members.size()), clock.last());
        throw e;
      }
    }
    List<DatanodeIdProto> members = pipeline.members();
    List<PacketWriter> writers = new ArrayList<>(members.size());
    try {
      writers.add(packetWriter(members.get(0), blockId, token, options));
      for (DatanodeIdProto follower : members.subList(1, members.size())) {
        writers.add(packetWriter(follower, blockId, token, options));
      }
    } catch (IOException e) {
      for (PacketWriter writer : writers) {
        writer.close();
      }
      pipeline.end(members.subList(1, members.size()), clock.last());
      throw e;
    }
    for (PacketWriter writer : writers) {
      writer.pipelineEpoch(pipeline.epoch());
    }
    return new ReplicatedBlockWriter(pipeline, writers, clock, blockId, token, (datanode, current) -> {
      PacketWriter writer = packetWriter(datanode, blockId, current, options);
      writer.pipelineEpoch(pipeline.epoch());
      return writer;
    });
  }

  @Override
  public long truncate(List<DatanodeIdProto> datanodes, long blockId, BlockToken token, long newLength)
      throws IOException {
    if (datanodes.size() == 1) {
      return truncate(datanodes.get(0), blockId, token, newLength);
    }
    ReplicaPipeline pipeline = ReplicaPipeline.open(this::callWithinOffset, datanodes, blockId, token, clock);
    List<DatanodeIdProto> members = pipeline.members();
    List<DatanodeIdProto> followers = new ArrayList<>(members.subList(1, members.size()));
    try {
      RequestHeaderProto.Builder primaryCut = truncateRequest(token, blockId, newLength);
      primaryCut.getTruncateBuilder().setPipelineEpoch(pipeline.epoch());
      ResponseHeaderProto cut = callWithinOffset(pipeline.primary(), primaryCut);
      ReplicaStampProto stamp = ReplicaStampProto.newBuilder().setEntryHlc(cut.getWrite().getEntryHlc())
          .setUserTime(cut.getWrite().getUserTime()).setLengthAfter(cut.getWrite().getBlockLength())
          .setFrontierHlc(cut.getHlc()).build();
      for (DatanodeIdProto follower : List.copyOf(followers)) {
        try {
          RequestHeaderProto.Builder request = truncateRequest(token, blockId, newLength);
          request.getTruncateBuilder().setReplica(stamp).setPipelineEpoch(pipeline.epoch());
          callWithinOffset(follower, request);
        } catch (IOException e) {
          followers.remove(follower);
          LOG.warn("Could not cut block {} on DataNode {}: {}; that replica is stale from here on", blockId,
              ReplicaPipeline.address(follower), e.getMessage());
        }
      }
      return cut.getWrite().getBlockLength();
    } finally {
      pipeline.end(followers, clock.last());
    }
  }

  private static RequestHeaderProto.Builder truncateRequest(BlockToken token, long blockId, long newLength) {
    return RequestHeaders.withToken(token, RequestHeaderProto.newBuilder()).setOp(OpProto.TRUNCATE)
        .setTruncate(TruncateBlockRequestProto.newBuilder().setBlockId(blockId).setNewLength(newLength));
  }

  @Override
  public ReadResult read(DatanodeIdProto datanode, long blockId, BlockToken token, long offset, ByteBuffer dst,
      TimeSpec time) throws IOException {
    if (shortCircuit != null && shortCircuit.applies(datanode)) {
      return shortCircuit.read(datanode, blockId, token, offset, dst, time,
          (at, rest) -> socketRead(datanode, blockId, token, at, rest, time));
    }
    return socketRead(datanode, blockId, token, offset, dst, time);
  }

  private ReadResult socketRead(DatanodeIdProto datanode, long blockId, BlockToken token, long offset,
      ByteBuffer dst, TimeSpec time) throws IOException {
    DataChannel channel = readChannel(datanode);
    try {
      return new PipelinedRead(channel, datanode, clocks, readRequestSize, readsInFlight).read(blockId, token, offset,
          dst, time);
    } finally {
      channel.release();
    }
  }

  @Override
  public BlockReadStream openStream(DatanodeIdProto datanode, long blockId, BlockToken token, long offset,
      long end, TimeSpec time) throws IOException {
    if (shortCircuit != null && shortCircuit.applies(datanode)) {
      return new ShortCircuitStream(shortCircuit, datanode, blockId, token, time, offset, end,
          at -> new PipelinedReadStream(readChannel(datanode), datanode, clocks, blockId, token, time, at, end,
              readRequestSize, streamRequestSize, readsInFlight));
    }
    return new PipelinedReadStream(readChannel(datanode), datanode, clocks, blockId, token, time, offset, end,
        readRequestSize, streamRequestSize, readsInFlight);
  }

  @Override
  public boolean skewedAhead(DatanodeIdProto datanode) {
    return clocks.skewed(datanode);
  }

  @Override
  public ShortCircuitStats shortCircuitStats() {
    return shortCircuit == null ? null : shortCircuit.stats();
  }

  @Override
  public BlockInfo blockInfo(DatanodeIdProto datanode, long blockId, BlockToken token, TimeSpec time)
      throws IOException {
    BlockInfoResponseProto info = call(datanode, RequestHeaders.withToken(token, RequestHeaderProto.newBuilder())
        .setOp(OpProto.BLOCK_INFO)
        .setBlockInfo(BlockInfoRequestProto.newBuilder().setBlockId(blockId).setTime(time.toProto())))
        .getBlockInfo();
    return new BlockInfo(info.getExists(), info.getLength(), HlcTimestamp.fromProto(info.getResolvedHlc()));
  }

  @Override
  public BlockChecksumResponseProto blockChecksum(DatanodeIdProto datanode, long blockId, BlockToken token,
      long length, TimeSpec time) throws IOException {
    return call(datanode, RequestHeaders.withToken(token, RequestHeaderProto.newBuilder())
        .setOp(OpProto.BLOCK_CHECKSUM).setBlockChecksum(BlockChecksumRequestProto.newBuilder().setBlockId(blockId)
            .setLength(length).setTime(time.toProto()))).getBlockChecksum();
  }

  @Override
  public BlockLogResponseProto blockLog(DatanodeIdProto datanode, long blockId, BlockToken token, long afterHlc,
      long toHlc, int limit) throws IOException {
    return call(datanode, RequestHeaders.withToken(token, RequestHeaderProto.newBuilder()).setOp(OpProto.BLOCK_LOG)
        .setBlockLog(BlockLogRequestProto.newBuilder().setBlockId(blockId).setAfterHlc(afterHlc).setToHlc(toHlc)
            .setLimit(limit))).getBlockLog();
  }

  @Override
  public long truncate(DatanodeIdProto datanode, long blockId, BlockToken token, long newLength)
      throws IOException {
    return callWithinOffset(datanode, truncateRequest(token, blockId, newLength)).getWrite().getBlockLength();
  }

  @Override
  public HlcTimestamp sync(DatanodeIdProto datanode, Collection<Long> blockIds, Collection<BlockToken> tokens,
      Collection<Long> minLengths) throws IOException {
    RequestHeaderProto.Builder request = RequestHeaderProto.newBuilder();
    for (BlockToken token : tokens) {
      RequestHeaders.withToken(token, request);
    }
    ResponseHeaderProto response = callWithinOffset(datanode, request.setOp(OpProto.SYNC)
        .setSync(SyncRequestProto.newBuilder().addAllBlockIds(blockIds).addAllMinLengths(minLengths)));
    HlcTimestamp durable = HlcTimestamp.fromProto(response.getSync().getDurableHlc());
    clocks.observeChange(datanode, durable);
    return durable;
  }

  @Override
  public CompletableFuture<HlcTimestamp> syncAsync(DatanodeIdProto datanode, Collection<Long> blockIds,
      Collection<BlockToken> tokens, Collection<Long> minLengths) {
    RequestHeaderProto.Builder request = RequestHeaderProto.newBuilder();
    for (BlockToken token : tokens) {
      RequestHeaders.withToken(token, request);
    }
    request.setOp(OpProto.SYNC).setHlc(clock.last().toProto())
        .setSync(SyncRequestProto.newBuilder().addAllBlockIds(blockIds).addAllMinLengths(minLengths));
    NettyTransport transport;
    try {
      transport = tcp();
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    return transport.callAsync(datanode, request).orTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
        .thenApply(response -> {
          try {
            return durableHlc(datanode, response);
          } catch (FffsException e) {
            throw new CompletionException(e);
          }
        });
  }

  /** A SYNC's answer: its durable frontier, taken into the client clock, or its error. */
  private HlcTimestamp durableHlc(DatanodeIdProto datanode, ResponseHeaderProto response) throws FffsException {
    if (response.hasError()) {
      clocks.observeRead(datanode, HlcTimestamp.fromProto(response.getHlc()));
      throw FffsException.fromProto(response.getError());
    }
    clocks.observeChange(datanode, HlcTimestamp.fromProto(response.getHlc()));
    HlcTimestamp durable = HlcTimestamp.fromProto(response.getSync().getDurableHlc());
    clocks.observeChange(datanode, durable);
    return durable;
  }

  /**
   * A request that changes the DataNode (a cut, a sync, joining a pipeline): like {@link #call}, but an answer whose
   * HLC is more than the max offset ahead of this client's clock is refused ({@code CLOCK_SKEW}) before it is taken
   * in: a pipeline leaves that replica out rather than carry its clock to the others, which would refuse every write.
   * A refusal changed nothing: its HLC is taken in as a read's and its own error is thrown.
   */
  private ResponseHeaderProto callWithinOffset(DatanodeIdProto datanode, RequestHeaderProto.Builder request)
      throws IOException {
    ResponseHeaderProto response = tcp().call(datanode, request.setHlc(clock.last().toProto()));
    if (response.hasError()) {
      // A refusal changed nothing: its clock is taken in as a read's, and its own reason is the one to report.
      clocks.observeRead(datanode, HlcTimestamp.fromProto(response.getHlc()));
      throw FffsException.fromProto(response.getError());
    }
    clocks.observeChange(datanode, HlcTimestamp.fromProto(response.getHlc()));
    return response;
  }

  /**
   * One query without payload over TCP (BLOCK_INFO, BLOCK_LOG, LOCAL_READ); takes in the answer's HLC as a read's
   * ({@link DataNodeClocks#observeRead}) and throws its error, typed.
   */
  private ResponseHeaderProto call(DatanodeIdProto datanode, RequestHeaderProto.Builder request)
      throws IOException {
    return answered(datanode, tcp().call(datanode, request.setHlc(clock.last().toProto())));
  }

  /** A LOCAL_READ: over a blocking connection where there are, else as {@link #call}. */
  private ResponseHeaderProto localCall(DatanodeIdProto datanode, RequestHeaderProto.Builder request)
      throws IOException {
    return blocking == null ? call(datanode, request)
        : answered(datanode, blocking.call(datanode, request.setHlc(clock.last().toProto())));
  }

  /** Takes in the answer's HLC as a read's ({@link DataNodeClocks#observeRead}) and throws its error, typed. */
  private ResponseHeaderProto answered(DatanodeIdProto datanode, ResponseHeaderProto response)
      throws FffsException {
    clocks.observeRead(datanode, HlcTimestamp.fromProto(response.getHlc()));
    if (response.hasError()) {
      throw FffsException.fromProto(response.getError());
    }
    return response;
  }

  @Override
  public void close() throws IOException {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      if (shortCircuit != null) {
        shortCircuit.close();
      }
      if (blocking != null) {
        blocking.close();
      }
      if (plainReads != null) {
        plainReads.close();
      }
      if (data != null) {
        data.close();
      }
    } finally {
      synchronized (this) {
        if (tcp != null) {
          tcp.close();
        }
      }
    }
  }
}
