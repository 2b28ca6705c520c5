package io.fffs.client.data;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.ReplicaStampProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.protocol.ReplicaStamps;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
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
 * writer; its stream then promotes a follower ({@link #abandon}, {@link DataTransferClient#promoteWriter}). A refusal of the token, by the primary or a follower, is thrown instead, and after {@link #renewToken}
 * the member that refused resumes where it stopped: the packets are kept by reference (what each is sent from: the
 * stream's kept copy to a retained primary, this writer's copy to the followers) until every member applied them. Not thread-safe (one writer thread).
 */
final class ReplicatedBlockWriter implements BlockWriter {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicatedBlockWriter.class);
  /**
   * A packet forwarded to the followers, kept (the same bytes, not a copy) until each has applied it: what a follower
   * that refused the token is sent again. {@code end}: the bytes forwarded up to and including it.
   */
  private record Forwarded(long offset, ByteBuffer bytes, ReplicaStampProto stamp, long end) {}

  private final ReplicaPipeline pipeline;
  private PacketWriter primary;
  private final List<PacketWriter> followers;
  /** Followers that refused the token: sent nothing until {@link #renewToken}, their packets kept meanwhile. */
  private final List<PacketWriter> refused = new ArrayList<>();
  /** Per follower writer: the forwarded bytes counted before its first packet (its applied bytes start there). */
  private final Map<PacketWriter, Long> startedAt = new IdentityHashMap<>();
  private final HybridLogicalClock clock;
  private final long blockId;
  private final int packetSize;
  /** Packets the primary was sent and whose answers are not yet forwarded. */
  private final PrimaryPackets pending = new PrimaryPackets();
  /** What the packet loop asks of this writer. */
  private final PrimaryPackets.Writer packets = new PrimaryPackets.Writer() {
    @Override
    public FffsException refusalOrThrow(FffsException e) throws FffsException {
      return ReplicatedBlockWriter.refusalOrThrow(e);
    }

    @Override
    public void takeAnswers() throws IOException {
      forwardAnswered();
    }
  };
  private final ArrayDeque<Forwarded> forwarded = new ArrayDeque<>();
  private long forwardedBytes;
  /** A follower's refusal not yet thrown to the caller. */
  private FffsException unreportedRefusal;
  private final List<DatanodeIdProto> dropped = new ArrayList<>();
  private final WriterFactory factory;
  private BlockToken token;
  private boolean closed;

  /** Opens a writer of the block to one more DataNode, with the given token. */
  interface WriterFactory {
    PacketWriter open(DatanodeIdProto datanode, BlockToken token) throws IOException;
  }

  /** {@code writers}: one per pipeline member, the primary's first, all opened with {@code token}. */
  ReplicatedBlockWriter(ReplicaPipeline pipeline, List<PacketWriter> writers, HybridLogicalClock clock,
      long blockId, BlockToken token, WriterFactory factory) {
    this.pipeline = pipeline;
    this.factory = factory;
    this.token = token;
    this.primary = writers.get(0);
    this.followers = new ArrayList<>(writers.subList(1, writers.size()));
    followers.forEach(follower -> startedAt.put(follower, 0L));
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
    write(offset, data, false);
  }

  /** The primary is sent {@code data} itself (kept until it applied it); the followers still get the copy. */
  @Override
  public void writeRetained(long offset, ByteBuffer data) throws IOException {
    write(offset, data, true);
  }

  private void write(long offset, ByteBuffer data, boolean retained) throws IOException {
    if (closed) {
      throw new IOException("the writer of block " + blockId + " is closed");
    }
    // Each packet is kept (a copy) until every member applied it: sent to the primary, forwarded to the followers,
    // sent again after a refused token.
    FffsException refusal = pending.send(primary, offset, data, packetSize, PrimaryPackets.Keep.COPY, retained,
        null, packets);
    if (refusal != null) {
      throw refusal;  // every byte of this write is kept: renewToken sends it
    }
    throwFollowerRefusal();
  }

  private static FffsException refusalOrThrow(FffsException e) throws FffsException {
    if (e.code() != ErrorCode.ACCESS_DENIED) {
      throw e;
    }
    return e;
  }

  /** Throws a follower's refusal of the token that the caller has not seen yet. */
  private void throwFollowerRefusal() throws FffsException {
    FffsException refusal = unreportedRefusal;
    if (refusal != null) {
      unreportedRefusal = null;
      throw new FffsException(refusal.code(), refusal.detail(), refusal);
    }
  }

  /**
   * The bytes the primary applied: those forwarded to the followers and those answered since. A query that sends
   * nothing (the stream asks it of every open writer); the answered packets go to the followers at the next write
   * or flush, or at {@link #abandon} after a failure, so that a new writer resuming after this count finds every
   * member at the same point.
   */
  @Override
  public long acknowledgedBytes() {
    return forwardedBytes + pending.appliedBytes();
  }

  @Override
  public boolean renewsInPlace() {
    return true;
  }

  /**
   * Waits for every member's answers on their way (a refusal may still be among them), then reopens every member
   * with {@code fresh} — a member that accepted the old token may not accept it for long — and sends each what it
   * did not apply: the primary the packets it refused or was not sent, a follower the forwarded packets from its
   * first unapplied one, at the primary's stamps. A follower that failed otherwise, or cannot be reached, is dropped.
   */
  @Override
  public void renewToken(BlockToken fresh) throws IOException {
    token = fresh;
    pipeline.token(fresh);
    primary.settleForRenewal();
    forwardAnswered(false);  // what the primary applied goes on to the followers first
    List<PacketWriter> members = new ArrayList<>(followers);
    members.addAll(refused);
    followers.clear();
    refused.clear();
    for (PacketWriter old : members) {
      old.settle();
      long applied = startedAt.remove(old) + old.acknowledgedBytes();
      closeQuietly(old);
      if (old.failed() && !old.refusedToken()) {
        recordDrop(old.datanode(), "it failed: " + old.failureMessage());
        continue;
      }
      PacketWriter follower;
      try {
        follower = factory.open(old.datanode(), fresh);
      } catch (IOException e) {
        recordDrop(old.datanode(), "it cannot be reached: " + e.getMessage());
        continue;
      }
      startedAt.put(follower, applied);
      followers.add(follower);
      for (Forwarded packet : forwarded) {
        if (packet.end() > applied) {
          sendTo(follower, packet);
        }
      }
    }
    PacketWriter old = primary;
    primary = factory.open(old.datanode(), fresh);
    primary.continueFrom(old);
    closeQuietly(old);
    pending.resend(primary);
    unreportedRefusal = null;
  }

  private void forwardAnswered() throws IOException {
    forwardAnswered(true);
  }

  /** Forwards, in order, the packets whose primary answer is in; at a refused one throws, or stops when not failing. */
  private void forwardAnswered(boolean failing) throws IOException {
    while (!pending.isEmpty() && pending.peek().answer().isDone()) {
      ResponseHeaderProto answer = pending.peek().answer().getNow(null);
      if (answer == null) {
        if (!failing) {
          return;
        }
        primary.throwIfFailed();
        throw new IOException("the write of block " + blockId + " at offset " + pending.peek().offset()
            + " to its primary " + ReplicaPipeline.address(primary.datanode()) + " failed");
      }
      PrimaryPackets.Pending next = pending.poll();
      forwardedBytes += next.bytes().remaining();
      Forwarded packet = new Forwarded(next.offset(), next.bytes(), ReplicaStamps.of(answer), forwardedBytes);
      forwarded.add(packet);
      for (PacketWriter follower : List.copyOf(followers)) {
        sendTo(follower, packet);
      }
    }
    forget();
  }

  private void sendTo(PacketWriter follower, Forwarded packet) {
    try {
      follower.send(packet.offset(), packet.bytes().duplicate(), packet.stamp(), false);
    } catch (IOException e) {
      failed(follower, e);
    }
  }

  /** Forgets the forwarded packets every follower (refused ones too) has applied. */
  private void forget() {
    long applied = forwardedBytes;
    for (PacketWriter follower : followers) {
      applied = Math.min(applied, startedAt.get(follower) + follower.acknowledgedBytes());
    }
    for (PacketWriter follower : refused) {
      applied = Math.min(applied, startedAt.get(follower) + follower.acknowledgedBytes());
    }
    while (!forwarded.isEmpty() && forwarded.peek().end() <= applied) {
      forwarded.poll();
    }
  }

  /** A follower failed: one that refused the token waits for a fresh one, any other is dropped. */
  private void failed(PacketWriter follower, IOException cause) {
    if (cause instanceof FffsException refusal && refusal.code() == ErrorCode.ACCESS_DENIED) {
      if (followers.remove(follower)) {
        refused.add(follower);
        LOG.info("DataNode {} refused the token of the write pipeline of block {}: {}",
            ReplicaPipeline.address(follower.datanode()), blockId, refusal.getMessage());
        unreportedRefusal = refusal;
      }
      return;
    }
    drop(follower, cause);
  }

  private void drop(PacketWriter follower, IOException cause) {
    if (!followers.remove(follower) && !refused.remove(follower)) {
      return;
    }
    startedAt.remove(follower);
    recordDrop(follower.datanode(), cause.getMessage());
    closeQuietly(follower);
  }

  private void recordDrop(DatanodeIdProto datanode, String why) {
    dropped.add(datanode);
    LOG.warn("Dropped DataNode {} from the write pipeline of block {}: {}; the block is under-replicated until a"
        + " replacement joins", ReplicaPipeline.address(datanode), blockId, why);
  }

  private void closeQuietly(PacketWriter writer) {
    try {
      writer.close();
    } catch (IOException e) {
      // Its failure was reported already; closing only releases its connection.
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
        failed(follower, e);
      }
    }
    forget();
    throwFollowerRefusal();
    return length;
  }

  @Override
  public HlcTimestamp lastEntryHlc() {
    return primary.lastEntryHlc();
  }

  /** The primary and the followers, those waiting for a fresh token too. */
  @Override
  public List<DatanodeIdProto> replicas() {
    List<DatanodeIdProto> replicas = new ArrayList<>(followers.size() + refused.size() + 1);
    replicas.add(primary.datanode());
    for (PacketWriter follower : followers) {
      replicas.add(follower.datanode());
    }
    for (PacketWriter follower : refused) {
      replicas.add(follower.datanode());
    }
    return replicas;
  }

  @Override
  public void drop(DatanodeIdProto datanode, IOException cause) {
    List<PacketWriter> members = new ArrayList<>(followers);
    members.addAll(refused);
    for (PacketWriter follower : members) {
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
      writer = factory.open(datanode, token);
    } catch (IOException e) {
      pipeline.end(List.of(datanode), clock.last());
      throw e;
    }
    followers.add(writer);
    startedAt.put(writer, forwardedBytes);
    LOG.info("DataNode {} joined the write pipeline of block {} with its history so far",
        ReplicaPipeline.address(datanode), blockId);
  }

  @Override
  public List<DatanodeIdProto> abandon() {
    closed = true;
    try {
      forwardAnswered(false);  // what the primary answered before failing reaches the followers
    } catch (IOException e) {
      // Not thrown when not failing.
    }
    closeQuietly(primary);
    List<DatanodeIdProto> survivors = new ArrayList<>();
    for (PacketWriter follower : List.copyOf(followers)) {
      try {
        follower.flush();
        survivors.add(follower.datanode());
      } catch (IOException e) {
        recordDrop(follower.datanode(), e.getMessage());
      }
      closeQuietly(follower);
    }
    for (PacketWriter follower : refused) {
      survivors.add(follower.datanode());  // behind: the new primary brings it up to its log
      closeQuietly(follower);
    }
    return survivors;
  }

  /** Flushes and ends the pipeline on the followers ({@link ReplicaPipeline#closeWriter}: a refused token too). */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    pipeline.closeWriter(this::flush, () -> {
      List<DatanodeIdProto> remaining = replicas();
      return remaining.subList(1, remaining.size());
    }, clock, true, () -> {
      closed = true;
      closeAll();
    });
  }

  private void closeAll() throws IOException {
    for (PacketWriter follower : followers) {
      closeQuietly(follower);
    }
    for (PacketWriter follower : refused) {
      closeQuietly(follower);
    }
    primary.close();
  }
}
