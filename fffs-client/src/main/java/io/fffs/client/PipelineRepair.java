package io.fffs.client;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts a block's write pipeline back to the size it started with after followers left it
 * ({@code fffs.client.replace-datanode-on-failure.policy}): asks the NameNode for a DataNode outside the pipeline and
 * not among those that failed, and has the writer add it, which has the primary copy the block's history so far to
 * it first. Runs after a flush, when every packet is acknowledged. A replacement that cannot be found or fails is
 * excluded and another tried, a few times; then the write goes on with what is left
 * ({@code .best-effort=true}) or fails. Not thread-safe (the stream's lock).
 */
final class PipelineRepair {
  private static final Logger LOG = LoggerFactory.getLogger(PipelineRepair.class);
  private static final int ATTEMPTS = 3;

  enum Policy { NEVER, DEFAULT, ALWAYS }

  private final NamenodeClient nn;
  private final String path;
  private final long fileId;
  private final String clientName;
  private final Policy policy;
  private final boolean bestEffort;
  /** Blocks whose repair failed: not tried again (the NameNode restores them once the file is closed). */
  private final java.util.Set<Long> gaveUp = new java.util.HashSet<>();

  PipelineRepair(Configuration conf, NamenodeClient nn, String path, long fileId, String clientName) {
    this.nn = nn;
    this.path = path;
    this.fileId = fileId;
    this.clientName = clientName;
    String name = conf.getTrimmed(FffsClientConfigKeys.REPLACE_DATANODE_POLICY_KEY,
        FffsClientConfigKeys.REPLACE_DATANODE_POLICY_DEFAULT).toUpperCase(Locale.ROOT);
    try {
      this.policy = Policy.valueOf(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(FffsClientConfigKeys.REPLACE_DATANODE_POLICY_KEY
          + " must be NEVER, DEFAULT or ALWAYS, not " + name, e);
    }
    this.bestEffort = conf.getBoolean(FffsClientConfigKeys.REPLACE_DATANODE_BEST_EFFORT_KEY,
        FffsClientConfigKeys.REPLACE_DATANODE_BEST_EFFORT_DEFAULT);
  }

  /** Whether a pipeline that started with {@code wanted} DataNodes gets replacements. */
  boolean replaces(int wanted) {
    return policy == Policy.ALWAYS || (policy == Policy.DEFAULT && wanted >= 3);
  }

  /**
   * Adds DataNodes to the flushed {@code writer} of {@code blockId} until it has {@code wanted} again; returns at
   * once when none left it (dropped followers, or {@code lost} members: primaries a follower took over from, and
   * members a reopen could not reach) or the policy says not to.
   */
  void repair(long blockId, BlockWriter writer, int wanted, List<DatanodeIdProto> lost)
      throws IOException {
    if ((writer.dropped().isEmpty() && lost.isEmpty()) || writer.replicas().size() >= wanted || !replaces(wanted)
        || gaveUp.contains(blockId)) {
      return;
    }
    List<String> excluded = new ArrayList<>();
    writer.dropped().forEach(datanode -> excluded.add(datanode.getDatanodeUuid()));
    lost.forEach(datanode -> excluded.add(datanode.getDatanodeUuid()));
    IOException last = null;
    for (int attempt = 0; attempt < ATTEMPTS && writer.replicas().size() < wanted; attempt++) {
      DatanodeIdProto replacement;
      try {
        replacement = nn.getAdditionalDatanode(path, fileId, clientName, blockId, excluded);
      } catch (FffsException e) {
        last = e;
        if (e.code() == ErrorCode.NO_DATANODE) {
          break;
        }
        continue;
      }
      try {
        writer.addFollower(replacement);
      } catch (IOException e) {
        last = e;
        excluded.add(replacement.getDatanodeUuid());
        LOG.warn("DataNode {}:{} could not replace one that left the pipeline of block {} of {}: {}",
            replacement.getHost(), replacement.getDataPort(), blockId, path, e.getMessage());
      }
    }
    if (writer.replicas().size() < wanted) {
      String why = "the pipeline of block " + blockId + " of " + path + " has " + writer.replicas().size() + " of "
          + wanted + " DataNodes and no replacement could be added" + (last == null ? "" : ": " + last.getMessage());
      if (!bestEffort) {
        throw new FffsException(ErrorCode.IO_ERROR, why + " ("
            + FffsClientConfigKeys.REPLACE_DATANODE_BEST_EFFORT_KEY + "=false)");
      }
      gaveUp.add(blockId);
      LOG.warn("{}; writing on with what is left", why);
    }
  }
}
