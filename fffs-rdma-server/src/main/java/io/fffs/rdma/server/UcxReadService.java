package io.fffs.rdma.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.ReadRequestProto;
import io.fffs.common.proto.DataTransferProtos.ReadResponseProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.server.Responses;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.ReadView;
import io.fffs.protocol.frame.ChunkChecksums;
import io.fffs.rdma.RegisteredBuffers;
import io.fffs.rdma.SideChannelFormat.Descriptor;
import io.fffs.rdma.UcxWorkerLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The UCX read path of a DataNode, on a pool of handler threads (a read may wait for the clock to pass its time):
 * resolves the {@link ReadView} as on TCP, then PUTs its runs of contiguous pages straight from the registered arena
 * files ({@link MappedFiles}) into the client's registered buffer — one PUT per run, at most
 * {@code fffs.rdma.sg-entries} issued before the endpoint is flushed and waited for. Runs of evicted pages (in
 * segment files on disk) go through a registered staging buffer. Only after the last flush completed (the bytes are
 * in the client's memory, not just sent) does the response go out on the side channel, with a CRC32C per 512-byte
 * chunk computed from the same bytes, the block length and resolved HLC, and the DataNode's HLC; the client checks
 * the CRCs as it does on TCP. Errors are the store's, typed, and nothing is PUT.
 */
final class UcxReadService {
  private static final Logger LOG = LoggerFactory.getLogger(UcxReadService.class);

  private final BlockStore store;
  private final HybridLogicalClock clock;
  private final ExecutorService handlers;
  private final UcxWorkerLoop loop;
  private final MappedFiles arena;
  private final RegisteredBuffers staging;
  private final int sgEntries;
  private final long timeoutMillis;

  UcxReadService(BlockStore store, HybridLogicalClock clock, ExecutorService handlers, UcxWorkerLoop loop,
      MappedFiles arena, RegisteredBuffers staging, int sgEntries, long timeoutMillis) {
    this.store = store;
    this.clock = clock;
    this.handlers = handlers;
    this.loop = loop;
    this.arena = arena;
    this.staging = staging;
    this.sgEntries = sgEntries;
    this.timeoutMillis = timeoutMillis;
  }

  void submit(UcxPeer peer, RequestHeaderProto request, Descriptor where) {
    try {
      handlers.execute(() -> serve(peer, request, where));
    } catch (RejectedExecutionException e) {
      respond(peer, ResponseHeaderProto.newBuilder().setCallId(request.getCallId()).setError(
          new FffsException(ErrorCode.IO_ERROR, "the DataNode is shutting down").toProto()));
    }
  }

  private void serve(UcxPeer peer, RequestHeaderProto request, Descriptor where) {
    ResponseHeaderProto.Builder response = ResponseHeaderProto.newBuilder().setCallId(request.getCallId());
    try {
      clock.mergeIfWithinOffset(HlcTimestamp.fromWire(request.getHlc()));
      if (!request.hasRead()) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a READ request without its read fields");
      }
      ReadRequestProto read = request.getRead();
      if (read.getLength() > where.length()) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a read of " + read.getLength() + " bytes into a"
            + " registered buffer of " + where.length());
      }
      try (ReadView view = store.read(read.getBlockId(), read.getOffset(), read.getLength(),
          TimeSpec.fromWire(read.getTime()))) {
        ReadResponseProto.Builder body = ReadResponseProto.newBuilder().setBlockLength(view.blockLength())
            .setResolvedHlc(view.hlc().toProto()).setChunkCrcs(ChunkChecksums.toWire(put(peer, view, where)));
        response.setRead(body);
      }
    } catch (IOException | RuntimeException e) {
      FffsException failure = e instanceof FffsException ? (FffsException) e
          : new FffsException(ErrorCode.IO_ERROR, "the DataNode failed a UCX read for "
              + peer.channel.remoteAddress() + ": " + (peer.brokenReason() != null ? peer.brokenReason() : e));
      if (e instanceof RuntimeException) {
        LOG.error("UCX read from {} failed unexpectedly", peer.channel.remoteAddress(), e);
      }
      response.clearRead().setError(failure.toProto());
    }
    respond(peer, response);
  }

  private void respond(UcxPeer peer, ResponseHeaderProto.Builder response) {
    Responses.send(peer.channel, response.setHlc(clock.now().toProto()).build(), true);
  }

  /**
   * PUTs the view's bytes to {@code where}; returns their chunk CRCs once they are in the client's memory. The
   * CRCs of a batch of in-memory runs are computed while its PUTs are on their way (arena pages never change).
   */
  private int[] put(UcxPeer peer, ReadView view, Descriptor where) throws IOException, FffsException {
    ChunkChecksums sums = new ChunkChecksums(view.length());
    List<long[]> batch = new ArrayList<>(sgEntries);
    List<ByteBuffer> batchBytes = new ArrayList<>(sgEntries);
    long remote = where.address();
    for (ReadView.Run run : view.runs()) {
      if (run.inMemory()) {
        MappedFiles.Mapped file = arena.of(run.channel());
        batchBytes.add(file.bytes().slice((int) run.position(), run.length()));
        batch.add(new long[] {file.address() + run.position(), run.length(), remote});
        if (batch.size() == sgEntries) {
          putBatch(peer, batch, batchBytes, where.rkey(), sums);
        }
      } else {
        putBatch(peer, batch, batchBytes, where.rkey(), sums);
        putThroughStaging(peer, run, remote, where.rkey(), sums);
      }
      remote += run.length();
    }
    putBatch(peer, batch, batchBytes, where.rkey(), sums);
    return sums.finish();
  }

  /** PUTs the batch, checksums its bytes meanwhile, waits for the PUTs and empties the batch. */
  private void putBatch(UcxPeer peer, List<long[]> batch, List<ByteBuffer> bytes, ByteBuffer rkey,
      ChunkChecksums sums) throws IOException {
    CompletableFuture<Void> done = putAndFlush(peer, batch, rkey);
    for (ByteBuffer run : bytes) {
      sums.update(run);
    }
    await(done);
    batch.clear();
    bytes.clear();
  }

  /** PUTs a run of evicted pages the store loaded and checked, through a registered staging buffer. */
  private void putThroughStaging(UcxPeer peer, ReadView.Run run, long remote, ByteBuffer rkey,
      ChunkChecksums sums) throws IOException {
    RegisteredBuffers.Slot slot = staging.take(timeoutMillis, "a read of evicted pages");
    try {
      ByteBuffer bytes = run.bytes();
      while (bytes.hasRemaining()) {
        int n = Math.min(slot.bytes().capacity(), bytes.remaining());
        ByteBuffer piece = slot.bytes().duplicate().clear().limit(n);
        int at = bytes.position();
        piece.put(bytes.duplicate().limit(at + n));
        bytes.position(at + n);
        sums.update(piece.flip());
        List<long[]> one = new ArrayList<>(1);
        one.add(new long[] {slot.address(), n, remote + at});
        await(putAndFlush(peer, one, rkey));
      }
    } finally {
      staging.give(slot);
    }
  }

  /** On the worker loop: one PUT per {local, length, remote} and a flush; completes when the flush does. */
  private CompletableFuture<Void> putAndFlush(UcxPeer peer, List<long[]> ops, ByteBuffer rkey) {
    if (ops.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<long[]> copy = List.copyOf(ops);
    return loop.call(() -> {
      UcpEndpoint endpoint = peer.endpoint();
      UcpRemoteKey key = peer.rkey(rkey);
      List<CompletableFuture<Void>> all = new ArrayList<>(copy.size() + 1);
      for (long[] op : copy) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        UcxCallback callback = loop.track(done, "PUT of " + op[1] + " bytes");
        UcpRequest request = endpoint.putNonBlocking(op[0], op[1], op[2], key, callback);
        UcxWorkerLoop.issued(request, callback);
        all.add(done);
      }
      CompletableFuture<Void> flushed = new CompletableFuture<>();
      UcxCallback callback = loop.track(flushed, "flush");
      UcxWorkerLoop.issued(endpoint.flushNonBlocking(callback), callback);
      all.add(flushed);
      return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]));
    }).thenCompose(f -> f);
  }

  private void await(CompletableFuture<Void> done) throws IOException {
    try {
      done.get(timeoutMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted waiting for a UCX PUT");
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IOException(e.getCause().getMessage(), e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IOException("a UCX PUT did not complete within " + timeoutMillis + " ms");
    }
  }
}
