package io.fffs.datanode.nn;

import io.fffs.common.proto.DatanodeProtocolProtos.ReportedBlockProto;
import io.fffs.datanode.store.BlockSummary;
import io.fffs.datanode.store.log.Block;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;

/**
 * What the next incremental block report (blockReceived) carries: blocks written since the last one, and blocks
 * whose replica's standing in a write pipeline changed, each reported with its standing as the store holds it then.
 * A replica opened in a new block's pipeline holds no entry yet and the store has no report line for it: its
 * standing waits for the block's first entry and goes with that line, since without it the NameNode would rank the
 * replica as placed and never opened (behind the followers that did report, although it is the primary).
 * Thread-safe.
 */
final class ReceivedReports {
  /** Per block written since the last report: {length, last entry's HLC}. */
  private final Map<Long, long[]> written = new ConcurrentHashMap<>();
  /** Blocks whose replica's standing changed since the last report. */
  private final Set<Long> standings = ConcurrentHashMap.newKeySet();
  /** Blocks whose standing changed while they held no entry: reported with their next written line. */
  private final Set<Long> awaitingEntry = ConcurrentHashMap.newKeySet();

  void written(long blockId, long length, long lastEntryHlc) {
    written.put(blockId, new long[] {length, lastEntryHlc});
  }

  void standingChanged(long blockId) {
    standings.add(blockId);
  }

  /** The replica of {@code blockId} is gone (dropped): nothing about it is reported, nor waits for an entry. */
  void forget(long blockId) {
    written.remove(blockId);
    standings.remove(blockId);
    awaitingEntry.remove(blockId);
  }

  /** Whether there is nothing to report now (a standing awaiting its block's first entry waits). */
  boolean isEmpty() {
    return written.isEmpty() && standings.isEmpty();
  }

  /** Takes the lines to report now, a changed standing with its block's line as {@code summaries} gives it now. */
  List<ReportedBlockProto> take(LongFunction<BlockSummary> summaries) {
    Set<Long> blockIds = new TreeSet<>(written.keySet());
    blockIds.addAll(standings);
    List<ReportedBlockProto> lines = new ArrayList<>(blockIds.size());
    for (Long blockId : blockIds) {
      long[] line = written.remove(blockId);
      // A block written since its standing waited for an entry: the standing goes with this line.
      boolean standing = standings.remove(blockId) | (line != null && awaitingEntry.remove(blockId));
      BlockSummary now = standing ? summaries.apply(blockId) : null;
      if (now != null) {
        // At least as new as the write recorded.
        lines.add(withStanding(now).build());
        continue;
      }
      if (standing && line == null) {
        awaitingEntry.add(blockId);
      }
      if (line != null) {
        lines.add(ReportedBlockProto.newBuilder().setBlockId(blockId).setNumBytes(line[0]).setLastEntryHlc(line[1])
            .build());
      }
    }
    return lines;
  }

  /** A block's line in a report: its length and last entry, and where its replica stands in its write pipeline. */
  static ReportedBlockProto.Builder withStanding(BlockSummary block) {
    ReportedBlockProto.Builder reported = ReportedBlockProto.newBuilder().setBlockId(block.blockId())
        .setNumBytes(block.length()).setLastEntryHlc(block.lastHlc().packed())
        .setPipelineEpoch(block.pipelineEpoch()).setStale(block.stale());
    if (block.followerFrontier() != Block.NOT_FOLLOWING) {
      reported.setFollowerFrontierHlc(block.followerFrontier());
    }
    return reported;
  }
}
