package io.fffs.datanode.store;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.log.Block;
import java.util.concurrent.TimeUnit;

/**
 * The wait-until-past rule on a replica that does not stamp a block itself: its own clock says nothing of entries
 * the primary has stamped and not yet forwarded, so a system time t is final here only once the replica's frontier
 * reaches t (every HLC with physical part t). Waits for that, polling every millisecond, for at most the max
 * offset; then {@code REPLICA_STALE}, and the reader asks another replica. A stale replica also refuses the latest
 * state and user times, which it cannot know.
 */
final class ReplicaFrontier {
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private ReplicaFrontier() {}

  /** Returns once {@code block} may answer {@code time} here; else {@code REPLICA_STALE}. */
  static void await(Block block, TimeSpec time, long maxOffsetMicros) throws FffsException, InterruptedException {
    if (block.replicaFrontier() == Block.NOT_FOLLOWING && !block.stale()) {
      return;
    }
    if (time.kind() != TimeSpec.Kind.SYSTEM) {
      if (block.stale()) {
        throw new FffsException(ErrorCode.REPLICA_STALE, "block " + block.id() + " is stale here: it misses entries"
            + " after " + HlcTimestamp.valueOf(block.replicaFrontier()) + ", so it cannot answer " + time
            + "; read another replica");
      }
      return;
    }
    long needed = HlcTimestamp.of(time.micros(), HlcTimestamp.MAX_LOGICAL).packed();
    long deadline = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(maxOffsetMicros);
    while (true) {
      long frontier = block.replicaFrontier();
      if (frontier == Block.NOT_FOLLOWING && !block.stale()) {
        return;  // the pipeline ended: this node's clock decides again (its caller already waited for it)
      }
      if (frontier >= needed) {
        return;
      }
      if (block.stale() || System.nanoTime() >= deadline) {
        throw new FffsException(ErrorCode.REPLICA_STALE, "block " + block.id() + " here is known only up to "
            + HlcTimestamp.valueOf(frontier) + ", before " + time + "; read another replica");
      }
      TimeUnit.NANOSECONDS.sleep(POLL_NANOS);
    }
  }
}
