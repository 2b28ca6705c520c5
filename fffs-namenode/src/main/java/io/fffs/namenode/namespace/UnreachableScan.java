package io.fffs.namenode.namespace;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Finds the inodes no kept name of a kept directory binds any more, in bounded steps ({@link GcSteps}): a
 * breadth-first walk from the root over every entry of every name's history, then a listing of the inodes it did
 * not reach. Changes between steps cannot change the answer: only a pass drops entries (and passes run one at a
 * time, this one past its dropping), so what was reached at the start stays reachable; nothing binds an inode no
 * path names, so what was unreachable stays so; and an inode created meanwhile is no candidate (its id is past the
 * counter read at the start).
 */
final class UnreachableScan implements GcSteps.Stepped {
  private final Namespace namespace;
  private final Set<Long> reached = new HashSet<>();
  private final ArrayDeque<Inode> pending = new ArrayDeque<>();
  private final List<Long> unreachable = new ArrayList<>();
  private long end = -1;
  private Inode directory;
  private String after;
  private Iterator<Inode> candidates;
  private boolean done;

  UnreachableScan(Namespace namespace) {
    this.namespace = namespace;
  }

  /** The ids found, ascending (once {@link #done}). */
  List<Long> unreachable() {
    return unreachable;
  }

  @Override
  public boolean done() {
    return done;
  }

  @Override
  public void step(GcSteps.Units units) {
    if (end < 0) {
      end = namespace.nextInodeId();
      reached.add(Namespace.ROOT_ID);
      pending.add(namespace.root());
    }
    while (candidates == null && !units.exhausted()) {
      if (directory == null) {
        directory = pending.poll();
        after = null;
        units.spend(1);
        if (directory == null) {
          candidates = namespace.inodes().iterator();
        }
        continue;
      }
      after = GcSteps.names(directory, after, units, (name, history) -> reach(history));
      if (after == null) {
        directory = null;
      }
    }
    if (candidates == null) {
      return;
    }
    while (!units.exhausted() && candidates.hasNext()) {
      Inode inode = candidates.next();
      units.spend(1);
      if (inode.id() < end && !reached.contains(inode.id())) {
        unreachable.add(inode.id());
      }
    }
    if (!candidates.hasNext()) {
      Collections.sort(unreachable);
      done = true;
    }
  }

  /** Marks every inode a name's history binds, queueing the directories first reached; returns its entries. */
  private int reach(ChildHistory history) {
    for (int i = 0; i < history.size(); i++) {
      long id = history.inodeId(i);
      if (id != Namespace.TOMBSTONE && reached.add(id)) {
        Inode child = namespace.inode(id);
        if (child != null && child.isDirectory()) {
          pending.add(child);
        }
      }
    }
    return history.size();
  }
}
