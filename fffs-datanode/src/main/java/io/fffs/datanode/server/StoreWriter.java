package io.fffs.datanode.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.WriteResult;
import io.fffs.protocol.ReplicaStamps;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second thread of the TCP write path (paper §6.2): takes decoded writes from a bounded ring in arrival order and
 * applies them to the store through {@link WriteRules} — refusals, merge of the client's HLC — and
 * {@code store.write}, then keeps the ack (entry HLC, block length, the DataNode's HLC) and hands a connection's kept
 * acks to its event loop as one task, sent and flushed together, whenever the ring runs empty or {@link #ACK_BATCH}
 * are kept: each task handed to a sleeping event loop wakes it, so one task per batch saves wake-ups.
 * One applier at a time, so the writes of a connection are applied and acknowledged in the order they arrived.
 *
 * <p>A small write that finds the write path idle — nothing in the ring, nothing being applied, no ack of the ring
 * still to be handed to its channel — is applied by the event loop that decoded it ({@link #tryApplyHere}), and its
 * ack flushed at once: two thread hand-offs fewer (event loop to this thread, and back), which is most of a 1 KiB
 * write's latency and nearly all of its tail on a busy machine (each wake-up waits for a free core). The idle test
 * is one counter ({@code pending}: writes offered to the ring or being applied, until their ack is queued on the
 * channel), taken from 0 to 1 by the event loop with a compare-and-set, so a later write of a connection never
 * overtakes an earlier one or its ack; a lock held while applying keeps the store at one writer at a time (a write
 * of another connection may enter the ring meanwhile). Nor while a read is in flight ({@link ReadGate}): a write
 * that waits for arena pages a read pins must not hold up the event loop that is to send that read. At most
 * {@code inlineMaxBytes} (0: never).
 *
 * <p>Whatever a write fails with — a refusal, an {@link Error}, an exception the store did not declare — it is
 * answered (typed: {@code INTERNAL} for the unexpected) and its stream fails; the thread goes on with the others.
 */
final class StoreWriter {
  private static final Logger LOG = LoggerFactory.getLogger(StoreWriter.class);
  /** Acks kept at most (of all connections) before they are handed to the event loops with the ring still busy. */
  static final int ACK_BATCH = 8;

  private final BlockStore store;
  private final WriteRules rules;
  private final DataServerStats stats;
  private final ArrayBlockingQueue<WriteTask> ring;
  private final int capacity;
  private final ConcurrentLinkedQueue<ConnectionState> waiting = new ConcurrentLinkedQueue<>();
  /** Acks applied but not yet handed to their channel's event loop, per channel; this thread only. */
  private final Map<Channel, List<ResponseHeaderProto>> kept = new LinkedHashMap<>();
  private int keptCount;
  private final Thread thread;
  private final int inlineMaxBytes;
  private final ReadGate reads;
  /** Writes offered to the ring or being applied whose ack is not yet queued on its channel. */
  private final AtomicInteger pending = new AtomicInteger();
  /**
   * Held while a write is applied. An event loop only starts when nothing was pending, but a write queued while it
   * applies may be taken from the ring at once: the store writer then waits here.
   */
  private final ReentrantLock applying = new ReentrantLock();
  private volatile boolean running = true;
  /** Links of chained writes to the next member. */
  private final ChainConnector chains;

  /**
   * @param inlineMaxBytes the largest write an idle event loop applies itself (0: none)
   * @param reads the gate shared with the {@link QueryService}: no inline write while a read is in flight
   * @param chains makes the links of chained writes (which are never applied inline: their link answers them)
   */
  StoreWriter(BlockStore store, WriteRules rules, DataServerStats stats, int capacity, String name,
      int inlineMaxBytes, ReadGate reads, ChainConnector chains) {
    this.chains = chains;
    this.inlineMaxBytes = inlineMaxBytes;
    this.reads = reads;
    this.store = store;
    this.rules = rules;
    this.stats = stats;
    this.capacity = capacity;
    this.ring = new ArrayBlockingQueue<>(capacity);
    this.thread = new Thread(this::run, name);
    thread.setDaemon(true);
  }

  void start() {
    // A write that passed the fence check before a fence was installed is applied before the install returns.
    rules.fences().addBarrier(() -> {
      applying.lock();
      applying.unlock();
    });
    thread.start();
  }

  /** Event loop: enqueues a write; false when the ring is full. */
  boolean offer(WriteTask task) {
    pending.incrementAndGet();
    if (ring.offer(task)) {
      return true;
    }
    pending.decrementAndGet();
    return false;
  }

  /**
   * Event loop: applies a small write here and flushes its ack if the write path is idle (see above); false if it
   * must go through the ring.
   */
  boolean tryApplyHere(WriteTask task) {
    if (task.payload().readableBytes() > inlineMaxBytes || task.chained() || !pending.compareAndSet(0, 1)) {
      return false;
    }
    if (!reads.tryEnterWrite()) {
      pending.decrementAndGet();
      return false;
    }
    try {
      ResponseHeaderProto ack = applyAlone(task);
      stats.writesInline.increment();
      Responses.send(task.connection().channel, ack, true);
    } finally {
      reads.exitWrite();
      pending.decrementAndGet();
    }
    return true;
  }

  /** Event loop: asks for {@link ConnectionState#drain()} on the connection's loop once the ring has room. */
  void wakeWhenRoom(ConnectionState connection) {
    waiting.add(connection);
  }

  private void run() {
    while (running || !ring.isEmpty()) {
      try {
        WriteTask task = ring.poll(10, TimeUnit.MILLISECONDS);
        if (task != null) {
          ResponseHeaderProto ack;
          try {
            ack = applyAlone(task);
          } catch (Throwable e) {
            ack = failed(task, e);  // answered, so that neither its writer nor the ring's count waits for it
          }
          if (ack != null) {
            keepAck(task.connection().channel, ack);
          } else {
            pending.decrementAndGet();  // a chained write: its link answers it
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (Throwable e) {
        // The thread goes on whatever broke: the writes behind it would otherwise wait for good.
        LOG.error("Store writer: unexpected failure", e);
      }
      if (ring.isEmpty()) {
        sendKept();
      }
      if (!waiting.isEmpty() && ring.remainingCapacity() >= Math.max(1, capacity / 2)) {
        wakeWaiting();
      }
    }
    sendKept();
  }

  /**
   * Keeps an ack; sends every connection's kept acks once {@link #ACK_BATCH} are kept in all, so that a connection
   * waiting for one ack is not held up behind another that keeps the ring busy.
   */
  private void keepAck(Channel channel, ResponseHeaderProto ack) {
    kept.computeIfAbsent(channel, c -> new ArrayList<>()).add(ack);
    if (++keptCount >= ACK_BATCH) {
      sendKept();
    }
  }

  private void sendKept() {
    for (Map.Entry<Channel, List<ResponseHeaderProto>> e : kept.entrySet()) {
      send(e.getKey(), e.getValue());
    }
    kept.clear();
    keptCount = 0;
  }

  /**
   * Hands acks to the channel's event loop, which sends and flushes them, and only then counts their writes as
   * done: an event loop that applies a later write itself finds these acks already ahead of its own.
   */
  private void send(Channel channel, List<ResponseHeaderProto> acks) {
    try {
      channel.eventLoop().execute(() -> {
        try {
          for (ResponseHeaderProto ack : acks) {
            Responses.send(channel, ack, false);
          }
          channel.flush();
        } finally {
          pending.addAndGet(-acks.size());
        }
      });
    } catch (RejectedExecutionException e) {
      pending.addAndGet(-acks.size());  // the connection's loop is shut down: nobody is waiting for these acks
    }
  }

  /** {@link #apply} with the store to itself: at most one write is applied at a time, on any thread. */
  private ResponseHeaderProto applyAlone(WriteTask task) {
    applying.lock();
    try {
      return apply(task);
    } finally {
      applying.unlock();
    }
  }

  /**
   * Applies one write (on this thread, or on an event loop that found the path idle); returns its ack, or null for a
   * chained write, which its stream's {@link ChainLink} forwards and answers.
   */
  private ResponseHeaderProto apply(WriteTask task) {
    if (!task.chained() || (task.refusal() != null && !task.connection().chains(task))) {
      return applyHere(task);  // a refused write opens no link to the next member
    }
    ChainLink link;
    ChainLink.Slot slot;
    try {
      link = task.connection().chain(task, chains);
      slot = link.open();
    } catch (Throwable e) {
      task.payload().release();
      return failed(task, e);  // no slot taken: answered here
    }
    ByteBuf payload = task.payload().retain();  // kept for the next member
    ResponseHeaderProto ack = applyHere(task);
    if (ack.hasError()) {
      payload.release();
    } else {
      try {
        link.forward(slot, forwarded(task, ack), payload);
        stats.writesForwarded.increment();
      } catch (Throwable e) {
        link.broke(Responses.typed(e, "forwarding a write of block " + task.request().getBlockId()));
      }
    }
    link.local(slot, ack);
    return null;
  }

  /**
   * The answer to a write whose applying failed with something other than a refusal (an {@link Error}, an
   * undeclared exception): {@code INTERNAL}, and its stream fails, so that nothing after it is applied.
   */
  private ResponseHeaderProto failed(WriteTask task, Throwable e) {
    WriteRequestProto request = task.request();
    LOG.error("Store writer: the write of block {} failed", request.getBlockId(), e);
    stats.writesRefused.increment();
    return rules.refused(task.callId(), request, new FffsException(ErrorCode.INTERNAL, "the DataNode failed writing"
        + " block " + request.getBlockId() + ": " + e, e), task.connection().streams);
  }

  /** The request that carries an applied chained write on to the next member, at its stamps. */
  private RequestHeaderProto.Builder forwarded(WriteTask task, ResponseHeaderProto ack) {
    WriteRequestProto request = task.request();
    WriteRequestProto.Builder next = request.toBuilder().clearDownstream()
        .addAllDownstream(request.getDownstreamList().subList(1, request.getDownstreamCount()));
    if (!request.hasReplica()) {
      next.setReplica(ReplicaStamps.of(ack));
    }
    return RequestHeaderProto.newBuilder().setOp(OpProto.WRITE).setHlc(rules.clock().now().toProto())
        .addAllTokens(task.tokens()).setWrite(next);
  }

  /** Applies one write; returns its ack. */
  private ResponseHeaderProto applyHere(WriteTask task) {
    WriteRequestProto request = task.request();
    StreamFailures streams = task.connection().streams;
    try {
      rules.admit(request, task.refusal(), streams);
      store.checkPipelineEpoch(request.getBlockId(), request.getPipelineEpoch());
      rules.merge(task.hlc());
      WriteResult result = PayloadWrite.apply(store, request.getBlockId(), request.getOffset(), task.payload(),
          WriteRules.options(request, task.chunkCrcs()), stats);
      stats.writes.increment();
      stats.writeBytes.add(task.payload().readableBytes());
      return rules.applied(task.callId(), request, result);
    } catch (FffsException | RuntimeException e) {
      stats.writesRefused.increment();
      return rules.refused(task.callId(), request, e, streams);
    } catch (Throwable e) {
      return failed(task, e);
    } finally {
      task.payload().release();
    }
  }

  private void wakeWaiting() {
    for (ConnectionState connection = waiting.poll(); connection != null; connection = waiting.poll()) {
      try {
        connection.channel.eventLoop().execute(connection::drain);
      } catch (RejectedExecutionException e) {
        LOG.debug("Event loop of {} is shut down", connection.channel);
      }
    }
  }

  /** Applies what is queued, then stops. */
  void stop() throws InterruptedException {
    running = false;
    thread.join();
  }
}
