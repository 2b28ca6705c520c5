package io.fffs.namenode.namespace;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The versioned namespace ({@code docs/design.md}, NameNode): every inode with its state chain, every directory
 * with the history of each name it held. Nothing is ever removed: a delete or rename writes a tombstone, so any
 * past state can be resolved, one binary search per path component.
 *
 * <p>Not thread-safe by itself: {@link NamespaceApplier} changes it under the owner's write lock; queries run under
 * the read lock. Times are packed HLCs used as a limit: "as of t" means every version whose HLC is at most
 * {@code limit}, where {@code limit = t << 10 | 1023} for a system time t in µs and {@code Long.MAX_VALUE} for the
 * latest state.
 */
public final class Namespace {
  /** The root directory's inode id. */
  public static final long ROOT_ID = 1;
  /** The inode id that stands for "no inode": a deleted or renamed-away name. Ids start at 1. */
  public static final long TOMBSTONE = 0;
  /** The lookup limit for the newest state. */
  public static final long LATEST = Long.MAX_VALUE;

  /** Concurrent only for its weakly consistent iterators: a garbage-collection pass reads it in bounded steps. */
  private final Map<Long, Inode> inodes = new ConcurrentHashMap<>();
  private final TreeMap<String, Pin> pins = new TreeMap<>();
  private final DelegationState delegation = new DelegationState();
  /** Read without the namespace's lock (DataNode registrations): a list replaced whole. */
  private volatile List<String> decommissioned = List.of();
  private final BlockLastEntries lastEntries = new BlockLastEntries();
  private final String clusterId;
  /** HLC of the last garbage-collection pass applied, 0 if none. */
  private long lastGcHlc;
  private long gcBatches;
  private long gcDrops;
  private long nextInodeId = ROOT_ID + 1;
  private long nextBlockId = 1;

  private Namespace(String clusterId) {
    this.clusterId = clusterId;
  }

  /** A namespace holding only the root directory, as of HLC 0. */
  public static Namespace format(String clusterId, String owner, String group, short permission) {
    Namespace namespace = new Namespace(clusterId);
    Inode root = new Inode(ROOT_ID, true);
    root.states().add(0, InodeState.newDirectory(permission, owner, group, 0));
    namespace.inodes.put(ROOT_ID, root);
    return namespace;
  }

  /** An empty namespace that an image loader fills. */
  static Namespace empty(String clusterId) {
    return new Namespace(clusterId);
  }

  /** The packed-HLC limit for "as of system time {@code micros}". */
  public static long limitForMicros(long micros) {
    return micros << io.fffs.common.time.HlcTimestamp.LOGICAL_BITS | io.fffs.common.time.HlcTimestamp.MAX_LOGICAL;
  }

  public String clusterId() {
    return clusterId;
  }

  public Inode root() {
    return inodes.get(ROOT_ID);
  }

  public Inode inode(long id) {
    return inodes.get(id);
  }

  /** Calls {@code action} for {@code from} if it is a file, else for every file below it that a path reaches now. */
  public void forEachLatestFile(Inode from, Consumer<Inode> action) {
    if (!from.isDirectory()) {
      action.accept(from);
      return;
    }
    for (ChildHistory child : from.children().values()) {
      long id = child.latest();
      if (id != TOMBSTONE) {
        forEachLatestFile(inodes.get(id), action);
      }
    }
  }

  /** The inode with {@code id}; refuses an unknown one (a file id a client holds that this namespace lacks). */
  public Inode requireInode(long id) throws FffsException {
    Inode inode = inodes.get(id);
    if (inode == null) {
      throw new FffsException(ErrorCode.NOT_FOUND, "no file with id " + id);
    }
    return inode;
  }

  /**
   * Every inode. Its iterators are weakly consistent: one kept across changes (between holds of the lock) still
   * returns each inode that stays the whole time exactly once.
   */
  public Collection<Inode> inodes() {
    return inodes.values();
  }

  public int inodeCount() {
    return inodes.size();
  }

  /**
   * The inode at {@code path} as of {@code limit}, or null when some component did not exist then (or a
   * component before the last was not a directory).
   */
  public Inode resolve(String path, long limit) throws FffsException {
    return resolve(NamePaths.components(path), limit);
  }

