package io.fffs.rdma.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.fffs.datanode.server.Responses;
import io.fffs.datanode.server.WriteRules;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.PageReservation;
import io.fffs.datanode.store.WriteOptions;
import io.fffs.datanode.store.WriteResult;
import io.fffs.protocol.frame.ChunkChecksums;
import io.fffs.rdma.RdmaConfigKeys;
import io.fffs.rdma.RegisteredBuffers;
import io.fffs.rdma.SideChannelFormat.Descriptor;
import io.fffs.rdma.UcxWorkerLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 *       from the client's registered buffer straight into them ({@link ArenaFetch}; the arena files are registered
 *       once, {@link MappedFiles}), checks its CRC32C per 512-byte chunk on the pages and commits; any failure
 *       releases the pages, so nothing of the write becomes visible. While a write's bytes are on their way, the
 *       next queued writes of the same stream that continue it from a page boundary are reserved to follow it
 *       ({@link PageReservation#reserveNext}) and fetched too, up to {@code fffs.rdma.datanode.write-depth} at
 *       once: the GETs overlap as the client's packets do, and each write is still checked, committed (its own
 *       entry) and acknowledged in order. Anything else — another stream or block, an unaligned continuation, a
 *       refused write — waits until the writes in flight are done. (When a write has two faults this path may
 *       report a different one than TCP, which checks the CRCs first, on arrival.)</li>
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

  /** Put in the queue when a fetch completes, to wake the applier. */
  private static final Object FETCHED = new Object();

  private final BlockStore store;
  private final WriteRules rules;
  private final UcxWorkerLoop loop;
  private final RegisteredBuffers staging;
  private final MappedFiles arena;
  private volatile boolean intoArena;
  private final int depth;
  private final long timeoutMillis;
  private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
  /** Applier thread: the writes into the arena whose bytes are being fetched, oldest first, one stream's. */
  private final ArrayDeque<ArenaFetch> inFlight = new ArrayDeque<>();
  /** Applier thread: a write taken from the queue that waits for the writes in flight. */
  private Job held;
  private final Thread thread;
  private volatile boolean running = true;

  UcxWriteApplier(BlockStore store, WriteRules rules, UcxWorkerLoop loop, RegisteredBuffers staging,
      MappedFiles arena, boolean intoArena,
      int depth, long timeoutMillis) {
    this.store = store;
    this.rules = rules;
    this.loop = loop;
    this.staging = staging;
    this.arena = arena;
    this.intoArena = intoArena;
    this.depth = depth;
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
    while (running || held != null || !queue.isEmpty() || !inFlight.isEmpty()) {
      try {
        step();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        while (!inFlight.isEmpty()) {
          finish(inFlight.poll());
        }
        if (held != null) {
          acknowledge(held, null, new FffsException(ErrorCode.IO_ERROR, "the DataNode's UCX write path was"
              + " interrupted; nothing of this write was applied"));
        }
        return;
      } catch (RuntimeException e) {
        LOG.error("UCX write applier: unexpected failure", e);
      }
    }
  }

  /**
   * One turn: acknowledges the writes in flight whose bytes have arrived (in order), takes the next write, and
   * starts it — alone, or after the write in flight that it continues — or, if it must wait, finishes the oldest
   * write in flight.
   */
  private void step() throws InterruptedException {
    while (!inFlight.isEmpty() && inFlight.peek().fetched.isDone()) {
      finish(inFlight.poll());
    }
    if (held == null) {
      Object next = inFlight.isEmpty() ? queue.poll(10, TimeUnit.MILLISECONDS)
          : queue.poll(Math.max(0, inFlight.peek().remainingNanos()), TimeUnit.NANOSECONDS);
      if (next == null) {
        if (!inFlight.isEmpty() && inFlight.peek().remainingNanos() <= 0) {
          finish(inFlight.poll()); // times out
        }
        return;
      }
      if (next == FETCHED) {
        return;
      }
      held = (Job) next;
    }
    if (inFlight.isEmpty()) {
      Job job = held;
      held = null;
      start(job);
    } else if (inFlight.size() < depth && follow(inFlight.peekLast(), held)) {
      held = null;
    } else {
      finish(inFlight.poll());
    }
  }

  /** Nothing in flight: applies {@code job}, or starts fetching it into the arena. */
  private void start(Job job) {
    ArenaFetch fetch = null;
    try {
      try {
        check(job);
        if (intoArena && job.descriptor.length() > 0 && job.slot == null) {
          fetch = intoArena(job);
        }
        if (fetch == null) {
          acknowledge(job, staged(job), null);
        }
      } finally {
        if (job.slot != null) {
          giveBack(job);
        }
      }
    } catch (FffsException | RuntimeException e) {
      acknowledge(job, null, e);
    }
    if (fetch != null) {
      track(fetch);
    }
  }

  /**
   * Returns the job's staging buffer once no GET can land in it any more: a refused or timed-out write's GET may
   * still be on its way. One that does not end even after its endpoint is closed keeps the buffer out of use.
   */
  private void giveBack(Job job) {
    try {
      try {
        job.fetched.handle((ok, error) -> null).get(timeoutMillis, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        job.peer.channel.close(); // force-closes the endpoint, which cancels the GET
        job.fetched.handle((ok, error) -> null).get(timeoutMillis, TimeUnit.MILLISECONDS);
      }
      staging.give(job.slot);
    } catch (ExecutionException | TimeoutException e) {
      LOG.error("A UCX GET into a staging buffer did not end after its endpoint was closed; the buffer is no"
          + " longer used");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void track(ArenaFetch fetch) {
    inFlight.add(fetch);
    fetch.fetched.whenComplete((ok, error) -> queue.add(FETCHED));
  }

  /** The refusals that need no bytes: the request's own, a failed stream, an unhealthy node. */
  private void check(Job job) throws FffsException {
    rules.admit(job.request, job.refusal, job.peer.streams);
  }

  /**
   * The write's options, with its chunk CRCs: the store is handed the write only after {@link #verify} has checked
   * the bytes against them (the reservation is committed, or the staged bytes written, after it).
   */
  private static WriteOptions options(WriteRequestProto request, int length) throws FffsException {
    return WriteRules.options(request, chunkCrcs(request, length));
  }

  /** The write's chunk CRCs for the store, or null if there are not as many as chunks ({@link #verify} says so). */
  private static int[] chunkCrcs(WriteRequestProto request, int length) {
    if (ChunkChecksums.count(request.getChunkCrcs()) != ChunkChecksums.chunksOf(length)) {
      return null;
    }
    return ChunkChecksums.fromWire(request.getChunkCrcs());
  }

  /**
   * Merges the HLC, reserves the write's pages and starts the GETs into them; null (and the staged path from now
   * on) if the store cannot reserve pages.
   */
  private ArenaFetch intoArena(Job job) throws FffsException {
    WriteRequestProto request = job.request;
    rules.merge(job.hlc); // before the store's checks, as on TCP
    PageReservation reservation;
    try {
      reservation = store.reserve(request.getBlockId(), request.getOffset(), job.descriptor.length(),
          options(request, job.descriptor.length()));
    } catch (FffsException e) {
      if (e.code() != ErrorCode.UNSUPPORTED) {
        throw e;
      }
      LOG.info("The block store cannot reserve pages ({}); UCX writes go through staging buffers", e.detail());
      intoArena = false;
      return null;
    }
    return ArenaFetch.start(loop, arena, job, reservation, timeoutMillis);
  }

  /**
   * Starts {@code job} behind {@code last} if it continues it: the same peer, stream, block and options, at the
   * offset where {@code last} ends, which is a page boundary. False (and nothing started) otherwise, or if any
   * check would refuse it; it is then started on its own once the writes in flight are done, so its answer keeps
   * its place.
   */
  private boolean follow(ArenaFetch last, Job job) {
    WriteRequestProto before = last.job.request;
    WriteRequestProto request = job.request;
    // A follower's write carries its own stamps: it never continues a chain (reserveNext refuses one too).
    if (job.refusal != null || job.slot != null || job.peer != last.job.peer || !request.hasStreamId()
        || request.hasReplica() || before.hasReplica()
        || request.getStreamId() != before.getStreamId() || request.getBlockId() != before.getBlockId()
        || request.getBlockSize() != before.getBlockSize()
        || !request.getUserTimePlugin().equals(before.getUserTimePlugin())
        || request.getOffset() != last.reservation.offset() + last.reservation.length()
        || job.descriptor.length() == 0 || !rules.admits(request, job.peer.streams)) {
      return false;
    }
    PageReservation next;
    try {
      rules.merge(job.hlc);
      next = last.reservation.reserveNext(job.descriptor.length(), chunkCrcs(job.request, job.descriptor.length()));
    } catch (FffsException e) {
      return false;
    }
    track(ArenaFetch.start(loop, arena, job, next, timeoutMillis));
    return true;
  }

  /** The oldest write in flight: waits for its bytes, checks and commits them (or not), and acknowledges. */
  private void finish(ArenaFetch fetch) {
    Job job = fetch.job;
    try (PageReservation reservation = fetch.reservation) {
      fetch.await();
      check(job); // an earlier write of the stream may have failed since this one started
      verify(job.request, reservation.bytes(), job);
      acknowledge(job, reservation.commit(), null);
    } catch (FffsException | RuntimeException e) {
      acknowledge(job, null, e);
    }
  }

  /** The staged path: the write's bytes from its staging buffer, checked, copied in by the store. */
  private WriteResult staged(Job job) throws FffsException {
    WriteRequestProto request = job.request;
    ByteBuffer data = fetched(job);
    verify(request, data, job);
    rules.merge(job.hlc);
    return store.write(request.getBlockId(), request.getOffset(), data, options(request, data.remaining()));
  }

  /** Sends the write's ack: its result, or {@code error} (which also fails its stream). */
  private void acknowledge(Job job, WriteResult result, Exception error) {
    Responses.send(job.peer.channel, error == null ? rules.applied(job.callId, job.request, result)
        : rules.refused(job.callId, job.request, error, job.peer.streams), true);
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

  /** The bytes as fetched, checked against the write's chunk CRCs. */
  private static void verify(WriteRequestProto request, ByteBuffer data, Job job) throws FffsException {
    FffsException corrupt = WriteRules.verifyPayload(request, ChunkChecksums.of(data), data.remaining(),
        job.peer.channel.remoteAddress() + " over UCX");
    if (corrupt != null) {
      throw corrupt;
    }
  }

  /** Applies what is queued, then stops. */
  void stop() throws InterruptedException {
    running = false;
    thread.join();
  }
}
