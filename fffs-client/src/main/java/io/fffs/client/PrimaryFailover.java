package io.fffs.client;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Succeeds the lost primary of a block's write pipeline: a new pipeline over the followers left promotes the one
 * holding the newest entry (it must hold the last acknowledged one, else no follower can take over) and brings the
 * others up to it, every write the lost primary did not acknowledge is sent again through it from the stream's
 * copies ({@link UnackedWrites}), and the new writer is flushed. Should the new primary be lost too while that
 * happens, the next follower takes over the same way, until none is left or {@link #ATTEMPTS} primaries were lost;
 * then the write fails with {@code IO_ERROR} naming every lost primary and why. The lost primaries are remembered:
 * {@link PipelineRepair} replaces them, as it replaces lost followers. Not thread-safe (the stream's lock).
 */
final class PrimaryFailover {
  private static final Logger LOG = LoggerFactory.getLogger(PrimaryFailover.class);
  /** Primaries one failover may lose before it gives up (a pipeline of 3 has at most 2 successors anyway). */
  static final int ATTEMPTS = 4;

  /** What a failover needs of the stream's block writers. */
  interface Writers {
    /** The block's current WRITE token, or null when it has none. */
    BlockToken token(long blockId);

    /** From now on {@code writer} writes the block, keeping its unacknowledged writes in {@code copies}. */
    void install(long blockId, BlockWriter writer, UnackedWrites copies);

    /** The block has no writer open (its last one was abandoned). */
    void remove(long blockId);

    /** Empty copies for a block's new writer, sharing the stream's spare packet arrays where it has them. */
    default UnackedWrites newCopies() {
      return new UnackedWrites();
    }
  }

  /** Where the promoted writers come from (the stream's client's data-transfer client). */
  interface Data {
    DataTransferClient get() throws IOException;
  }

  private final Data data;
  private final WriteOptions options;
  private final String path;
  private final Writers writers;
  private final Map<Long, List<DatanodeIdProto>> lost = new HashMap<>();

  PrimaryFailover(Data data, WriteOptions options, String path, Writers writers) {
    this.data = data;
    this.options = options;
    this.path = path;
    this.writers = writers;
  }

  /**
   * Whether {@code failure} is the primary's loss (no answer, a broken connection, its store failing), which a
   * follower can take over from; a refusal of the write itself (a newer pipeline's epoch, a wrong argument, a token)
   * is not.
   */
  static boolean lostPrimary(IOException failure) {
    if (!(failure instanceof FffsException typed)) {
      return true;
    }
    return typed.code() == ErrorCode.IO_ERROR || typed.code() == ErrorCode.INTERNAL
        || typed.code() == ErrorCode.NODE_UNHEALTHY;
  }

  /** Whether a follower of {@code failed}, whose unacknowledged writes {@code copies} keeps, can take over. */
  static boolean canTakeOver(BlockWriter failed, UnackedWrites copies, IOException cause) {
    return copies != null && failed.replicas().size() > 1 && lostPrimary(cause);
  }

  /**
   * The members of {@code blockId}'s pipeline lost so far, oldest first: primaries a follower took over from, and
   * members a {@link #reopen} could not reach.
   */
  List<DatanodeIdProto> lost(long blockId) {
    return lost.getOrDefault(blockId, List.of());
  }

  /**
   * Opens the next writer of {@code blockId} over {@code members}, the pipeline of its last writer (the primary
   * first), which was closed to renew its token with nothing outstanding, so a primary lost since was not seen: as
   * when a follower takes over, the new primary must hold {@code acknowledged} (the last entry the writers before
   * acknowledged) and the other members are brought up to it; a member that cannot be reached is left out and
   * remembered as lost ({@link PipelineRepair} replaces it). Throws {@code IO_ERROR} naming the lost primary when
   * none can take over.
   */
  BlockWriter reopen(long blockId, List<DatanodeIdProto> members, HlcTimestamp acknowledged) throws IOException {
    DatanodeIdProto primary = members.get(0);
    BlockWriter writer;
    try {
      writer = data.get().promoteWriter(members, blockId, writers.token(blockId), options, acknowledged);
    } catch (IOException e) {
      if (!lostPrimary(e)) {
        throw e;
      }
      lost.computeIfAbsent(blockId, b -> new ArrayList<>()).add(primary);
      throw gaveUp(blockId, List.of(address(primary) + " (" + e.getMessage() + ")"),
          "no follower is left to take over", e);
    }
    List<DatanodeIdProto> left = new ArrayList<>(members);
    left.removeAll(writer.replicas());
    if (!left.isEmpty()) {
      lost.computeIfAbsent(blockId, b -> new ArrayList<>()).addAll(left);
      LOG.warn("The pipeline of block {} of {} was reopened to renew its token without {}, which could not be"
          + " reached; {} is its primary", blockId, path, left.stream().map(PrimaryFailover::address).toList(),
          address(writer.replicas().get(0)));
    }
    return writer;
  }

  /**
   * {@code failed}'s primary of {@code blockId} was lost ({@code cause}; {@link #canTakeOver} holds): returns the
   * flushed writer of the new pipeline, installed in the stream. Throws {@code IO_ERROR} when no follower is left
   * to take over, and a refusal met on the way (a token, say) as it is.
   */
  BlockWriter failOver(long blockId, BlockWriter failed, UnackedWrites copies, IOException cause) throws IOException {
    List<String> history = new ArrayList<>();
    HlcTimestamp acknowledged = HlcTimestamp.ZERO;
    for (int attempt = 1; ; attempt++) {
      DatanodeIdProto primary = failed.replicas().get(0);
      history.add(address(primary) + " (" + cause.getMessage() + ")");
      lost.computeIfAbsent(blockId, b -> new ArrayList<>()).add(primary);
      List<UnackedWrites.Remainder> resend = copies.after(failed.acknowledgedBytes());
      acknowledged = newer(acknowledged, failed.lastEntryHlc());
      List<DatanodeIdProto> survivors = failed.abandon();
      writers.remove(blockId);
      if (survivors.isEmpty() || attempt >= ATTEMPTS) {
        throw gaveUp(blockId, history, survivors.isEmpty() ? "no follower is left to take over"
            : attempt + " primaries were lost in a row", cause);
      }
      BlockWriter writer;
      try {
        writer = data.get().promoteWriter(survivors, blockId, writers.token(blockId), options, acknowledged);
      } catch (IOException e) {
        throw gaveUp(blockId, history, "no follower could take over: " + e.getMessage(), e);
      }
      LOG.warn("The primary {} of block {} of {} failed mid-write ({}); {} took over, {} unacknowledged writes sent"
          + " again", address(primary), blockId, path, cause.getMessage(), address(writer.replicas().get(0)),
          resend.size());
      UnackedWrites fresh = writers.newCopies();
      writers.install(blockId, writer, fresh);
      try {
        WriteFaultInjector.get().afterPromotion(path, blockId, writer.replicas().get(0));
        // Every write is kept before any is sent: should this primary be lost on one of them, the next one is
        // sent all of them again, not only those kept up to there.
        List<ByteBuffer> kept = new ArrayList<>(resend.size());
        long none = writer.acknowledgedBytes();
        for (UnackedWrites.Remainder write : resend) {
          kept.add(fresh.add(write, none));
        }
        for (int i = 0; i < resend.size(); i++) {
          writer.writeRetained(resend.get(i).offset(), kept.get(i));
        }
        writer.flush();
        return writer;
      } catch (IOException e) {
        if (!lostPrimary(e)) {
          throw e;
        }
        failed = writer;
        copies = fresh;
        cause = e;
      }
    }
  }

  private FffsException gaveUp(long blockId, List<String> history, String why, IOException cause) {
    return new FffsException(ErrorCode.IO_ERROR, "block " + blockId + " of " + path + " lost its primary "
        + String.join(", then ", history) + "; " + why, cause);
  }

  private static HlcTimestamp newer(HlcTimestamp a, HlcTimestamp b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  static String address(DatanodeIdProto datanode) {
    return datanode.getHost() + ":" + datanode.getDataPort();
  }
}
