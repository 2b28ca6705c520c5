package io.fffs.datanode.server;

import io.netty.channel.Channel;
import java.util.ArrayDeque;

/**
 * A data server connection's share of the write path. On its event loop: the writes that did not fit the full
 * ring ({@code overflow}); while there are any, the channel is not read (auto-read off), which pushes back on the
 * client through TCP instead of blocking the loop. On the store writer thread: the write streams of this
 * connection that failed, whose later packets are refused.
 */
final class ConnectionState {
  final Channel channel;
  private final StoreWriter writer;
  private final DataServerStats stats;
  private final ArrayDeque<WriteTask> overflow = new ArrayDeque<>();
  private boolean waitingForRoom;
  /** Store writer thread (or the event loop applying a write while it holds the write path). */
  final StreamFailures streams = new StreamFailures();

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

  /** Event loop, once the channel is closed: drops the parked writes. */
  void closed() {
    for (WriteTask task = overflow.pollFirst(); task != null; task = overflow.pollFirst()) {
      task.payload().release();
    }
  }
}
