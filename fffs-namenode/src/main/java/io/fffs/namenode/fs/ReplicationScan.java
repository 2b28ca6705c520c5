package io.fffs.namenode.fs;

import io.fffs.namenode.blocks.ReplicationMonitor;
import io.fffs.namenode.namespace.GcSteps;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.InodeState;
import io.fffs.namenode.namespace.NameWalk;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.namespace.VersionChain;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;

/**
 * What the replication monitor is to look at, read from the namespace in bounded steps ({@link GcSteps}) so that no
 * read-lock hold keeps writers back for long: first the blocks of every file a path reached when the scan started
 * (depth first, names in order, as they were bound then: {@link NameWalk}), but the last block of a file being
 * written; then the blocks only past versions list, each wanted at the replication of the newest version listing
 * it. A directory, a name, an inode and each version and block read count one unit; a step stops between names and
 * between files, so it passes its budget by at most one file's versions and blocks.
 *
 * <p>Names are read as of the moment the scan started (the last change applied before its first step), which later
 * changes leave as it was: a file no change touched meanwhile is wanted exactly as one scan under one hold would
 * want it. A file created or changed meanwhile, or any file being written when a garbage-collection batch
 * (which may drop the names of that moment) ran before the paths were read, is wanted so that nothing of it is
 * dropped: its blocks are marked open (copied when short of live holders, never thinned) and its last block, while
 * written, left to its writer.
 */
final class ReplicationScan implements GcSteps.Stepped {
  private final Namespace namespace;
  private final LongSupplier lastApplied;
  private final LongPredicate damaged;
  private final Map<Long, ReplicationMonitor.Want> wants = new LinkedHashMap<>();
  private final List<Long> open = new ArrayList<>();
  private final Set<Long> seen = new HashSet<>();
  private final NameWalk names;
  private boolean named;
  private long start = -1;
  private long end;
  private long gcBatches;
  private long gcDrops;
  private boolean gcMeanwhile;
  private Iterator<Inode> inodes;
  private boolean done;

  /**
   * @param lastApplied the packed HLC of the last change applied (read under the lock at the first step)
   * @param damaged whether a block has a damaged replica (its file's path is then named)
   */
  ReplicationScan(Namespace namespace, LongSupplier lastApplied, LongPredicate damaged) {
    this.namespace = namespace;
    this.names = new NameWalk(namespace);
    this.lastApplied = lastApplied;
    this.damaged = damaged;
  }

  /** The blocks to keep at their replication, in the order read (once {@link #done}). */
  List<ReplicationMonitor.Want> wants() {
    return new ArrayList<>(wants.values());
  }

  /** The dropping garbage-collection batches the namespace had applied when the scan began. */
  long gcDropsAtStart() {
    return gcDrops;
  }

  /** The last blocks of files being written (once {@link #done}). */
  List<Long> open() {
    return open;
  }

  @Override
  public boolean done() {
    return done;
  }

  @Override
  public void step(GcSteps.Units units) {
    if (start < 0) {
      start = lastApplied.getAsLong();
      end = namespace.nextInodeId();
      gcBatches = namespace.gcBatches();
      gcDrops = namespace.gcDrops();
    }
    if (!named) {
      named = names.step(start, units, this::reached);
      if (!named) {
        return;
      }
    }
    if (inodes == null) {
      gcMeanwhile = namespace.gcBatches() != gcBatches;
      inodes = namespace.inodes().iterator();
    }
    while (!units.exhausted() && inodes.hasNext()) {
      Inode inode = inodes.next();
      units.spend(1);
      if (!inode.isDirectory()) {
        pastVersions(inode, units);
      }
    }
    done = !inodes.hasNext();
  }

  /** Whether the inode changed since the scan started (or came after it). */
  private boolean changed(Inode inode) {
    return inode.id() >= end || inode.states().latestHlc() > start;
  }

  /** A file a path reached: its blocks but a written last one, at its replication now. */
  private void reached(Inode file, GcSteps.Units units) {
    InodeState state = file.latest();
    units.spend(1 + state.blockCount());
    boolean keepAll = changed(file) || state.isUnderConstruction();
    for (int i = 0; i < closedBlocks(state); i++) {
      long blockId = state.blockId(i);
      want(new ReplicationMonitor.Want(blockId, state.replication(),
          damaged.test(blockId) ? namespace.pathOf(file) : null, keepAll));
    }
  }

  /**
   * The blocks of a file's versions no earlier want listed, newest first, but the last block of one being written.
   * A file no path reached then is wanted as its history is, unless it changed meanwhile, or is being written and a
   * garbage-collection batch ran before the paths were read (which may have dropped the name that reached it).
   */
  private void pastVersions(Inode file, GcSteps.Units units) {
    boolean keepAll = changed(file) || gcMeanwhile && file.latest().isUnderConstruction();
    closedBlocks(file.latest());  // its last block, while written (deleted while open, say), is its writer's
    VersionChain<InodeState> states = file.states();
    for (int v = states.size() - 1; v >= 0; v--) {
      InodeState state = states.value(v);
      units.spend(1 + state.blockCount());
      for (int b = 0; b < state.blockCount(); b++) {
        want(new ReplicationMonitor.Want(state.blockId(b), state.replication(), null, keepAll));
      }
    }
  }

  /** How many of the state's blocks are closed; the open last one (if any) joins {@link #open}. */
  private int closedBlocks(InodeState state) {
    // An open file's last block is its writer's; one with no block yet has none to leave out.
    int closed = state.isUnderConstruction() ? Math.max(0, state.blockCount() - 1) : state.blockCount();
    if (closed < state.blockCount() && seen.add(state.blockId(closed))) {
      open.add(state.blockId(closed));
    }
    return closed;
  }

  /** Adds a want for a block not yet wanted; one marked open wins over an earlier one that was not. */
  private void want(ReplicationMonitor.Want want) {
    if (seen.add(want.blockId())) {
      wants.put(want.blockId(), want);
    } else if (want.open() && wants.containsKey(want.blockId()) && !wants.get(want.blockId()).open()) {
      ReplicationMonitor.Want first = wants.get(want.blockId());
      wants.put(want.blockId(), new ReplicationMonitor.Want(first.blockId(), first.replication(), first.path(), true));
    }
  }
}
