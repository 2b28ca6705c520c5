package io.fffs.client.data;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.ChainMemberProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteResponseProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
 * first gets the history so far. A primary that fails fails the writer. Not thread-safe (one writer thread).
 */
final class ChainBlockWriter implements BlockWriter {
  private static final Logger LOG = LoggerFactory.getLogger(ChainBlockWriter.class);

  /** Opens a writer to the primary that has it forward every packet along {@code chain}. */
  interface PrimaryFactory {
    PacketWriter open(List<ChainMemberProto> chain) throws IOException;
  }

  private final ReplicaPipeline pipeline;
  private final PrimaryFactory factory;
  private final HybridLogicalClock clock;
  private final long blockId;
  private final DatanodeIdProto primaryNode;
  private final List<DatanodeIdProto> followers;
  private final List<DatanodeIdProto> dropped = new ArrayList<>();
  private final ArrayDeque<CompletableFuture<ResponseHeaderProto>> answers = new ArrayDeque<>();
  private PacketWriter primary;
  /** Bytes the primary acknowledged through writers this one replaced (each was flushed first). */
  private long acknowledgedBefore;
  private HlcTimestamp lastEntryBefore = HlcTimestamp.ZERO;
  /** Followers (index) from which on the chain broke, or -1; why. */
  private int brokenAt = -1;
  private String brokenWhy;
  /** The chain changed without a break (a follower dropped from outside): the next write starts a new stream. */
  private boolean reopen;
  private boolean closed;

  ChainBlockWriter(ReplicaPipeline pipeline, HybridLogicalClock clock, long blockId, PrimaryFactory factory)
      throws IOException {
    this.pipeline = pipeline;
    this.factory = factory;
    this.clock = clock;
    this.blockId = blockId;
    List<DatanodeIdProto> members = pipeline.members();
    this.primaryNode = members.get(0);
    this.followers = new ArrayList<>(members.subList(1, members.size()));
    this.primary = factory.open(chain());
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
    if (closed) {
      throw new IOException("the writer of block " + blockId + " is closed");
    }
    if (brokenAt >= 0 || reopen) {
      flush();
    }
    ByteBuffer rest = data.duplicate();
    long at = offset;
    int packetSize = primary.packetSize();
    do {
      int n = Math.min(packetSize, rest.remaining());
      answers.add(primary.send(at, rest.slice(rest.position(), n), null));
      rest.position(rest.position() + n);
      at += n;
      takeAnswers();
    } while (rest.hasRemaining());
  }

  /** Takes the answers that are in, in order, noting where the chain broke; throws the primary's failure. */
  private void takeAnswers() throws IOException {
    while (!answers.isEmpty() && answers.peek().isDone()) {
      ResponseHeaderProto answer = answers.poll().getNow(null);
      if (answer == null) {
        primary.throwIfFailed();
        throw new IOException("a write of block " + blockId + " to its primary "
            + ReplicaPipeline.address(primaryNode) + " failed");
      }
      WriteResponseProto write = answer.getWrite();
      if (write.getDownstreamApplied() < followers.size()
          && (brokenAt < 0 || write.getDownstreamApplied() < brokenAt)) {
        brokenAt = write.getDownstreamApplied();
        brokenWhy = write.hasDownstreamError() ? write.getDownstreamError().getMessage() : "no reason given";
      }
    }
  }

  @Override
  public long flush() throws IOException {
    long length = primary.flush();
    takeAnswers();
    if (brokenAt >= 0) {
      rebuild();
    }
    if (reopen) {
      newStream();
    }
    return length;
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
    for (DatanodeIdProto member : behind) {
      try {
        pipeline.catchUp(primaryNode, member);
        followers.add(member);
      } catch (IOException e) {
        dropped.add(member);
        LOG.warn("Dropped DataNode {} from the write chain of block {}: it missed writes behind {} and could not"
            + " be brought up to date: {}", ReplicaPipeline.address(member), blockId,
            ReplicaPipeline.address(failed), e.getMessage());
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
    primary = factory.open(chain());
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
    if (!answers.isEmpty()) {
      throw new IllegalStateException("a follower is added only once every packet is acknowledged (flush first)");
    }
    pipeline.addFollower(primaryNode, datanode);
    followers.add(datanode);
    newStream();
    LOG.info("DataNode {} joined the write chain of block {} with its history so far",
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
      pipeline.end(List.copyOf(followers), clock.last());
    } finally {
      primary.close();
    }
  }
}
