package io.fffs.namenode.namespace;

import io.fffs.common.history.MomentSet;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * A file or directory with its whole history. The id is never reused; the states form a {@link VersionChain}; a
 * directory maps each name it ever held to that name's {@link ChildHistory} (sorted, for paged listings). Garbage
 * collection ({@link GcPass}) may drop versions and names no retained moment sees; {@link #kept} says which moments
 * the inode still answers for exactly.
 */
public final class Inode {
  private final long id;
  private final VersionChain<InodeState> states = new VersionChain<>();
  private final TreeMap<String, ChildHistory> children;
  /** The directory that linked this inode last (where its retention rule comes from); 0 for the root. */
  private long parentId;
  /** The moments at which garbage collection kept its states exact; null while it has dropped none. */
  private MomentSet kept;
  /** A directory's: the moments at which it kept its names exact (paths through it resolve); null: all. */
  private MomentSet keptNames;
  /** A file's writer epoch: WRITE tokens carry it; raised when lease recovery or a new writer takes the file. */
  private volatile long writerEpoch;

  Inode(long id, boolean directory) {
    this.id = id;
    this.children = directory ? new TreeMap<>() : null;
  }

  public long id() {
    return id;
  }

  public boolean isDirectory() {
    return children != null;
  }

  public VersionChain<InodeState> states() {
    return states;
  }

  /** The directory that linked this inode last, now or before it was deleted; 0 for the root. */
  public long parentId() {
    return parentId;
  }

  void setParentId(long id) {
    parentId = id;
  }

  /** The file's writer epoch (0 until a writer reopens it or its lease is recovered). */
  public long writerEpoch() {
    return writerEpoch;
  }

  void raiseWriterEpoch(long epoch) {
    if (epoch > writerEpoch) {
      writerEpoch = epoch;
    }
  }

  /** The moments at which this inode's states are still exact: every one when null. */
  public MomentSet kept() {
    return kept;
  }

  void setKept(MomentSet moments) {
    kept = moments == null || moments.isAll() ? null : moments;
  }

  /** The moments at which this directory's names are still exact (a subset of {@link #kept}): every one when null. */
  public MomentSet keptNames() {
    return keptNames;
  }

  void setKeptNames(MomentSet moments) {
    keptNames = moments == null || moments.isAll() ? null : moments;
  }

  /** Whether garbage collection kept this inode's state at {@code micros}. */
  public boolean keeps(long micros) {
    return kept == null || kept.contains(micros);
  }

  /** Whether garbage collection kept this directory's names, so paths through it resolve, at {@code micros}. */
  public boolean keepsNames(long micros) {
    return keptNames == null || keptNames.contains(micros);
  }

  /** State as of {@code limit} (packed HLC), or null if the inode did not exist yet. */
  public InodeState stateAt(long limit) {
    return states.at(limit);
  }

  public InodeState latest() {
    return states.latest();
  }

  /** Every name this directory ever held, sorted; empty for files. Callers must not modify it. */
  public NavigableMap<String, ChildHistory> children() {
    return children == null ? java.util.Collections.emptyNavigableMap() : children;
  }

  ChildHistory childHistory(String name) {
    return children.computeIfAbsent(name, n -> new ChildHistory());
  }

  /** Forgets a name whose history garbage collection emptied. */
  void removeChild(String name) {
    children.remove(name);
  }

  /** The inode {@code name} stood for as of {@code limit}, or {@link Namespace#TOMBSTONE}. */
  public long child(String name, long limit) {
    ChildHistory history = children == null ? null : children.get(name);
    return history == null ? Namespace.TOMBSTONE : history.at(limit);
  }
}
