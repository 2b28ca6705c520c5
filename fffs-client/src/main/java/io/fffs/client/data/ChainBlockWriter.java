package io.fffs.client.data;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.ChainMemberProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteResponseProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link BlockWriter} over a block's replicas as a chain (client → primary → follower → …, as HDFS writes): each
 * packet goes once, to the primary, naming the followers in chain order; each member applies it — the primary at its
 * own stamp, the followers at the stamp it came with — and forwards it to the next, and the primary's answer comes
 * once every member answered, saying how many followers applied it. So {@link #flush} (every answer in) means every
 * member applied every packet, and the client sends each byte once instead of once per replica.
 *
 * <p>An answer that reaches fewer followers than the chain has means the link to the follower after the last one
 * that applied it broke (it died, stalled or refused): that member is dropped. The members after it got a prefix of
 * the stream; once every packet is answered, each of them is brought up to the primary's log
 * ({@link ReplicaPipeline#catchUp}) and stays in the chain, or is dropped if that fails. The chain then goes on
 * without the dropped member, through a new stream to the primary. {@link #addFollower} appends a replacement that
 * first gets the history so far. A primary that fails fails the writer; its stream then promotes a follower
 * ({@link #abandon}, {@link DataTransferClient#promoteWriter}).
 *
 * <p>A refusal of the token, by the primary or a follower, is thrown instead, and {@link #renewToken} carries on with
 * a fresh one: the writer keeps each packet until the primary applied it (only when there is a token: a copy, or the
 * caller's buffer itself when it is retained, {@link #writeRetained}), so the primary is sent again exactly what it
 * refused; a follower that refused, and those after it, are brought up to the primary's log and stay. Not
 * thread-safe (one writer thread).
 */
final class ChainBlockWriter implements BlockWriter {
  private static final Logger LOG = LoggerFactory.getLogger(ChainBlockWriter.class);

  /** Opens a writer to the primary, with {@code token}, that has it forward every packet along {@code chain}. */
  interface PrimaryFactory {
    PacketWriter open(List<ChainMemberProto> chain, BlockToken token) throws IOException;
  }

  private final ReplicaPipeline pipeline;
  private final PrimaryFactory factory;
  private final HybridLogicalClock clock;
  private final long blockId;
  private final DatanodeIdProto primaryNode;
  private final List<DatanodeIdProto> followers;
  private final List<DatanodeIdProto> dropped = new ArrayList<>();
  /** Packets sent to the primary and not yet answered; kept (with a token) to send them again. */
  private final PrimaryPackets pending = new PrimaryPackets();
  /** What the packet loop asks of this writer. */
  private final PrimaryPackets.Writer packets = new PrimaryPackets.Writer() {
    @Override
    public FffsException refusalOrThrow(FffsException e) throws FffsException {
      return ChainBlockWriter.this.refusalOrThrow(e);
    }

    @Override
    public void takeAnswers() throws IOException {
      ChainBlockWriter.this.takeAnswers(true);
    }
  };
  private BlockToken token;
  private PacketWriter primary;
  /** Bytes the primary acknowledged through writers this one replaced (each was flushed first). */
  private long acknowledgedBefore;
  private HlcTimestamp lastEntryBefore = HlcTimestamp.ZERO;
  /** Followers (index) from which on the chain broke, or -1; why. */
  private int brokenAt = -1;
  private String brokenWhy;
  /** Whether the break is a refusal of the token, and whether it was thrown to the caller already. */
  private boolean brokenByRefusal;
  private boolean refusalThrown;
  /** The chain changed without a break (a follower dropped from outside): the next write starts a new stream. */
  private boolean reopen;
  private boolean closed;

  /** {@code token}: the one every stream is opened with until {@link #renewToken}; null when there is none. */
  ChainBlockWriter(ReplicaPipeline pipeline, HybridLogicalClock clock, long blockId, BlockToken token,
      PrimaryFactory factory) throws IOException {
    this.pipeline = pipeline;
    this.factory = factory;
    this.clock = clock;
    this.blockId = blockId;
    this.token = token;
    List<DatanodeIdProto> members = pipeline.members();
    this.primaryNode = members.get(0);
    this.followers = new ArrayList<>(members.subList(1, members.size()));
    this.primary = factory.open(chain(), token);
  }

  private List<ChainMemberProto> chain() {
    List<ChainMemberProto> chain = new ArrayList<>(followers.size());
    for (DatanodeIdProto follower : followers) {
      chain.add(ChainMemberProto.newBuilder().setHost(follower.getHost()).setDataPort(follower.getDataPort())
          .build());
    }
    return chain;
  }

  @Override
  public void write(long offset, ByteBuffer data) throws IOException {
    write(offset, data, false);
  }

  @Override
  public void writeRetained(long offset, ByteBuffer data) throws IOException {
    write(offset, data, true);
  }

  /**
   * {@code retained}: the caller keeps {@code data} until acknowledged, so a packet is kept to be sent again after a
   * refused token (only with a token) by reference instead of a copy, and may go out from where it is.
   */
  private void write(long offset, ByteBuffer data, boolean retained) throws IOException {
    if (closed) {
      throw new IOException("the writer of block " + blockId + " is closed");
    }
    FffsException refusal = null;
    if (brokenAt >= 0 || reopen) {
      try {
        flush();
      } catch (FffsException e) {
        refusal = refusalOrThrow(e);
      }
    }
    PrimaryPackets.Keep keep = token == null ? PrimaryPackets.Keep.NONE
        : retained ? PrimaryPackets.Keep.BY_REFERENCE : PrimaryPackets.Keep.COPY;
    refusal = pending.send(primary, offset, data, primary.packetSize(), keep, retained, refusal, packets);
    if (refusal != null) {
      throw refusal;  // every byte of this write is kept: renewToken sends it
    }
  }

  /** {@code e} when it is a refusal of the token that {@link #renewToken} can cure, else throws it. */
  private FffsException refusalOrThrow(FffsException e) throws FffsException {
    if (e.code() != ErrorCode.ACCESS_DENIED || token == null) {
      throw e;
    }
    return e;
  }

  /**
   * Takes the answers that are in, in order, noting where the chain broke. At a packet the primary failed: throws
   * its failure, or, when not {@code failing}, stops there (the packet stays pending).
   */
  private void takeAnswers(boolean failing) throws IOException {
    while (!pending.isEmpty() && pending.peek().answer().isDone()) {
      ResponseHeaderProto answer = pending.peek().answer().getNow(null);
      if (answer == null) {
        if (!failing) {
          return;
        }
        primary.throwIfFailed();
        throw new IOException("a write of block " + blockId + " to its primary "
            + ReplicaPipeline.address(primaryNode) + " failed");
      }
      pending.poll();
      WriteResponseProto write = answer.getWrite();
      if (write.getDownstreamApplied() < followers.size()
          && (brokenAt < 0 || write.getDownstreamApplied() < brokenAt)) {
        brokenAt = write.getDownstreamApplied();
        brokenWhy = write.hasDownstreamError() ? write.getDownstreamError().getMessage() : "no reason given";
        brokenByRefusal = write.hasDownstreamError()
            && FffsException.fromProto(write.getDownstreamError()).code() == ErrorCode.ACCESS_DENIED;
      }
    }
  }

  @Override
  public long flush() throws IOException {
    long length = primary.flush();
    takeAnswers(true);
    if (brokenAt >= 0) {
      if (brokenByRefusal && !refusalThrown && token != null) {
        refusalThrown = true;  // once: a second refusal drops the follower as any failure does
        throw new FffsException(ErrorCode.ACCESS_DENIED, "DataNode "
            + ReplicaPipeline.address(followers.get(brokenAt)) + " of the write chain of block " + blockId
            + " refused its token: " + brokenWhy);
      }
      rebuild();
    }
    if (reopen) {
      newStream();
    }
    return length;
  }

  @Override
  public boolean renewsInPlace() {
    return token != null;
  }

  /**
   * Waits for the primary's answers on their way, then goes on with {@code fresh}: a follower that refused it, and
   * those after it, are brought up to the primary's log (one that cannot be is dropped), and a new stream along the
   * chain sends the primary again every packet it refused or was not sent.
   */
  @Override
  public void renewToken(BlockToken fresh) throws IOException {
    token = fresh;
    pipeline.token(fresh);
    primary.settleForRenewal();
    takeAnswers(false);
    if (brokenAt >= 0) {
      if (brokenByRefusal) {
        catchUp(new ArrayList<>(followers.subList(brokenAt, followers.size())), "it refused the token");
        brokenAt = -1;
      } else {
        rebuild();
      }
    }
    refusalThrown = false;
    try {
      primary.close();
    } catch (IOException e) {
      // The refusal it reports again was met; closing only releases its connection.
    }
    newStream();
    pending.resend(primary);
  }

  /**
   * Every packet is answered: drops the member the chain broke at, brings each member after it up to the
   * primary's log, and goes on through a new stream along what is left.
   */
  private void rebuild() {
    DatanodeIdProto failed = followers.get(brokenAt);
    List<DatanodeIdProto> behind = new ArrayList<>(followers.subList(brokenAt + 1, followers.size()));
    followers.subList(brokenAt, followers.size()).clear();
    dropped.add(failed);
    LOG.warn("Dropped DataNode {} from the write chain of block {}: {}; the block is under-replicated until a"
        + " replacement joins", ReplicaPipeline.address(failed), blockId, brokenWhy);
    brokenAt = -1;
    catchUp(behind, "it missed writes behind " + ReplicaPipeline.address(failed));
  }

  /**
   * Brings {@code members}, cut off from the primary's writes because {@code why}, up to the primary's log, in
   * order, each one back into the chain (after {@link #followers}' current ones) or dropped; the chain is reopened.
   */
  private void catchUp(List<DatanodeIdProto> members, String why) {
    followers.removeAll(members);
    for (DatanodeIdProto member : members) {
      try {
        pipeline.catchUp(primaryNode, member);
        followers.add(member);
      } catch (IOException e) {
        dropped.add(member);
        LOG.warn("Dropped DataNode {} from the write chain of block {}: {} and it could not be brought up to date:"
            + " {}", ReplicaPipeline.address(member), blockId, why, e.getMessage());
      }
    }
    reopen = true;
  }

  /** Replaces the (flushed) stream to the primary by one along the current chain. */
  private void newStream() throws IOException {
    acknowledgedBefore += primary.acknowledgedBytes();
    if (primary.lastEntryHlc().compareTo(HlcTimestamp.ZERO) > 0) {
      lastEntryBefore = primary.lastEntryHlc();
    }
    primary.close();
    primary = factory.open(chain(), token);
    reopen = false;
  }

  @Override
  public long acknowledgedBytes() {
    return acknowledgedBefore + primary.acknowledgedBytes();
  }

  @Override
  public HlcTimestamp lastEntryHlc() {
    HlcTimestamp last = primary.lastEntryHlc();
    return last.compareTo(HlcTimestamp.ZERO) > 0 ? last : lastEntryBefore;
  }

  @Override
  public List<DatanodeIdProto> replicas() {
    List<DatanodeIdProto> replicas = new ArrayList<>(followers.size() + 1);
    replicas.add(primaryNode);
    replicas.addAll(followers);
    return replicas;
  }

  @Override
  public void drop(DatanodeIdProto datanode, IOException cause) {
    if (followers.remove(datanode)) {
      dropped.add(datanode);
      reopen = true;
      LOG.warn("Dropped DataNode {} from the write chain of block {}: {}", ReplicaPipeline.address(datanode),
          blockId, cause.getMessage());
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
    pipeline.addFollower(primaryNode, datanode);
    followers.add(datanode);
    newStream();
    LOG.info("DataNode {} joined the write chain of block {} with its history so far",
        ReplicaPipeline.address(datanode), blockId);
  }

  /** The followers, those the chain broke at or behind included: the new primary brings them up to its log. */
  @Override
  public List<DatanodeIdProto> abandon() {
    closed = true;
    try {
      primary.close();
    } catch (IOException e) {
      // It failed already; closing only releases its connection.
    }
    return List.copyOf(followers);
  }

  /** Flushes and ends the pipeline on the followers ({@link ReplicaPipeline#closeWriter}: a refused token too). */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    pipeline.closeWriter(this::flush, () -> List.copyOf(followers), clock, token != null, () -> {
      closed = true;
      primary.close();
    });
  }
}
