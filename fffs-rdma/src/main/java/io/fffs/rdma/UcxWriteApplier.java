package io.fffs.rdma;

import io.fffs.client.data.frame.ChunkChecksums;
import io.fffs.client.data.frame.FrameFormat;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.fffs.common.proto.DataTransferProtos.WriteResponseProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.datanode.server.WriteListener;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.PageReservation;
import io.fffs.datanode.store.WriteOptions;
import io.fffs.datanode.store.WriteResult;
import io.fffs.rdma.SideChannelFormat.Descriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The UCX write path of a DataNode: one-sided and DataNode-initiated. The applier thread ({@code fffs-ucx-writer})
 * takes the WRITEs of all side channels in arrival order — one thread, so a connection's writes are applied and
 * acknowledged in order — and for each one refuses it if its stream already failed or the NameNode said this node
 * is unhealthy, then:
 * <ul>
 *   <li><b>into the arena</b> (default, {@code fffs.rdma.datanode.write-into-arena}): merges the client's HLC
 *       ({@code CLOCK_SKEW}), reserves the arena pages the write will occupy ({@link PageReservation}: the store's
 *       checks run here, and the previous version's bytes are copied around an unaligned range), GETs the packet
 *       from the client's registered buffer straight into them — one GET per run of adjacent pages (a write has
 *       one run, or two where it straddles an arena file; the arena files are registered once,
 *       {@link MappedFiles}) — checks its CRC32C per 512-byte chunk on the pages and commits; any failure releases
 *       the pages, so nothing of the write becomes visible. (When a write has two faults this path may report
 *       a different one than TCP, which checks the CRCs first, on arrival.)</li>
 *   <li><b>staged</b> (the switch off, or a store that cannot reserve): the event loop takes a registered staging
 *       buffer on arrival, if one is free, and has the worker GET the packet into it at once, so fetches overlap;
 *       the applier waits for the bytes, checks the CRCs, merges the HLC and copies them in with
 *       {@code store.write}.</li>
 * </ul>
 * Either way the ack goes out on the side channel with the entry HLC, the block length and the DataNode's HLC —
 * the same checks and answers as the TCP path.
 */
final class UcxWriteApplier {
  private static final Logger LOG = LoggerFactory.getLogger(UcxWriteApplier.class);

  /** One WRITE between the event loop and the applier. */
  static final class Job {
    final UcxPeer peer;
    final long callId;
    final HlcProto hlc;
    final WriteRequestProto request;
    final Descriptor descriptor;
    final FffsException refusal;
    RegisteredBuffers.Slot slot;
    CompletableFuture<Void> fetched;

    Job(UcxPeer peer, long callId, HlcProto hlc, WriteRequestProto request, Descriptor descriptor,
        FffsException refusal) {
      this.peer = peer;
      this.callId = callId;
      this.hlc = hlc;
      this.request = request;
      this.descriptor = descriptor;
      this.refusal = refusal;
    }
  }

  private final BlockStore store;
  private final HybridLogicalClock clock;
  private final Supplier<String> unhealthyReason;
  private final WriteListener listener;
  private final UcxWorkerLoop loop;
  private final RegisteredBuffers staging;
  private final MappedFiles arena;
  private volatile boolean intoArena;
  private final long timeoutMillis;
  private final LinkedBlockingQueue<Job> queue = new LinkedBlockingQueue<>();
  private final Thread thread;
  private volatile boolean running = true;

  UcxWriteApplier(BlockStore store, HybridLogicalClock clock, Supplier<String> unhealthyReason,
      WriteListener listener, UcxWorkerLoop loop, RegisteredBuffers staging, MappedFiles arena, boolean intoArena,
      long timeoutMillis) {
    this.store = store;
    this.clock = clock;
    this.unhealthyReason = unhealthyReason;
    this.listener = listener;
    this.loop = loop;
    this.staging = staging;
    this.arena = arena;
    this.intoArena = intoArena;
    this.timeoutMillis = timeoutMillis;
    this.thread = new Thread(this::run, "fffs-ucx-writer");
    thread.setDaemon(true);
    thread.start();
  }

  /** Event loop: queues the write and starts fetching its bytes if a staging buffer is free. */
  void submit(Job job) {
    if (!intoArena && job.refusal == null && job.descriptor.length() > 0
        && job.descriptor.length() <= staging.slotSize()) {
      RegisteredBuffers.Slot slot = staging.tryTake();
      if (slot != null) {
        fetch(job, slot);
      }
    }
    queue.add(job);
  }

