package io.fffs.client;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one read of a block against its replicas in order until one answers. It moves on after what a replica
 * alone may cause: a connection error or timeout, a CRC mismatch or short answer ({@code CORRUPT}),
 * {@code REPLICA_STALE}, {@code NOT_FOUND}, {@code IO_ERROR}. What any replica would answer alike (a time in the
 * future, a bad argument, a refused token) is thrown at once. When every replica fails, the error names the block
 * and each replica with its error.
 */
final class ReplicaFailover {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaFailover.class);

  /** One attempt against one replica. */
  @FunctionalInterface
  interface Attempt<T> {
    T run(DatanodeIdProto replica) throws IOException;
  }

  /** Told of a replica whose bytes failed their checksums (the NameNode then replaces it). */
  @FunctionalInterface
  interface BadReplicas {
    void report(long blockId, DatanodeIdProto replica, String reason);
  }

  /** A short answer: {@code CORRUPT} for the read, but no sign of damage (the replica may be stale). */
  static final class ShortAnswer extends FffsException {
    private static final long serialVersionUID = 1L;

    ShortAnswer(String message) {
      super(ErrorCode.CORRUPT, message);
    }
  }

  private ReplicaFailover() {}

  /** {@link #run(String, long, List, Set, Attempt, BadReplicas)} reporting no bad replica. */
  static <T> T run(String path, long blockId, List<DatanodeIdProto> ordered, Set<String> failed,
      Attempt<T> attempt) throws IOException {
    return run(path, blockId, ordered, failed, attempt, (block, replica, reason) -> { });
  }

  /**
   * Runs {@code attempt} on each replica of {@code ordered} until one succeeds; a replica that fails is added to
   * {@code failed} (its DataNode uuid), so later reads of this reader try it last.
   */
  static <T> T run(String path, long blockId, List<DatanodeIdProto> ordered, Set<String> failed,
      Attempt<T> attempt, BadReplicas bad) throws IOException {
    if (ordered.isEmpty()) {
      throw new FffsException(ErrorCode.NOT_FOUND, "block " + blockId + " of " + path + " has no live DataNode:"
          + " the DataNodes holding it are down or have not reported yet");
    }
    List<IOException> errors = new ArrayList<>(ordered.size());
    for (DatanodeIdProto replica : ordered) {
      try {
        return attempt.run(replica);
      } catch (IOException e) {
        if (!replicaAlone(e)) {
          throw e;
        }
        errors.add(e);
        failed.add(replica.getDatanodeUuid());
        if (e instanceof FffsException && ((FffsException) e).code() == ErrorCode.CORRUPT
            && !(e instanceof ShortAnswer)) {
          bad.report(blockId, replica, e.getMessage());
        }
        if (errors.size() < ordered.size()) {
          LOG.warn("Reading block {} of {} from {} failed ({}); trying another replica", blockId, path,
              address(replica), e.getMessage());
        }
      }
    }
    if (errors.size() == 1) {
      throw errors.get(0);  // one replica: its own error, as it was
    }
    StringBuilder message = new StringBuilder("no replica of block ").append(blockId).append(" of ").append(path)
        .append(" could be read: ");
    ErrorCode common = null;
    for (int i = 0; i < ordered.size(); i++) {
      IOException error = errors.get(i);
      message.append(i == 0 ? "" : "; ").append(address(ordered.get(i))).append(": ").append(error.getMessage());
      ErrorCode code = error instanceof FffsException ? ((FffsException) error).code() : ErrorCode.IO_ERROR;
      common = i == 0 || code == common ? code : ErrorCode.IO_ERROR;
    }
    FffsException all = new FffsException(common, message.toString());
    for (IOException error : errors) {
      all.addSuppressed(error);
    }
    throw all;
  }

  /** Whether {@code error} may be this replica's alone, so another may answer. */
  static boolean replicaAlone(IOException error) {
    if (!(error instanceof FffsException)) {
      return true;  // connection refused or closed, a timeout
    }
    switch (((FffsException) error).code()) {
      case CORRUPT:
      case REPLICA_STALE:
      case NOT_FOUND:
      case IO_ERROR:
        return true;
      default:
        return false;
    }
  }

  private static String address(DatanodeIdProto replica) {
    return replica.getHost() + ":" + replica.getDataPort();
  }
}