  /** {@link #resolve(String, long)} for a path already split. */
  public Inode resolve(List<String> components, long limit) {
    Inode current = root();
    for (String name : components) {
      if (!current.isDirectory() || current.stateAt(limit) == null) {
        return null;
      }
      long childId = current.child(name, limit);
      if (childId == TOMBSTONE) {
        return null;
      }
      current = inodes.get(childId);
    }
    return current.stateAt(limit) == null ? null : current;
  }

  /** Allocates an inode id for an op about to be logged. Ids are never reused. */
  public long allocateInodeId() {
    return nextInodeId++;
  }

  /** Allocates a block id for an op about to be logged. Ids are never reused. */
  public long allocateBlockId() {
    return nextBlockId++;
  }

  public long nextInodeId() {
    return nextInodeId;
  }

  public long nextBlockId() {
    return nextBlockId;
  }

  /**
   * Gives back the ids allocated since the counters were {@code inodeId} and {@code blockId} by a change that then
   * logged nothing: the counters stay those the log replays to, as on every NameNode that only replays it.
   */
  public void giveBackIds(long inodeId, long blockId) {
    setCounters(inodeId, blockId);
  }

  void setCounters(long inodeId, long blockId) {
    nextInodeId = inodeId;
    nextBlockId = blockId;
  }

  Inode newInode(long id, boolean directory) {
    if (inodes.containsKey(id)) {
      throw new IllegalStateException("inode id " + id + " reused");
    }
    Inode inode = new Inode(id, directory);
    inodes.put(id, inode);
    nextInodeId = Math.max(nextInodeId, id + 1);
    return inode;
  }

  void sawBlockId(long blockId) {
    nextBlockId = Math.max(nextBlockId, blockId + 1);
  }

  /** The pins by name. Callers must not modify it. */
  /** The delegation-token keys and tokens kept across restarts. */
  /** Per block, the newest last entry its writers reported. */
  public BlockLastEntries lastEntries() {
    return lastEntries;
  }

  public DelegationState delegation() {
    return delegation;
  }

  /** The DataNodes being or already decommissioned, as logged (with several NameNodes; see DecommissionsOp). */
  public List<String> decommissioned() {
    return decommissioned;
  }

  public void setDecommissioned(List<String> nodes) {
    decommissioned = List.copyOf(nodes);
  }

  public NavigableMap<String, Pin> pins() {
    return pins;
  }

  void addPin(Pin pin) {
    pins.put(pin.name(), pin);
  }

  void removePin(String name) {
    pins.remove(name);
  }

  /** Garbage-collection batches applied since load: a reading in steps sees whether one dropped history meanwhile. */
  public long gcBatches() {
    return gcBatches;
  }

  void countGcBatch() {
    gcBatches++;
  }

  /** Garbage-collection batches applied since load that dropped a file's version or a file: blocks may be gone. */
  public long gcDrops() {
    return gcDrops;
  }

  void countGcDrop() {
    gcDrops++;
  }

  public long lastGcHlc() {
    return lastGcHlc;
  }

  void setLastGcHlc(long hlc) {
    lastGcHlc = hlc;
  }

  void removeInode(long id) {
    inodes.remove(id);
  }

  /**
   * The path at which {@code inode} was linked last (now, or before it was deleted), found through the parents'
   * names; for messages. A name no longer known shows as {@code #<id>}.
   */
  public String pathOf(Inode inode) {
    List<String> names = new java.util.ArrayList<>();
    Inode current = inode;
    for (int depth = 0; current != null && current.id() != ROOT_ID && depth < inodes.size(); depth++) {
      Inode parent = inodes.get(current.parentId());
      names.add(parent == null ? "#" + current.id() : nameIn(parent, current.id()));
      current = parent;
    }
    java.util.Collections.reverse(names);
    return NamePaths.join(names);
  }

  /** The name {@code parent} linked {@code childId} under last. */
  private static String nameIn(Inode parent, long childId) {
    String best = "#" + childId;
    long bestHlc = -1;
    for (Map.Entry<String, ChildHistory> entry : parent.children().entrySet()) {
      ChildHistory history = entry.getValue();
      for (int i = history.size() - 1; i >= 0; i--) {
        if (history.inodeId(i) == childId) {
          if (history.hlc(i) > bestHlc) {
            bestHlc = history.hlc(i);
            best = entry.getKey();
          }
          break;
        }
      }
    }
    return best;
  }
}
