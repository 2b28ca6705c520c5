package io.fffs.client.data;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaStampProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.protocol.ReplicaStamps;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link BlockWriter} over a block's replicas (fan-out from the client): each packet goes to the primary, which
 * stamps it; once the primary's answer is in, the same bytes go to every follower at the primary's stamps
 * ({@link ReplicaStampProto}, with the primary's clock in its answer as the follower's frontier), so every
 * replica's log holds the same entries at the same HLCs. Answers are taken in and forwarded by the writer thread,
 * in order, on every {@link #write} and {@link #flush} (an ack callback never sends: a full window would block an
 * event loop). {@link #flush} returns once the primary and every remaining follower acknowledged every packet.
 *
 * <p>A follower that fails (an error, a broken connection, a timeout) is dropped with a warning and gets nothing
 * more: the block is under-replicated, and the NameNode stops listing that replica once its older last entry is
 * reported. {@link #addFollower} brings in a replacement with the history so far. A primary that fails fails the
 * writer. Not thread-safe (one writer thread).
 */
final class ReplicatedBlockWriter implements BlockWriter {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicatedBlockWriter.class);

  /** A packet the primary was sent and whose answer is not yet forwarded. */
  private record Pending(long offset, ByteBuffer bytes, CompletableFuture<ResponseHeaderProto> answer) {}

  private final ReplicaPipeline pipeline;
  private final PacketWriter primary;
  private final List<PacketWriter> followers;
  private final HybridLogicalClock clock;
  private final long blockId;
  private final int packetSize;
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  private final List<DatanodeIdProto> dropped = new ArrayList<>();
  private final WriterFactory factory;
  private boolean closed;

  /** Opens a writer of the block to one more DataNode. */
  interface WriterFactory {
    PacketWriter open(DatanodeIdProto datanode) throws IOException;
  }

  /** {@code writers}: one per pipeline member, the primary's first. */
  ReplicatedBlockWriter(ReplicaPipeline pipeline, List<PacketWriter> writers, HybridLogicalClock clock,
      long blockId, WriterFactory factory) {
    this.pipeline = pipeline;
    this.factory = factory;
    this.primary = writers.get(0);
    this.followers = new ArrayList<>(writers.subList(1, writers.size()));
    this.clock = clock;
    this.blockId = blockId;
    int smallest = Integer.MAX_VALUE;
    for (PacketWriter writer : writers) {
      smallest = Math.min(smallest, writer.packetSize());
    }
    this.packetSize = smallest;
  }

  @Override
  public void write(long offset, ByteBuffer data) throws IOException {
    if (closed) {
      throw new IOException("the writer of block " + blockId + " is closed");
    }
    ByteBuffer rest = data.duplicate();
    long at = offset;
    while (rest.hasRemaining()) {
      int n = Math.min(packetSize, rest.remaining());
      // Kept until the primary's answer is in and the followers have their copies.
      ByteBuffer bytes = ByteBuffer.allocate(n).put(rest.slice(rest.position(), n)).flip();
      pending.add(new Pending(at, bytes, primary.send(at, bytes.duplicate(), null)));
      rest.position(rest.position() + n);
      at += n;
      forwardAnswered();
    }
  }

  /**
   * The bytes the primary applied. The followers are first sent every packet the primary applied before a failure,
   * so that a new writer resuming after this count finds every member at the same point.
   */
  @Override
  public long acknowledgedBytes() {
    try {
      forwardAnswered(false);
    } catch (IOException e) {
      // Not thrown when not failing: forwarding stops at the first packet the primary refused.
    }
    return primary.acknowledgedBytes();
  }

  private void forwardAnswered() throws IOException {
    forwardAnswered(true);
  }

  /** Forwards, in order, the packets whose primary answer is in; at a refused one throws, or stops when not failing. */
  private void forwardAnswered(boolean failing) throws IOException {
    while (!pending.isEmpty() && pending.peek().answer().isDone()) {
      if (!failing && pending.peek().answer().getNow(null) == null) {
        return;
      }
      Pending next = pending.poll();
      ResponseHeaderProto answer = next.answer().getNow(null);
      if (answer == null) {
        primary.throwIfFailed();
        throw new IOException("the write of block " + blockId + " at offset " + next.offset() + " to its primary "
            + ReplicaPipeline.address(primary.datanode()) + " failed");
      }
      ReplicaStampProto stamp = ReplicaStamps.of(answer);
      for (PacketWriter follower : List.copyOf(followers)) {
        try {
          follower.send(next.offset(), next.bytes().duplicate(), stamp);
        } catch (IOException e) {
          drop(follower, e);
        }
      }
    }
  }

  private void drop(PacketWriter follower, IOException cause) {
    if (!followers.remove(follower)) {
      return;
    }
    dropped.add(follower.datanode());
    LOG.warn("Dropped DataNode {} from the write pipeline of block {}: {}; the block is under-replicated until a"
        + " replacement joins", ReplicaPipeline.address(follower.datanode()), blockId, cause.getMessage());
    try {
      follower.close();
    } catch (IOException e) {
      // Its failure was just reported; closing only releases its connection.
    }
  }

  @Override
  public long flush() throws IOException {
    long length = primary.flush();
    forwardAnswered();
    for (PacketWriter follower : List.copyOf(followers)) {
      try {
        follower.flush();
      } catch (IOException e) {
        drop(follower, e);
      }
    }
    return length;
  }

  @Override
  public HlcTimestamp lastEntryHlc() {
    return primary.lastEntryHlc();
  }

  @Override
  public List<DatanodeIdProto> replicas() {
    List<DatanodeIdProto> replicas = new ArrayList<>(followers.size() + 1);
    replicas.add(primary.datanode());
    for (PacketWriter follower : followers) {
      replicas.add(follower.datanode());
    }
    return replicas;
  }

  @Override
  public void drop(DatanodeIdProto datanode, IOException cause) {
    for (PacketWriter follower : List.copyOf(followers)) {
      if (follower.datanode().equals(datanode)) {
        drop(follower, cause);
      }
    }
  }

  @Override
  public List<DatanodeIdProto> dropped() {
    return List.copyOf(dropped);
  }

  @Override
  public void addFollower(DatanodeIdProto datanode) throws IOException {
    if (!pending.isEmpty()) {
      throw new IllegalStateException("a follower is added only once every packet is acknowledged (flush first)");
    }
    pipeline.addFollower(primary.datanode(), datanode);
    PacketWriter writer;
    try {
      writer = factory.open(datanode);
    } catch (IOException e) {
      pipeline.end(List.of(datanode), clock.last());
      throw e;
    }
    followers.add(writer);
    LOG.info("DataNode {} joined the write pipeline of block {} with its history so far",
        ReplicaPipeline.address(datanode), blockId);
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      flush();
      List<DatanodeIdProto> remaining = replicas();
      pipeline.end(remaining.subList(1, remaining.size()), clock.last());
    } finally {
      closeAll();
    }
  }

  private void closeAll() throws IOException {
    for (PacketWriter follower : followers) {
      try {
        follower.close();
      } catch (IOException e) {
        LOG.debug("Closing the writer of block {} to {}: {}", blockId,
            ReplicaPipeline.address(follower.datanode()), e.getMessage());
      }
    }
    primary.close();
  }
}
