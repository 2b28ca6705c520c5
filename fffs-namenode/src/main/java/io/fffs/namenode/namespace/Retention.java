package io.fffs.namenode.namespace;

import io.fffs.common.history.RetentionRule;
import io.fffs.common.time.HlcTimestamp;
import java.util.List;

/**
 * What retention keeps of each inode (docs/history.md): the rule that governs it and the moments that rule, a
 * file's newest versions and the pins keep. One definition serves the horizon check of reads and garbage
 * collection ({@link GcPass}), so a read is refused exactly where collection may drop something. Not thread-safe:
 * callers hold the namespace lock.
 */
public final class Retention {
  /** The rule that governs an inode and the directory it is set on; {@code holder} null for the cluster default. */
  public record Governing(RetentionRule rule, Inode holder) {}

  private final Namespace namespace;

  public Retention(Namespace namespace) {
    this.namespace = namespace;
  }

  /**
   * The rule of {@code inode}: a directory's own, else that of the nearest directory above it, walking up where
   * each inode was linked last (a deleted file keeps following the directory it was deleted from); else the
   * cluster's default.
   */
  public Governing ruleOf(Inode inode, RetentionRule clusterDefault) {
    Inode current = inode;
    for (int depth = 0; current != null && depth <= namespace.inodeCount(); depth++) {
      if (current.isDirectory()) {
        RetentionRule own = current.latest().retention();
        if (own != null) {
          return new Governing(own, current);
        }
      }
      if (current.id() == Namespace.ROOT_ID) {
        break;
      }
      current = namespace.inode(current.parentId());
    }
    return new Governing(clusterDefault, null);
  }

  /**
   * The moments of the newest {@code count} versions of what {@code name} in {@code directory} named, newest
   * first as {@code bin/fffs versions} lists them (a deletion is no version one could read); paired with the inode
   * each moment reads.
   */
  public void newestVersions(Inode directory, String name, int count, VersionSink sink) {
    ChildHistory history = directory.children().get(name);
    if (history == null || count <= 0) {
      return;
    }
    int found = 0;
    long previousMoment = -1;
    for (int i = history.size() - 1; i >= 0 && found < count; i--) {
      long id = history.inodeId(i);
      if (id == Namespace.TOMBSTONE) {
        continue;
      }
      Inode inode = namespace.inode(id);
      if (inode == null) {
        continue;
      }
      long from = history.hlc(i);
      long until = i + 1 < history.size() ? history.hlc(i + 1) : Long.MAX_VALUE;
      VersionChain<InodeState> states = inode.states();
      for (int s = states.size() - 1; s >= 0 && found < count; s--) {
        long hlc = states.hlc(s);
        if (hlc >= until) {
          continue;
        }
        long moment = HlcTimestamp.valueOf(Math.max(hlc, from)).physicalMicros();
        if (moment != previousMoment) {
          sink.accept(moment, inode);
          previousMoment = moment;
          found++;
        }
        if (hlc <= from) {
          break;  // the state current when the name was bound: the first version of this binding
        }
      }
    }
  }

  /** Receives a version's moment and the inode it reads. */
  public interface VersionSink {
    void accept(long micros, Inode inode);
  }

  /** Whether {@code micros} is the moment of one of the newest {@code count} versions of {@code name}. */
  public boolean isNewestVersion(Inode directory, String name, int count, long micros) {
    boolean[] hit = {false};
    newestVersions(directory, name, count, (moment, inode) -> hit[0] |= moment == micros);
    return hit[0];
  }

  /** Whether a pin keeps {@code micros} for {@code path} (a pin at exactly that moment, on it or above it). */
  public boolean pinned(String path, long micros) {
    for (Pin pin : namespace.pins().values()) {
      if (pin.micros() == micros && NamePaths.isSelfOrDescendant(path, pin.path())) {
        return true;
      }
    }
    return false;
  }

  /** The pins whose subtree holds {@code path} (in their moment's namespace), for messages. */
  public List<Pin> pinsOver(String path) {
    return namespace.pins().values().stream().filter(p -> NamePaths.isSelfOrDescendant(path, p.path())).toList();
  }
}
