package io.fffs.datanode.server;

import io.netty.channel.Channel;
import java.util.ArrayDeque;

/**
 * A data server connection's share of the write path. On its event loop: the writes that did not fit the full
 * ring ({@code overflow}); while there are any, the channel is not read (auto-read off), which pushes back on the
 * client through TCP instead of blocking the loop. On the store writer thread: the write streams of this
 * connection that failed, whose later packets are refused, and the link of a chained stream to the next member.
 */
final class ConnectionState {
  final Channel channel;
  private final StoreWriter writer;
  private final DataServerStats stats;
  private final ArrayDeque<WriteTask> overflow = new ArrayDeque<>();
  private boolean waitingForRoom;
  /** Store writer thread (or the event loop applying a write while it holds the write path). */
  final StreamFailures streams = new StreamFailures();
  /** The chain link of the stream last chained on this connection (a connection carries one writer at a time). */
  private ChainLink chain;
  private boolean closed;

  ConnectionState(Channel channel, StoreWriter writer, DataServerStats stats) {
    this.channel = channel;
    this.writer = writer;
    this.stats = stats;
  }

  /**
   * Event loop: applies a small write here when the write path is idle, else hands it to the store writer, or parks
   * it and stops reading while the ring is full.
   */
  void submit(WriteTask task) {
    if (overflow.isEmpty() && (writer.tryApplyHere(task) || writer.offer(task))) {
      return;
    }
    overflow.addLast(task);
    if (channel.config().isAutoRead()) {
      channel.config().setAutoRead(false);
      stats.backpressurePauses.increment();
    }
    waitForRoom();
  }

  private void waitForRoom() {
    if (!waitingForRoom) {
      waitingForRoom = true;
      writer.wakeWhenRoom(this);
    }
  }

  /** Event loop, called when the ring has room again: moves parked writes into it and resumes reading. */
  void drain() {
    waitingForRoom = false;
    while (!overflow.isEmpty()) {
      if (!writer.offer(overflow.peekFirst())) {
        waitForRoom();
        return;
      }
      overflow.pollFirst();
    }
    if (channel.isActive()) {
      channel.config().setAutoRead(true);
    }
  }

  /**
   * Store writer thread: the link to the next chain member for {@code task}'s stream, made (and the previous
   * stream's closed) when the stream is new on this connection.
   */
  ChainLink chain(WriteTask task, ChainConnector connector) {
    long streamId = task.request().getStreamId();
    ChainLink previous;
    synchronized (this) {
      if (chain != null && chain.streamId() == streamId) {
        return chain;
      }
      previous = chain;
      chain = null;
    }
    if (previous != null) {
      previous.close();
    }
    ChainLink link = connector.link(streamId, channel, task.request());
    synchronized (this) {
      if (!closed) {
        chain = link;
        return link;
      }
    }
    link.close();
    return link;
  }

  /** Whether {@code task}'s stream has its chain link on this connection already. */
  synchronized boolean chains(WriteTask task) {
    return chain != null && chain.streamId() == task.request().getStreamId();
  }

  /** Event loop, once the channel is closed: drops the parked writes and the chain link. */
  void closed() {
    for (WriteTask task = overflow.pollFirst(); task != null; task = overflow.pollFirst()) {
      task.payload().release();
    }
    ChainLink link;
    synchronized (this) {
      closed = true;
      link = chain;
      chain = null;
    }
    if (link != null) {
      link.close();
    }
  }
}
