package io.fffs.namenode.namespace;

import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Gives the moment of every pin to each inode of its subtree at that moment, in bounded steps ({@link GcSteps}):
 * pins in name order, each subtree breadth-first, a directory's names a budget at a time. The subtree a pin names is
 * past history, which nothing changes while a pass plans; a pin added or removed meanwhile counts as the cursor finds
 * it, as it would had it come a moment before or after a read in one hold.
 */
final class PinnedMoments implements GcSteps.Stepped {
  private final Namespace namespace;
  private final BiConsumer<Inode, MomentSet> add;
  private final ArrayDeque<Inode> pending = new ArrayDeque<>();
  private String pinAfter;
  private long limit;
  private MomentSet moment;
  private Inode directory;
  private String after;
  private boolean done;

  PinnedMoments(Namespace namespace, BiConsumer<Inode, MomentSet> add) {
    this.namespace = namespace;
    this.add = add;
  }

  @Override
  public boolean done() {
    return done;
  }

  @Override
  public void step(GcSteps.Units units) {
    while (!units.exhausted() && !done) {
      if (directory != null) {
        after = GcSteps.names(directory, after, units, (name, history) -> {
          long id = history.at(limit);
          Inode next = id == Namespace.TOMBSTONE ? null : namespace.inode(id);
          if (next != null && next.stateAt(limit) != null) {
            pending.add(next);
          }
          return 1;
        });
        if (after == null) {
          directory = null;
        }
      } else if (!pending.isEmpty()) {
        Inode inode = pending.poll();
        units.spend(1);
        add.accept(inode, moment);
        directory = inode.isDirectory() ? inode : null;
        after = null;
      } else {
        nextPin(units);
      }
    }
  }

  /** Starts the walk of the pin after the last one (done when there is none). */
  private void nextPin(GcSteps.Units units) {
    Map.Entry<String, Pin> next = pinAfter == null ? namespace.pins().firstEntry()
        : namespace.pins().higherEntry(pinAfter);
    if (next == null) {
      done = true;
      return;
    }
    Pin pin = next.getValue();
    pinAfter = next.getKey();
    limit = Namespace.limitForMicros(pin.micros());
    moment = MomentSet.point(pin.micros());
    units.spend(1);
    Inode top;
    try {
      top = namespace.resolve(pin.path(), limit);
    } catch (FffsException e) {
      return;  // a path logged as valid; cannot happen
    }
    if (top != null) {
      pending.add(top);
    }
  }
}
