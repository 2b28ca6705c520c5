package io.fffs.namenode.fs;

import io.fffs.namenode.blocks.DatanodeManager;
import io.fffs.namenode.namespace.GcSteps;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.InodeState;
import io.fffs.namenode.namespace.NameWalk;
import io.fffs.namenode.namespace.Namespace;
import java.util.function.LongSupplier;

/**
 * Counts {@link NamespaceQueries.ReplicationSummary}'s figures over the blocks of every file a path reaches, reading
 * the names bound when it began ({@link NameWalk}) in bounded steps, so that no read-lock hold keeps writers back
 * for long however large the namespace: a monitor that polls {@code /status} must not stall changes. A file and each
 * of its blocks count one unit. Replica counts are read as each file is reached.
 */
final class ReplicationCount implements GcSteps.Stepped {
  private final Namespace namespace;
  private final NameWalk names;
  private final DatanodeManager datanodes;
  private final LongSupplier lastApplied;
  private long underReplicated;
  private long missing;
  private long stale;
  private boolean done;
  private long gcBatches = -1;
  private boolean gcMeanwhile;

  /** @param lastApplied the packed HLC of the last change applied (read under the lock at the first step) */
  ReplicationCount(Namespace namespace, DatanodeManager datanodes, LongSupplier lastApplied) {
    this.namespace = namespace;
    this.names = new NameWalk(namespace);
    this.datanodes = datanodes;
    this.lastApplied = lastApplied;
  }

  @Override
  public void step(GcSteps.Units units) {
    if (gcBatches < 0) {
      gcBatches = namespace.gcBatches();
    }
    done = names.step(lastApplied.getAsLong(), units, this::reached);
    if (done) {
      gcMeanwhile = namespace.gcBatches() != gcBatches;
    }
  }

  /**
   * Whether a history-collection batch ran while it counted (once {@link #done}): it may have dropped the entries of
   * a name changed meanwhile, which the count then read as it is now, or missed.
   */
  boolean gcMeanwhile() {
    return gcMeanwhile;
  }

  @Override
  public boolean done() {
    return done;
  }

  NamespaceQueries.ReplicationSummary summary() {
    return new NamespaceQueries.ReplicationSummary(underReplicated, missing, stale);
  }

  private void reached(Inode file, GcSteps.Units units) {
    InodeState state = file.latest();
    units.spend(1 + state.blockCount());
    for (int i = 0; i < state.blockCount(); i++) {
      long blockId = state.blockId(i);
      int current = datanodes.currentReplicas(blockId);
      if (current == 0) {
        missing++;
      } else if (current < state.replication()) {
        underReplicated++;
      }
      stale += datanodes.staleReplicas(blockId);
    }
  }
}
