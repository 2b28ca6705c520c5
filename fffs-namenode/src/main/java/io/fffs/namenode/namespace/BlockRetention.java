package io.fffs.namenode.namespace;

import io.fffs.common.history.MomentSet;
import io.fffs.common.time.HlcTimestamp;
import java.util.Collections;
import java.util.HashMap;
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
    if (namespace.lastGcHlc() == 0) {
      return NONE;
    }
    Map<Long, MomentSet.Builder> moments = new HashMap<>();
    for (Inode inode : namespace.inodes()) {
      if (inode.isDirectory()) {
        continue;
      }
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
    }
    TreeMap<Long, MomentSet> table = new TreeMap<>();
    moments.forEach((id, builder) -> table.put(id, builder.build()));
    return new BlockRetention(namespace.lastGcHlc(), namespace.nextBlockId(), Collections.unmodifiableNavigableMap(
        table));
  }
}
