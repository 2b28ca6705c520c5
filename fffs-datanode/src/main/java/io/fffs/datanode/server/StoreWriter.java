package io.fffs.datanode.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.fffs.common.proto.DataTransferProtos.WriteResponseProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.WriteOptions;
import io.fffs.datanode.store.WriteResult;
import io.netty.channel.Channel;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second thread of the write path (paper §6.2): takes decoded writes from a bounded ring in arrival order and
 * applies them to the store — health check, merge of the client's HLC, {@code store.write} — then queues the ack
 * (entry HLC, block length, the DataNode's HLC) and flushes acks whenever the ring runs empty. One thread, so the
 * writes of a connection are applied and acknowledged in the order they arrived.
 */
final class StoreWriter {
  private static final Logger LOG = LoggerFactory.getLogger(StoreWriter.class);

  private final BlockStore store;
  private final HybridLogicalClock clock;
  private final Supplier<String> unhealthyReason;
  private final WriteListener listener;
  private final DataServerStats stats;
  private final ArrayBlockingQueue<WriteTask> ring;
  private final int capacity;
  private final ConcurrentLinkedQueue<ConnectionState> waiting = new ConcurrentLinkedQueue<>();
  private final Set<Channel> unflushed = new HashSet<>();
  private final Thread thread;
  private volatile boolean running = true;

  StoreWriter(BlockStore store, HybridLogicalClock clock, Supplier<String> unhealthyReason, WriteListener listener,
      DataServerStats stats, int capacity, String name) {
    this.store = store;
    this.clock = clock;
    this.unhealthyReason = unhealthyReason;
    this.listener = listener;
    this.stats = stats;
    this.capacity = capacity;
    this.ring = new ArrayBlockingQueue<>(capacity);
    this.thread = new Thread(this::run, name);
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Event loop: enqueues a write; false when the ring is full. */
  boolean offer(WriteTask task) {
    return ring.offer(task);
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
          apply(task);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (RuntimeException e) {
        LOG.error("Store writer: unexpected failure", e);
      }
      if (ring.isEmpty()) {
        flushAll();
      }
      if (!waiting.isEmpty() && ring.remainingCapacity() >= Math.max(1, capacity / 2)) {
        wakeWaiting();
      }
    }
    flushAll();
  }

  private void apply(WriteTask task) {
    ResponseHeaderProto.Builder response = ResponseHeaderProto.newBuilder().setCallId(task.callId());
    WriteRequestProto request = task.request();
    try {
      check(task);
      clock.merge(HlcTimestamp.fromProto(task.hlc()));
      String plugin = request.hasUserTimePlugin() ? request.getUserTimePlugin() : null;
      WriteResult result = store.write(request.getBlockId(), request.getOffset(), task.payload().nioBuffer(),
          new WriteOptions(request.getBlockSize(), plugin));
      stats.writes.increment();
      stats.writeBytes.add(task.payload().readableBytes());
      listener.written(request.getBlockId(), result.blockLength());
      response.setWrite(WriteResponseProto.newBuilder().setEntryHlc(result.hlc().toProto())
          .setBlockLength(result.blockLength()));
    } catch (FffsException | RuntimeException e) {
      FffsException failure = Responses.typed(e, "writing block " + request.getBlockId());
      if (!(e instanceof FffsException)) {
        LOG.error("Write of block {} failed unexpectedly", request.getBlockId(), e);
      }
      if (request.hasStreamId()) {
        task.connection().streamFailed(request.getStreamId(), failure);
      }
      stats.writesRefused.increment();
      response.setError(failure.toProto());
    } finally {
      task.payload().release();
    }
    Channel channel = task.connection().channel;
    Responses.send(channel, response.setHlc(clock.now().toProto()).build(), false);
    unflushed.add(channel);
  }

  private void check(WriteTask task) throws FffsException {
    if (task.refusal() != null) {
      throw task.refusal();
    }
    WriteRequestProto request = task.request();
    if (request.hasStreamId()) {
      FffsException earlier = task.connection().failedStream(request.getStreamId());
      if (earlier != null) {
        throw new FffsException(earlier.code(), "not applied: an earlier write of this stream failed (" + earlier
            .detail() + ")");
      }
    }
    String unhealthy = unhealthyReason.get();
    if (unhealthy != null) {
      throw new FffsException(ErrorCode.NODE_UNHEALTHY, "this DataNode takes no writes: " + unhealthy);
    }
  }

  private void flushAll() {
    for (Channel channel : unflushed) {
      channel.flush();
    }
    unflushed.clear();
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
