package io.fffs.namenode.namespace;

import io.fffs.common.history.MomentSet;
import io.fffs.common.time.HlcTimestamp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * What each block must keep, as the NameNode's last garbage-collection pass left the namespace: the moments at which
 * a kept version of a file lists the block. DataNodes fetch it ({@code getBlockRetention}) and drop the block states
 * no such moment reads; a block below {@link #nextBlockId} that the table does not list is garbage on every
 * DataNode. Immutable once built.
 *
 * @param generation the HLC of the pass (packed); tables of later passes have higher generations
 */
public record BlockRetention(long generation, long nextBlockId, NavigableMap<Long, MomentSet> blocks) {
  /** The table of no pass: DataNodes keep everything. */
  public static final BlockRetention NONE = new BlockRetention(0, 0, Collections.emptyNavigableMap());

  /** Builds the table from the namespace as it is now (under its lock). */
  public static BlockRetention compute(Namespace namespace) {
    try {
      return compute(namespace, Integer.MAX_VALUE, GcPass.DIRECT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);  // cannot happen: the steps run directly
    }
  }

  /**
   * Builds the table reading the namespace in steps run by {@code locked} (under the read lock) of about
   * {@code budget} units each, a file and each of its versions counting one ({@link GcSteps}). Changes between steps
   * cannot make it miss a block a kept moment reads: they stamp after the pass, where the version current at the
   * pass stays visible to the end of time in the table, and a block allocated meanwhile lies at or past the table's
   * {@link #nextBlockId}, read at the start, so no DataNode takes it for garbage.
   */
  public static BlockRetention compute(Namespace namespace, int budget, GcPass.Locked locked) throws IOException {
    Reading reading = new Reading(namespace);
    GcSteps.run(reading, Math.max(1, budget), locked);
    if (reading.generation == 0) {
      return NONE;
    }
    TreeMap<Long, MomentSet> table = new TreeMap<>();
    reading.moments.forEach((id, builder) -> table.put(id, builder.build()));
    return new BlockRetention(reading.generation, reading.nextBlockId, Collections.unmodifiableNavigableMap(table));
  }

  private static final class Reading implements GcSteps.Stepped {
    private final Namespace namespace;
    private final Map<Long, MomentSet.Builder> moments = new HashMap<>();
    private long generation = -1;
    private long nextBlockId;
    private Iterator<Inode> cursor;
    private boolean done;

    Reading(Namespace namespace) {
      this.namespace = namespace;
    }

    @Override
    public boolean done() {
      return done;
    }

    @Override
    public void step(GcSteps.Units units) {
      if (cursor == null) {
        generation = namespace.lastGcHlc();
        nextBlockId = namespace.nextBlockId();
        cursor = namespace.inodes().iterator();
        if (generation == 0) {
          done = true;
          return;
        }
      }
      while (!units.exhausted() && cursor.hasNext()) {
        Inode inode = cursor.next();
        units.spend(1);
        if (!inode.isDirectory()) {
          units.spend(add(inode));
        }
      }
      done = !cursor.hasNext();
    }

    /** Adds the blocks of a file's kept versions; returns how many versions it read. */
    private int add(Inode inode) {
      VersionChain<InodeState> states = inode.states();
      MomentSet kept = inode.kept() == null ? MomentSet.ALL : inode.kept();
      for (int i = 0; i < states.size(); i++) {
        long from = HlcTimestamp.valueOf(states.hlc(i)).physicalMicros();
        long to = i + 1 < states.size() ? HlcTimestamp.valueOf(states.hlc(i + 1)).physicalMicros()
            : MomentSet.END;
        MomentSet seen = kept.within(from, to);
        if (seen.isEmpty()) {
          continue;
        }
        InodeState state = states.value(i);
        for (int b = 0; b < state.blockCount(); b++) {
          moments.computeIfAbsent(state.blockId(b), id -> new MomentSet.Builder()).addAll(seen);
        }
      }
      return states.size();
    }
  }
}