  private void fetch(Job job, RegisteredBuffers.Slot slot) {
    job.slot = slot;
    job.fetched = new CompletableFuture<>();
    Descriptor where = job.descriptor;
    try {
      loop.execute(() -> {
        try {
          UcxCallback done = loop.track(job.fetched, "GET of " + where.length() + " bytes");
          UcpRequest request = job.peer.endpoint().getNonBlocking(where.address(), job.peer.rkey(where.rkey()),
              slot.address(), where.length(), done);
          UcxWorkerLoop.issued(request, done);
        } catch (RuntimeException e) {
          job.fetched.completeExceptionally(e);
        }
      });
    } catch (IllegalStateException e) {
      job.fetched.completeExceptionally(e);
    }
  }

  private void run() {
    while (running || !queue.isEmpty()) {
      Job job;
      try {
        job = queue.poll(10, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (job != null) {
        try {
          apply(job);
        } catch (RuntimeException e) {
          LOG.error("UCX write applier: unexpected failure", e);
        } finally {
          if (job.slot != null) {
            staging.give(job.slot);
          }
        }
      }
    }
  }

  private void apply(Job job) {
    WriteRequestProto request = job.request;
    ResponseHeaderProto.Builder response = ResponseHeaderProto.newBuilder().setCallId(job.callId);
    try {
      if (job.refusal != null) {
        throw job.refusal;
      }
      if (request.hasStreamId()) {
        FffsException earlier = job.peer.failedStream(request.getStreamId());
        if (earlier != null) {
          throw new FffsException(earlier.code(), "not applied: an earlier write of this stream failed ("
              + earlier.detail() + ")");
        }
      }
      String unhealthy = unhealthyReason.get();
      if (unhealthy != null) {
        throw new FffsException(ErrorCode.NODE_UNHEALTHY, "this DataNode takes no writes: " + unhealthy);
      }
      String plugin = request.hasUserTimePlugin() ? request.getUserTimePlugin() : null;
      WriteOptions options = new WriteOptions(request.getBlockSize(), plugin);
      WriteResult result = intoArena && job.descriptor.length() > 0 && job.slot == null
          ? intoArena(job, options) : null;
      if (result == null) {
        ByteBuffer data = fetched(job);
        verify(request, data, job);
        clock.merge(HlcTimestamp.fromProto(job.hlc));
        result = store.write(request.getBlockId(), request.getOffset(), data, options);
      }
      listener.written(request.getBlockId(), result.blockLength());
      response.setWrite(WriteResponseProto.newBuilder().setEntryHlc(result.hlc().toProto())
          .setBlockLength(result.blockLength()));
    } catch (FffsException | RuntimeException e) {
      FffsException failure = e instanceof FffsException ? (FffsException) e
          : new FffsException(ErrorCode.INTERNAL, "the DataNode failed writing block " + request.getBlockId()
              + ": " + e);
      if (!(e instanceof FffsException)) {
        LOG.error("UCX write of block {} failed unexpectedly", request.getBlockId(), e);
      }
      if (request.hasStreamId()) {
        job.peer.streamFailed(request.getStreamId(), failure);
      }
      response.setError(failure.toProto());
    }
    job.peer.channel.writeAndFlush(FrameFormat.prefix(job.peer.channel.alloc(),
        response.setHlc(clock.now().toProto()).build(), 0), job.peer.channel.voidPromise());
  }

  /**
   * Merges the HLC, reserves the write's pages, GETs the bytes into them, checks the CRCs and commits; null (and
   * the staged path from now on) if the store cannot reserve pages. Any failure releases the pages.
   */
  private WriteResult intoArena(Job job, WriteOptions options) throws FffsException {
    WriteRequestProto request = job.request;
    clock.merge(HlcTimestamp.fromProto(job.hlc)); // before the store's checks, as on TCP
    PageReservation reservation;
    try {
      reservation = store.reserve(request.getBlockId(), request.getOffset(), job.descriptor.length(), options);
    } catch (FffsException e) {
      if (e.code() != ErrorCode.UNSUPPORTED) {
        throw e;
      }
      LOG.info("The block store cannot reserve pages ({}); UCX writes go through staging buffers", e.detail());
      intoArena = false;
      return null;
    }
    try (reservation) {
      getInto(job, reservation);
      verify(request, reservation.bytes(), job);
      return reservation.commit();
    }
  }

  /**
   * GETs the write's bytes into the reserved regions, all issued at once, and waits for them. If they do not
   * complete in time the client's side channel is closed (which force-closes its endpoint and so cancels the
   * GETs) and they are waited for once more: the pages are released only when no GET can still land in them.
   */
  private void getInto(Job job, PageReservation reservation) throws FffsException {
    Descriptor where = job.descriptor;
    List<CompletableFuture<Void>> gets = new ArrayList<>(reservation.regions().size());
    try {
      List<long[]> targets = new ArrayList<>(reservation.regions().size());
      for (PageReservation.Region region : reservation.regions()) {
        MappedFiles.Mapped file = arena.of(region.channel());
        targets.add(new long[] {where.address() + region.writeOffset(), file.address() + region.position(),
            region.length()});
        gets.add(new CompletableFuture<>());
      }
      loop.execute(() -> {
        for (int i = 0; i < targets.size(); i++) {
          long[] t = targets.get(i);
          CompletableFuture<Void> done = gets.get(i);
          try {
            UcxCallback callback = loop.track(done, "GET of " + t[2] + " bytes into the arena");
            UcpRequest get = job.peer.endpoint().getNonBlocking(t[0], job.peer.rkey(where.rkey()), t[1], t[2],
                callback);
            UcxWorkerLoop.issued(get, callback);
          } catch (RuntimeException e) {
            done.completeExceptionally(e);
          }
        }
      });
      CompletableFuture.allOf(gets.toArray(new CompletableFuture<?>[0])).get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (IOException | IllegalStateException | ExecutionException | TimeoutException e) {
      if (e instanceof TimeoutException) {
        job.peer.channel.close();
        awaitQuietly(gets);
      }
      String why = job.peer.brokenReason() != null ? job.peer.brokenReason()
          : e instanceof ExecutionException ? e.getCause().getMessage()
          : e instanceof TimeoutException ? "no answer within " + timeoutMillis + " ms" : e.getMessage();
      throw new FffsException(ErrorCode.IO_ERROR, "could not fetch the " + where.length() + " bytes of a write to"
          + " block " + job.request.getBlockId() + " from " + job.peer.channel.remoteAddress() + " over UCX: " + why
          + "; nothing was written");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      awaitQuietly(gets);
      throw new FffsException(ErrorCode.IO_ERROR, "interrupted fetching a write; nothing was written");
    }
  }

  private void awaitQuietly(List<CompletableFuture<Void>> gets) {
    try {
      CompletableFuture.allOf(gets.toArray(new CompletableFuture<?>[0])).get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException expected) {
      // cancelled by the endpoint's close: nothing more will land
    } catch (InterruptedException | TimeoutException e) {
      LOG.error("{} UCX GET(s) into the arena did not finish after their endpoint was closed; their pages are"
          + " released anyway", gets.size());
    }
  }

  /** The write's bytes in its staging buffer, fetching them now if that did not start on arrival. */
  private ByteBuffer fetched(Job job) throws FffsException {
    int length = job.descriptor.length();
    if (length == 0) {
      return ByteBuffer.allocate(0);
    }
    if (length > staging.slotSize()) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a UCX write of " + length + " bytes to block "
          + job.request.getBlockId() + " does not fit this DataNode's staging buffers of " + staging.slotSize()
          + " bytes; set " + RdmaConfigKeys.BUFFER_SIZE_KEY + " on the DataNode at least as large as on its clients"
          + " (or leave " + RdmaConfigKeys.WRITE_INTO_ARENA_KEY + " on); nothing was written");
    }
    try {
      if (job.slot == null) {
        fetch(job, staging.take(timeoutMillis, "a write of block " + job.request.getBlockId()));
      }
      job.fetched.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (IOException | ExecutionException | TimeoutException e) {
      String why = job.peer.brokenReason() != null ? job.peer.brokenReason()
          : e instanceof ExecutionException ? e.getCause().getMessage() : e.getMessage();
      throw new FffsException(ErrorCode.IO_ERROR, "could not fetch the " + length + " bytes of a write to block "
          + job.request.getBlockId() + " from " + job.peer.channel.remoteAddress() + " over UCX: " + why
          + "; nothing was written");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FffsException(ErrorCode.IO_ERROR, "interrupted fetching a write; nothing was written");
    }
    return job.slot.bytes().duplicate().limit(length);
  }

  private static void verify(WriteRequestProto request, ByteBuffer data, Job job) throws FffsException {
    int bad = ChunkChecksums.firstMismatch(data, request.getChunkCrcsList());
    if (bad < 0) {
      return;
    }
    if (bad >= request.getChunkCrcsCount()) {
      throw new FffsException(ErrorCode.CORRUPT, "the write of " + data.remaining() + " bytes to block "
          + request.getBlockId() + " at offset " + request.getOffset() + " carries " + request.getChunkCrcsCount()
          + " chunk checksums instead of " + ChunkChecksums.chunksOf(data.remaining()) + "; nothing was written");
    }
    long at = request.getOffset() + (long) bad * ChunkChecksums.CHUNK_BYTES;
    throw new FffsException(ErrorCode.CORRUPT, "the write to block " + request.getBlockId() + " from "
        + job.peer.channel.remoteAddress() + " failed its CRC32C check in the 512-byte chunk at block offset " + at
        + " on arrival over UCX; nothing was written");
  }

  /** Applies what is queued, then stops. */
  void stop() throws InterruptedException {
    running = false;
    thread.join();
  }
}
