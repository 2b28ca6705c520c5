package io.fffs.namenode.namespace;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

/**
 * How a garbage-collection pass reads the namespace in bounded steps (docs/history.md). Each step runs under the
 * read lock through {@link GcPass.Locked} and stops once it has visited its budget of units (an inode, a name of a
 * directory, an entry of a name's history and a version of a file count one each), keeping a cursor for the next
 * step, so no step holds writers back for long whatever the namespace's size. A step stops between names and between
 * files, so it exceeds its budget by at most one name's entries or one file's versions. The replication scan reads in
 * the same steps ({@code fs.ReplicationScan}).
 */
public final class GcSteps {
  private GcSteps() {}

  /** The units one step may visit, and how many it has. */
  public static final class Units {
    private final int budget;
    private int spent;

    Units(int budget) {
      this.budget = budget;
    }

    public void spend(int units) {
      spent += units;
    }

    public boolean exhausted() {
      return spent >= budget;
    }

    int spent() {
      return spent;
    }
  }

  /** A reading done in steps: each {@link #step} goes on from where the last one stopped. */
  public interface Stepped {
    void step(Units units);

    boolean done();
  }

  /** Runs {@code reading} in steps of {@code budget} units, each under {@code locked}, until it is done. */
  public static void run(Stepped reading, int budget, GcPass.Locked locked) throws IOException {
    while (!reading.done()) {
      locked.run(() -> {
        Units units = new Units(budget);
        reading.step(units);
        return units.spent();
      });
    }
  }

  /** Visits one name of a directory; returns the units it cost. */
  @FunctionalInterface
  interface NameVisitor {
    int visit(String name, ChildHistory history);
  }

  /**
   * Visits {@code directory}'s names after {@code after} (null: from the first) in order until the step's budget is
   * spent; returns the last name visited when it stopped before the end, else null. Call it with budget left. Names
   * added behind the cursor meanwhile are not visited: they bind what changed after the pass's time.
   */
  static String names(Inode directory, String after, Units units, NameVisitor visitor) {
    NavigableMap<String, ChildHistory> names = after == null ? directory.children()
        : directory.children().tailMap(after, false);
    String last = after;
    for (Map.Entry<String, ChildHistory> entry : names.entrySet()) {
      if (units.exhausted()) {
        return last;
      }
      units.spend(visitor.visit(entry.getKey(), entry.getValue()));
      last = entry.getKey();
    }
    return null;
  }

  /**
   * The inodes there were when the first step ran, in steps of the budget: the namespace's iterator is weakly
   * consistent, so one kept across steps returns each inode that stays exactly once; inodes created meanwhile are
   * left out (their ids are past the counter read at the start).
   */
  static List<Inode> inodes(Namespace namespace, int budget, GcPass.Locked locked) throws IOException {
    InodeListing listing = new InodeListing(namespace);
    run(listing, budget, locked);
    return listing.inodes;
  }

  private static final class InodeListing implements Stepped {
    private final Namespace namespace;
    private final List<Inode> inodes = new ArrayList<>();
    private long end;
    private Iterator<Inode> cursor;
    private boolean done;

    InodeListing(Namespace namespace) {
      this.namespace = namespace;
    }

    @Override
    public void step(Units units) {
      if (cursor == null) {
        end = namespace.nextInodeId();
        cursor = namespace.inodes().iterator();
      }
      while (!units.exhausted() && cursor.hasNext()) {
        Inode inode = cursor.next();
        units.spend(1);
        if (inode.id() < end) {
          inodes.add(inode);
        }
      }
      done = !cursor.hasNext();
    }

    @Override
    public boolean done() {
      return done;
    }
  }

  /**
   * Visits every version of every file, a budget of units (a file, a version) per step: a file's versions may span
   * steps (the cursor is the next version's index; versions are only added at the end, and no pass drops any
   * meanwhile, since passes run one at a time).
   */
  static Stepped versions(Namespace namespace, java.util.function.Consumer<InodeState> visitor) {
    return new Stepped() {
      private final Iterator<Inode> inodes = namespace.inodes().iterator();
      private Inode file;
      private int next;
      private boolean done;

      @Override
      public void step(Units units) {
        while (!units.exhausted()) {
          if (file == null) {
            if (!inodes.hasNext()) {
              done = true;
              return;
            }
            Inode inode = inodes.next();
            units.spend(1);
            file = inode.isDirectory() ? null : inode;
            next = 0;
            continue;
          }
          VersionChain<InodeState> states = file.states();
          for (; next < states.size() && !units.exhausted(); next++) {
            visitor.accept(states.value(next));
            units.spend(1);
          }
          if (next >= states.size()) {
            file = null;
          }
        }
      }

      @Override
      public boolean done() {
        return done;
      }
    };
  }
}
