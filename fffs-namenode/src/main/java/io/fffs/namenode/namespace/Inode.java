package io.fffs.namenode.namespace;

import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * A file or directory with its whole history. The id is never reused; the states form a {@link VersionChain}; a
 * directory maps each name it ever held to that name's {@link ChildHistory} (sorted, for paged listings).
 */
public final class Inode {
  private final long id;
  private final VersionChain<InodeState> states = new VersionChain<>();
  private final TreeMap<String, ChildHistory> children;

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

  /** The inode {@code name} stood for as of {@code limit}, or {@link Namespace#TOMBSTONE}. */
  public long child(String name, long limit) {
    ChildHistory history = children == null ? null : children.get(name);
    return history == null ? Namespace.TOMBSTONE : history.at(limit);
  }
}
