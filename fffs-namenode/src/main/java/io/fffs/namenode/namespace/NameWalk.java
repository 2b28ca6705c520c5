package io.fffs.namenode.namespace;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * A depth-first walk over the names bound at one moment, names in order, read in bounded steps ({@link GcSteps})
 * under the read lock: each step goes on from the last name it read, and names are read as of that moment, so
 * changes made between steps leave the walk as it was, unless a history-collection batch ran meanwhile and dropped
 * the entries of a name changed since the moment (which no kept moment reads): the caller checks
 * {@link Namespace#gcBatches()} if it must know. Each directory is entered once, and at one moment a file has one
 * name. A directory and a name count one unit each, and the caller counts what it reads of a file; a step stops
 * between names.
 */
public final class NameWalk {
  /** What the walk does with each file it reaches, under the lock; it counts what it reads of the file. */
  @FunctionalInterface
  public interface Files {
    void reached(Inode file, GcSteps.Units units);
  }

  private final Namespace namespace;
  /** Directories entered: directories only, so the walk's memory follows the directory count, not the file count. */
  private final Set<Long> entered = new HashSet<>();
  /** The directories being walked, innermost first, each with the last name read. */
  private final ArrayDeque<Frame> path = new ArrayDeque<>();
  private long at = -1;

  private static final class Frame {
    final Inode directory;
    String after;

    Frame(Inode directory) {
      this.directory = directory;
    }
  }

  public NameWalk(Namespace namespace) {
    this.namespace = namespace;
  }

  /**
   * Walks on until {@code units} are spent or every name was read; returns whether every name was read.
   *
   * @param moment the packed HLC whose names the walk reads: fixed by the first step, later values are ignored
   */
  public boolean step(long moment, GcSteps.Units units, Files files) {
    if (at < 0) {
      at = moment;
      path.push(new Frame(namespace.root()));
      entered.add(Namespace.ROOT_ID);
      units.spend(1);
    }
    while (!units.exhausted() && !path.isEmpty()) {
      Frame frame = path.peek();
      Map.Entry<String, ChildHistory> name = frame.after == null ? frame.directory.children().firstEntry()
          : frame.directory.children().higherEntry(frame.after);
      if (name == null) {
        path.pop();
        continue;
      }
      frame.after = name.getKey();
      units.spend(1);
      long id = name.getValue().at(at);
      Inode child = id == Namespace.TOMBSTONE ? null : namespace.inode(id);
      if (child == null) {
        continue;
      }
      if (!child.isDirectory()) {
        files.reached(child, units);
      } else if (entered.add(id)) {
        path.push(new Frame(child));
        units.spend(1);
      }
    }
    return path.isEmpty();
  }
}
