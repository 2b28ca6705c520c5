package io.fffs.datanode.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import io.fffs.common.proto.DataTransferProtos.BlockInfoResponseProto;
import io.fffs.common.proto.DataTransferProtos.LocalExtentProto;
import io.fffs.common.proto.DataTransferProtos.LocalReadResponseProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.ReadRequestProto;
import io.fffs.common.proto.DataTransferProtos.ReadResponseProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.SyncRequestProto;
import io.fffs.common.proto.DataTransferProtos.SyncResponseProto;
import io.fffs.common.proto.DataTransferProtos.TransferBlockRequestProto;
import io.fffs.common.proto.DataTransferProtos.TruncateBlockRequestProto;
import io.fffs.datanode.replication.BlockTransfer;
import io.fffs.datanode.replication.LogListing;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.BlockInfo;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.LocalView;
import io.fffs.datanode.store.ReadView;
import io.fffs.datanode.store.ReplicaRole;
import io.fffs.datanode.store.WriteResult;
import io.fffs.protocol.frame.ChunkChecksums;
import io.fffs.protocol.frame.FrameFormat;
import io.netty.channel.Channel;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.ssl.SslHandler;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * READ, LOCAL_READ (where a READ's bytes are, for a short-circuit reader on this host), BLOCK_INFO, BLOCK_CHECKSUM
 * ({@link BlockChecksums}), BLOCK_LOG, SYNC, TRUNCATE and the pipeline's REPLICA_OPEN and REPLICA_END, served on a
 * pool of handler threads because they may wait: for the clock to pass a time (at most the max offset) or for the
 * disk. A READ answer is the header, with a CRC32C per 512-byte chunk of the payload (mostly those its runs carry,
 * {@link ReadView#chunkCrcs()}), followed by the view's runs: arena pages and evicted pages the store loaded and
 * checked with plain writes, and evicted pages an earlier read checked from a mapping of their segment file
 * ({@link BlockStore#readForSending}); the whole frame is written in one event-loop task so it never interleaves
 * with an ack, and the view (which pins its pages) is closed once the last run is on the wire.
 */
final class QueryService {
  private static final Logger LOG = LoggerFactory.getLogger(QueryService.class);
  /**
   * Views of at most this many bytes, all in memory, are checksummed by the event loop right before it writes them:
   * the copy into the socket then reads pages the CRC pass just brought into that core's cache (2 MiB of L2 here),
   * where from a handler thread they came cold, from another core. Larger views are checksummed by the handler.
   */
  private static final int CHECKSUM_ON_EVENT_LOOP_BYTES = 1 << 20;

  private final BlockStore store;
  private final WriteRules rules;
  private final HybridLogicalClock clock;
  private final ExecutorService handlers;
  private final DataServerStats stats;
  private final int maxPayload;
  private final ReadGate gate;
  private final BlockTransfer transfers;
  private final boolean shortCircuit;
  private final BlockChecksums checksums;

  QueryService(BlockStore store, WriteRules rules, ExecutorService handlers, DataServerStats stats,
      int maxPayload, ReadGate gate, BlockTransfer transfers, boolean shortCircuit) {
    this.transfers = transfers;
    this.shortCircuit = shortCircuit;
    this.gate = gate;
    this.checksums = new BlockChecksums(store, gate);
    this.store = store;
    this.rules = rules;
    this.clock = rules.clock();
    this.handlers = handlers;
    this.stats = stats;
    this.maxPayload = maxPayload;
  }

  void submit(Channel channel, RequestHeaderProto request) {
    try {
      handlers.execute(() -> serve(channel, request));
    } catch (RejectedExecutionException e) {
      refuse(channel, request, new FffsException(ErrorCode.IO_ERROR, "the DataNode is shutting down"));
    }
  }

  private void serve(Channel channel, RequestHeaderProto request) {
    ResponseHeaderProto.Builder response = ResponseHeaderProto.newBuilder().setCallId(request.getCallId());
    try {
      if (request.getOp() == OpProto.TRUNCATE || request.getOp() == OpProto.REPLICA_OPEN
          || request.getOp() == OpProto.TRANSFER_BLOCK
          || request.getOp() == OpProto.REPLICA_END) {
        clock.merge(HlcTimestamp.fromWire(request.getHlc()));  // a change: a skewed caller is refused
      } else {
        clock.mergeIfWithinOffset(HlcTimestamp.fromWire(request.getHlc()));  // a read is served regardless
      }
      switch (request.getOp()) {
        case READ:
          read(channel, request);
          return;
        case LOCAL_READ:
          response.setLocalRead(localRead(request));
          break;
        case BLOCK_INFO:
          require(request.hasBlockInfo(), request);
          BlockInfo info = store.info(request.getBlockInfo().getBlockId(),
              TimeSpec.fromWire(request.getBlockInfo().getTime()));
          response.setBlockInfo(BlockInfoResponseProto.newBuilder().setExists(info.exists())
              .setLength(info.length()).setResolvedHlc(info.hlc().toProto()));
          break;
        case BLOCK_CHECKSUM:
          require(request.hasBlockChecksum(), request);
          response.setBlockChecksum(checksums.compute(request.getBlockChecksum()));
          break;
        case BLOCK_LOG:
          require(request.hasBlockLog(), request);
          response.setBlockLog(LogListing.list(store, request.getBlockLog()));
          break;
        case SYNC:
          require(request.hasSync(), request);
          store.sync(request.getSync().getBlockIdsList());
          checkLengths(request.getSync());
          response.setSync(SyncResponseProto.newBuilder().setDurableHlc(store.durableFrontier().toProto()));
          break;
        case TRUNCATE:
          // The file is closed at the NameNode before its blocks are cut, so no writer races with this.
          require(request.hasTruncate(), request);
          TruncateBlockRequestProto truncate = request.getTruncate();
          store.checkPipelineEpoch(truncate.getBlockId(), truncate.getPipelineEpoch());
          WriteResult cut = truncate.hasReplica()
              ? store.truncate(truncate.getBlockId(), truncate.getNewLength(), WriteRules.stamp(truncate.getReplica()))
              : store.truncate(truncate.getBlockId(), truncate.getNewLength());
          rules.changed(truncate.getBlockId(), cut);
          response.setWrite(WriteRules.written(cut));
          break;
        case REPLICA_OPEN:
          require(request.hasReplicaOpen(), request);
          store.openReplica(request.getReplicaOpen().getBlockId(),
              ReplicaRole.valueOf(request.getReplicaOpen().getRole().name()), request.getReplicaOpen().getEpoch(),
              request.getReplicaOpen().hasKept() ? MomentSet.fromProto(request.getReplicaOpen().getKept()) : null);
          rules.standingChanged(request.getReplicaOpen().getBlockId());
          break;
        case TRANSFER_BLOCK:
          require(request.hasTransferBlock(), request);
          TransferBlockRequestProto transfer = request.getTransferBlock();
          HlcTimestamp.checkWire(transfer.getAfterHlc(), "the transfer's last entry");
          if (!WriteRules.isPort(transfer.getTargetDataPort())) {
            throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a TRANSFER_BLOCK to port "
                + Integer.toUnsignedString(transfer.getTargetDataPort()) + ", which is no port");
          }
          try {
            transfers.copy(transfer.getBlockId(), transfer.getTargetHost(), transfer.getTargetDataPort(),
                request.getTokensCount() > 0 ? request.getTokens(0) : null, transfer.getAfterHlc());
          } catch (FffsException e) {
            throw e;
          } catch (java.io.IOException e) {
            throw new FffsException(ErrorCode.IO_ERROR, "copying block " + transfer.getBlockId() + " to "
                + transfer.getTargetHost() + ":" + transfer.getTargetDataPort() + " failed: " + e.getMessage(), e);
          }
          break;
        case REPLICA_END:
          require(request.hasReplicaEnd(), request);
          store.checkPipelineEpoch(request.getReplicaEnd().getBlockId(), request.getReplicaEnd().getEpoch());
          store.endReplica(request.getReplicaEnd().getBlockId(),
              HlcTimestamp.fromWire(request.getReplicaEnd().getFrontierHlc()));
          rules.standingChanged(request.getReplicaEnd().getBlockId());
          break;
        default:
          throw new FffsException(ErrorCode.INVALID_ARGUMENT, "operation " + request.getOp() + " is not a query");
      }
      Responses.send(channel, response.setHlc(clock.now().toProto()).build(), true);
    } catch (FffsException | RuntimeException e) {
      if (!(e instanceof FffsException)) {
        LOG.error("{} from {} failed unexpectedly", request.getOp(), channel.remoteAddress(), e);
      }
      refuse(channel, request, Responses.typed(e, "serving " + request.getOp()));
    }
  }

  void refuse(Channel channel, RequestHeaderProto request, FffsException failure) {
    stats.queriesRefused.increment();
    Responses.send(channel, ResponseHeaderProto.newBuilder().setCallId(request.getCallId())
        .setError(failure.toProto()).setHlc(clock.now().toProto()).build(), true);
  }

  private static void require(boolean present, RequestHeaderProto request) throws FffsException {
    if (!present) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a " + request.getOp() + " request without its "
          + request.getOp().name().toLowerCase(java.util.Locale.ROOT) + " fields");
    }
  }

  private void read(Channel channel, RequestHeaderProto request) throws FffsException {
    require(request.hasRead(), request);
    ReadRequestProto read = request.getRead();
    if (read.getLength() > maxPayload) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a read of " + read.getLength() + " bytes exceeds the "
          + maxPayload + " bytes one frame can carry; read in smaller pieces");
    }
    gate.enterRead();
    ReadView view;
    try {
      TimeSpec time = TimeSpec.fromWire(read.getTime());
      // TLS encrypts in Java: its pages must be checked copies, never a mapping a disk error would fault in Java
      view = channel.pipeline().get(SslHandler.class) == null
          ? store.readForSending(read.getBlockId(), read.getOffset(), read.getLength(), time)
          : store.read(read.getBlockId(), read.getOffset(), read.getLength(), time);
    } catch (FffsException | RuntimeException e) {
      gate.exitRead();
      throw e;
    }
    Runnable release = () -> {
      view.close();
      gate.exitRead();
    };
    // Counted before the answer is handed over, so a client that has it finds it counted; taken back if refused.
    int length = view.length();
    stats.reads.increment();
    stats.readBytes.add(length);
    try {
      if (length <= CHECKSUM_ON_EVENT_LOOP_BYTES && view.runs().stream().allMatch(ReadView.Run::inMemory)) {
        // Checksummed on the event loop just before the write, so the socket copy finds the pages in its cache.
        channel.eventLoop().execute(() -> {
          ResponseHeaderProto header;
          try {
            header = header(request, view, view.chunkCrcs());
          } catch (RuntimeException e) {
            uncount(length);
            release.run();
            refuse(channel, request, Responses.typed(e, "serving READ"));
            return;
          }
          sendRuns(channel, header, view, release, stats);
        });
      } else {
        ResponseHeaderProto header = header(request, view, view.chunkCrcs());
        channel.eventLoop().execute(() -> sendRuns(channel, header, view, release, stats));
      }
    } catch (RuntimeException e) {
      uncount(length);
      release.run();
      throw e;
    }
  }

  /** Takes back a READ counted before its answer was refused. */
  private void uncount(int length) {
    stats.reads.decrement();
    stats.readBytes.add(-length);
  }

  /** Where the bytes of a READ are in this DataNode's files, for a short-circuit reader on this host. */
  private LocalReadResponseProto localRead(RequestHeaderProto request) throws FffsException {
    if (!shortCircuit) {
      throw new FffsException(ErrorCode.UNSUPPORTED, "this DataNode serves no short-circuit reads ("
          + DataNodeServiceConfigKeys.SHORT_CIRCUIT_KEY + "=false); read through its data port");
    }
    require(request.hasRead(), request);
    ReadRequestProto read = request.getRead();
    if (read.getLength() > maxPayload) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a short-circuit read of " + read.getLength()
          + " bytes exceeds the " + maxPayload + " bytes one read may ask for; ask in smaller pieces");
    }
    LocalView view = store.locate(read.getBlockId(), read.getOffset(), read.getLength(),
        TimeSpec.fromWire(read.getTime()));
    LocalReadResponseProto.Builder answer = LocalReadResponseProto.newBuilder().setBlockLength(view.blockLength())
        .setResolvedHlc(view.hlc().toProto()).setArenaEpochFile(view.epochFile().toAbsolutePath().toString())
        .setArenaInstance(view.instance());
    for (LocalView.Extent extent : view.extents()) {
      LocalExtentProto.Builder e = answer.addExtentsBuilder().setPath(extent.path().toAbsolutePath().toString())
          .setPosition(extent.position()).setLength(extent.length());
      if (extent.inArena()) {
        e.setFirstSeq(extent.firstSeq());
      } else {
        e.setSkip(extent.skip()).setPages(extent.pages()).setCrcsAt(extent.crcsAt()).setPageSize(extent.pageSize());
      }
    }
    stats.localReads.increment();
    return answer.build();
  }

  private ResponseHeaderProto header(RequestHeaderProto request, ReadView view, int[] crcs) {
    ReadResponseProto.Builder body = ReadResponseProto.newBuilder().setBlockLength(view.blockLength())
        .setResolvedHlc(view.hlc().toProto()).setChunkCrcs(ChunkChecksums.toWire(crcs));
    return ResponseHeaderProto.newBuilder().setCallId(request.getCallId()).setHlc(clock.now().toProto())
        .setRead(body).build();
  }

  /**
   * Event loop: the header, then each run, then {@code release} closes the view (and lets the {@link ReadGate}
   * know) once everything is flushed. Every run goes out with a plain write, which the kernel copies before the flush
   * completes: after that the view may be closed, its arena slots reused and its loaded buffer taken by the next
   * read (sendfile would keep referencing an arena page until the peer read it). Runs in a segment file are written
   * from a read-only mapping ({@link SegmentRunMaps}); only where none can be made do they go out with sendfile
   * ({@link SegmentRegion}: a record's bytes never change while its file exists, and the view holds the file until
   * they are flushed). On loopback sendfile cost both the DataNode and the reader more CPU per byte than a write
   * from a mapping (docs/benchmarks.md, "How evicted data is read"). A page the disk cannot read fails the write
   * (EFAULT), which closes the connection.
   */
  private static void sendRuns(Channel channel, ResponseHeaderProto header, ReadView view, Runnable release,
      DataServerStats stats) {
    SegmentRunMaps maps = new SegmentRunMaps(stats);
    Runnable done = () -> {
      maps.unmapAll();
      release.run();
    };
    try {
      channel.write(FrameFormat.prefix(channel.alloc(), header, view.length()), channel.voidPromise());
      for (ReadView.Run run : view.runs()) {
        ByteBuffer bytes = run.inFile() ? maps.map(run) : run.bytes();
        if (bytes != null) {
          channel.write(io.netty.buffer.Unpooled.wrappedBuffer(bytes), channel.voidPromise());
        } else {
          stats.readRunsSentWithSendfile.increment();
          channel.write(new SegmentRegion(run.channel(), run.position(), run.length()), channel.voidPromise());
        }
      }
    } catch (Throwable e) {
      // Part of a frame is queued: the connection cannot go on. Closing it drops what is queued, then the view goes.
      LOG.error("sending a READ answer to {} failed; closing the connection", channel.remoteAddress(), e);
      channel.close().addListener(closed -> done.run());
      return;
    }
    channel.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(flushed -> done.run());
  }

  /**
   * A stretch of a segment file for {@code sendfile}, whose channel is the store's: released without closing it
   * (Netty's own region closes its file).
   */
  private static final class SegmentRegion extends DefaultFileRegion {
    SegmentRegion(FileChannel file, long position, long count) {
      super(file, position, count);
    }

    @Override
    protected void deallocate() {
      // the channel belongs to the store's SegmentPageReader
    }
  }

  /**
   * A SYNC that carries the lengths its writer sent: every block must hold at least that many bytes, or this
   * DataNode lost acknowledged writes (a restart before they were durable) and must not report them durable.
   */
  private void checkLengths(SyncRequestProto sync) throws FffsException {
    if (sync.getMinLengthsCount() == 0) {
      return;
    }
    if (sync.getMinLengthsCount() != sync.getBlockIdsCount()) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a SYNC of " + sync.getBlockIdsCount() + " blocks with "
          + sync.getMinLengthsCount() + " lengths; send one length per block, or none");
    }
    for (int i = 0; i < sync.getBlockIdsCount(); i++) {
      long blockId = sync.getBlockIds(i);
      BlockInfo info = store.info(blockId, TimeSpec.latest());
      long held = info.exists() ? info.length() : 0;
      if (held < sync.getMinLengths(i)) {
        throw new FffsException(ErrorCode.IO_ERROR, "block " + blockId + " holds " + held + " bytes on this"
            + " DataNode but its writer sent " + sync.getMinLengths(i) + ": the DataNode lost writes that were"
            + " acknowledged but not yet durable (it restarted), or the block was deleted; write them again");
      }
    }
  }
}
