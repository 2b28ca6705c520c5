package io.fffs.namenode.fs;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.ContentSummaryProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.VersionProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.blocks.DatanodeManager;
import io.fffs.namenode.lease.LeaseManager;
import io.fffs.namenode.namespace.ChildHistory;
import io.fffs.namenode.namespace.GcSteps;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.InodeState;
import io.fffs.namenode.namespace.NamePaths;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.namespace.VersionChain;
import io.fffs.namenode.permission.Caller;
import io.fffs.namenode.permission.PermissionChecker;
import io.fffs.namenode.permission.PermissionChecker.Access;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Reading the namespace as of a time. Every query resolves at a limit from {@link QueryPath#limitFor}: the latest
 * state, or a system time after the wait-until-past rule. Permissions are checked against the states of that time,
 * and a system time that retention no longer keeps is refused ({@link Horizon}: {@code HISTORY_EXPIRED}).
 */
public final class NamespaceQueries {
  private final QueryPath reads;
  private final Namespace namespace;
  private final PermissionChecker permissions;
  private final LeaseManager leases;
  private final DatanodeManager datanodes;
  private final Horizon horizon;
  private final LongSupplier lastApplied;
  private final int stepUnits;

  /**
   * @param lastApplied the packed HLC of the last change applied (read under the lock)
   * @param stepUnits the units one read-lock hold of a whole-namespace count may visit ({@link GcSteps})
   */
  NamespaceQueries(QueryPath reads, Namespace namespace, PermissionChecker permissions, LeaseManager leases,
      DatanodeManager datanodes, Horizon horizon, LongSupplier lastApplied, int stepUnits) {
    this.reads = reads;
    this.namespace = namespace;
    this.permissions = permissions;
    this.leases = leases;
    this.datanodes = datanodes;
    this.horizon = horizon;
    this.lastApplied = lastApplied;
    this.stepUnits = stepUnits;
  }

  /** One page of a listing, and whether more follows. */
  public static final class Listing {
    public final List<FileStatusProto> entries;
    public final int remaining;

    Listing(List<FileStatusProto> entries, int remaining) {
      this.entries = entries;
      this.remaining = remaining;
    }
  }

  /** The status of {@code path} at {@code time}, or null if it did not exist then. */
  public FileStatusProto getFileInfo(Caller caller, String path, TimeSpec time) throws IOException {
    long limit = reads.limitFor(time, path);
    return reads.query(() -> {
      ResolvedPath target = resolve(path, limit, caller);
      horizon.check(target, time);
      return target.exists() ? status(target) : null;
    });
  }

  /**
   * The latest status of inode {@code inodeId}: at {@code hint} (where its handle last saw it) when it is linked
   * there, else where it is linked now if the caller may list the directory it is in (a handle must not reveal names
   * its holder could not list); null when it is linked nowhere, or nowhere the caller may see.
   */
  public FileStatusProto getFileInfoById(Caller caller, long inodeId, String hint) throws IOException {
    return reads.query(() -> {
      Inode inode = namespace.inode(inodeId);
      if (inode == null) {
        return null;
      }
      FffsException atHint = null;
      try {
        ResolvedPath there = resolve(hint, Namespace.LATEST, caller);
        if (there.exists() && there.last().id() == inodeId) {
          return status(there);
        }
      } catch (FffsException e) {
        atHint = e;  // reported (it names only the path the handle holds) if the inode is nowhere else
      }
      try {
        // Walked by name only when it moved: pathOf scans the names of each directory above it.
        ResolvedPath now = resolve(namespace.pathOf(inode), Namespace.LATEST, caller);
        if (now.exists() && now.last().id() == inodeId && !now.isRoot()) {
          permissions.check(caller, now.parentState(), NamePaths.join(now.components.subList(0,
              now.components.size() - 1)), Access.READ_EXECUTE);
          return status(now);
        }
      } catch (FffsException e) {
        // Not where the caller may look: as good as gone, and no name of it in a message.
      }
      if (atHint != null) {
        throw atHint;
      }
      return null;
    });
  }

  /**
   * The entries of directory {@code path} at {@code time} whose names sort after {@code startAfter}, at most
   * {@code limit}. A file lists as itself. {@code remaining} is 0 on the last page, else at least 1.
   */
  public Listing getListing(Caller caller, String path, TimeSpec time, String startAfter, int limit)
      throws IOException {
    long at = reads.limitFor(time, path);
    return reads.query(() -> {
      ResolvedPath resolved = resolve(path, at, caller);
      horizon.check(resolved, time);
      ResolvedPath target = resolved.requireExists();
      List<FileStatusProto> entries = new ArrayList<>();
      if (!target.lastState().isDirectory()) {
        entries.add(status(target));
        return new Listing(entries, 0);
      }
      if (time.kind() == TimeSpec.Kind.SYSTEM) {
        horizon.checkNames(target.last(), path, time.micros());
      }
      permissions.check(caller, target.lastState(), path, Access.READ_EXECUTE);
      String dir = NamePaths.join(target.components);
      Map<String, ChildHistory> after = startAfter == null || startAfter.isEmpty()
          ? target.last().children()
          : target.last().children().tailMap(startAfter, false);
      int max = Math.max(1, limit);
      for (Map.Entry<String, ChildHistory> child : after.entrySet()) {
        long id = child.getValue().at(at);
        if (id == Namespace.TOMBSTONE) {
          continue;
        }
        Inode inode = namespace.inode(id);
        if (time.kind() == TimeSpec.Kind.SYSTEM) {
          horizon.checkListed(inode, NamePaths.child(dir, child.getKey()), time.micros());
        }
        int version = inode.states().indexAt(at);
        if (version < 0) {
          continue;
        }
        if (entries.size() == max) {
          return new Listing(entries, 1);
        }
        entries.add(Statuses.fileStatus(NamePaths.child(dir, child.getKey()), inode,
            inode.states().value(version), inode.states().hlc(version)));
      }
      return new Listing(entries, 0);
    });
  }

  /** The blocks of file {@code path} at {@code time} overlapping the range, or null if it did not exist then. */
  public LocatedBlocksProto getBlockLocations(Caller caller, String path, TimeSpec time, long offset, long length)
      throws IOException {
    return getBlockLocations(caller, path, time, offset, length, null);
  }

  /**
   * The blocks as {@link #getBlockLocations(Caller, String, TimeSpec, long, long)}, or, for {@code writer} (a
   * client that holds the file's lease and asks at the latest time), checked for write permission instead of read:
   * the locations a writer renews its WRITE tokens with.
   */
  public LocatedBlocksProto getBlockLocations(Caller caller, String path, TimeSpec time, long offset, long length,
      String writer) throws IOException {
    if (writer != null && !time.isLatest()) {
      throw new FffsException(ErrorCode.READ_ONLY_PAST, "cannot write to " + path + " at " + time
          + ": the past is read-only");
    }
    if (offset < 0 || length < 0) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "offset " + offset + " and length " + length + " of "
          + path + " must not be negative");
    }
    long limit = reads.limitFor(time, path);
    return reads.query(() -> {
      ResolvedPath target = resolve(path, limit, caller);
      horizon.check(target, time);
      if (!target.exists()) {
        return null;
      }
      InodeState state = target.lastState();
      if (state.isDirectory()) {
        throw new FffsException(ErrorCode.IS_A_DIRECTORY, path + " is a directory; only files have blocks");
      }
      if (writer == null) {
        permissions.check(caller, state, path, Access.READ);
      } else {
        permissions.check(caller, state, path, Access.WRITE);
        if (!writer.equals(leases.holder(target.last().id()))) {
          throw new FffsException(ErrorCode.LEASE_CONFLICT, "client " + writer + " does not hold the lease on "
              + path + ", so it gets no write tokens for its blocks; open it for writing first");
        }
      }
      LocatedBlocksProto.Builder blocks = Statuses.locatedBlocks(state, target.lastHlc(), offset, length, datanodes)
          .toBuilder().setInodeId(target.last().id());
      // A writer renews its WRITE tokens under its own epoch: it holds the lease, so the file's epoch is its.
      return (writer == null ? blocks : blocks.setWriterEpoch(target.last().writerEpoch())).build();
    });
  }

  /**
   * Replication of the blocks of every file a path reaches now: blocks with fewer current replicas than their
   * file's replication, blocks with none, and live replicas that are stale (their last entry is older than another
   * replica's). Counted in bounded read-lock holds over the names bound when it began ({@link ReplicationCount});
   * counted again, up to twice, when history collection ran meanwhile, after which names changed during the count may
   * be off, as in any figure of a live namespace.
   */
  public ReplicationSummary replicationSummary() throws IOException {
    ReplicationCount count;
    int tries = 0;
    do {  // again (twice at most) when history collection ran meanwhile: it may have dropped a name it was to read
      count = new ReplicationCount(namespace, datanodes, lastApplied);
      GcSteps.run(count, stepUnits, step -> reads.query(step::run));
    } while (count.gcMeanwhile() && ++tries < 3);
    return count.summary();
  }

  /** What {@link #replicationSummary()} counts. */
  public record ReplicationSummary(long underReplicatedBlocks, long missingBlocks, long staleReplicas) {}

  /** Sizes and counts under {@code path} at {@code time}. */
  public ContentSummaryProto getContentSummary(Caller caller, String path, TimeSpec time) throws IOException {
    long limit = reads.limitFor(time, path);
    return reads.query(() -> {
      ResolvedPath resolved = resolve(path, limit, caller);
      horizon.check(resolved, time);
      ResolvedPath target = resolved.requireExists();
      long[] sums = new long[4];  // length, files, directories, space consumed
      summarize(target.last(), NamePaths.join(target.components), target.lastState(), limit,
          time.kind() == TimeSpec.Kind.SYSTEM ? time.micros() : -1, sums);
      return ContentSummaryProto.newBuilder().setLength(sums[0]).setFileCount(sums[1])
          .setDirectoryCount(sums[2]).setSpaceConsumed(sums[3]).build();
    });
  }

  /** Adds up the subtree as of {@code limit}; {@code micros} (-1 for none) is checked against what each inode kept. */
  private void summarize(Inode inode, String path, InodeState state, long limit, long micros, long[] sums)
      throws FffsException {
    if (micros >= 0) {
      horizon.checkListed(inode, path, micros);
      if (state.isDirectory()) {
        horizon.checkNames(inode, path, micros);
      }
    }
    if (!state.isDirectory()) {
      sums[0] += state.length();
      sums[1]++;
      sums[3] += state.length() * state.replication();
      return;
    }
    sums[2]++;
    for (Map.Entry<String, ChildHistory> entry : inode.children().entrySet()) {
      long id = entry.getValue().at(limit);
      if (id != Namespace.TOMBSTONE) {
        Inode child = namespace.inode(id);
        String childPath = NamePaths.child(path, entry.getKey());
        if (micros >= 0) {
          horizon.checkListed(child, childPath, micros);
        }
        InodeState childState = child.stateAt(limit);
        if (childState != null) {
          summarize(child, childPath, childState, limit, micros, sums);
        }
      }
    }
  }

  /**
   * Every HLC at which what {@code path} names changed — its namespace state or block list, and the moments the
   * name was bound to another inode or removed — oldest first, as far as retention keeps them: a version whose
   * moment a read would be refused at ({@code HISTORY_EXPIRED}) is not listed. A version's length is the file
   * length then (0 when the name was deleted).
   */
  public List<VersionProto> listVersions(Caller caller, String path) throws IOException {
    return reads.query(() -> {
      List<VersionProto> all = allVersions(caller, path);
      List<VersionProto> readable = new ArrayList<>(all.size());
      Horizon now = horizon.frozen();
      long window = now.windowStart(resolve(path, Namespace.LATEST, caller));
      for (int i = 0; i < all.size(); i++) {
        long micros = HlcTimestamp.fromProto(all.get(i).getHlc()).physicalMicros();
        long next = i + 1 < all.size() ? HlcTimestamp.fromProto(all.get(i + 1).getHlc()).physicalMicros()
            : Long.MAX_VALUE;
        if (readableAt(now, caller, path, micros)) {
          readable.add(all.get(i));
        } else if (micros < window && window < next && readableAt(now, caller, path, window)) {
          // Changed before the horizon and still current there: readable from the horizon on.
          readable.add(all.get(i).toBuilder().setReadableFromMicros(window).build());
        }
      }
      return readable;
    });
  }

  private boolean readableAt(Horizon horizon, Caller caller, String path, long micros) {
    try {
      return horizon.allows(resolve(path, Namespace.limitForMicros(micros), caller), micros);
    } catch (FffsException notReadable) {
      return false;  // e.g. a permission the caller lacked then: not a version it can read
    }
  }

  private List<VersionProto> allVersions(Caller caller, String path) throws IOException {
    List<String> components = NamePaths.components(path);
    List<VersionProto> versions = new ArrayList<>();
    if (components.isEmpty()) {
      addStates(versions, namespace.root(), 0, Long.MAX_VALUE);
      return versions;
    }
    ResolvedPath parent = resolve(NamePaths.join(components.subList(0, components.size() - 1)),
        Namespace.LATEST, caller).requireExists();
    permissions.check(caller, parent.lastState(), parent.path, Access.EXECUTE);
    ChildHistory history = parent.last().children().get(components.get(components.size() - 1));
    if (history == null) {
      throw new FffsException(ErrorCode.NOT_FOUND, "no such file or directory, now or in the past: " + path);
    }
    for (int i = 0; i < history.size(); i++) {
      long from = history.hlc(i);
      long until = i + 1 < history.size() ? history.hlc(i + 1) : Long.MAX_VALUE;
      if (history.inodeId(i) == Namespace.TOMBSTONE) {
        add(versions, from, 0, "delete");
      } else {
        addStates(versions, namespace.inode(history.inodeId(i)), from, until);
      }
    }
    return versions;
  }

  /** The states of {@code inode} in force during [from, until): the one current at {@code from}, then changes. */
  private static void addStates(List<VersionProto> versions, Inode inode, long from, long until) {
    VersionChain<InodeState> states = inode.states();
    int first = Math.max(0, states.indexAt(from));
    for (int i = first; i < states.size() && states.hlc(i) < until; i++) {
      InodeState state = states.value(i);
      add(versions, Math.max(from, states.hlc(i)), state.isDirectory() ? 0 : state.length(),
          states.hlc(i) < from ? "rename" : state.change());
    }
  }

  private static void add(List<VersionProto> versions, long hlc, long length, String change) {
    VersionProto version = VersionProto.newBuilder().setHlc(HlcTimestamp.valueOf(hlc).toProto())
        .setLength(length).setChange(change).build();
    int last = versions.size() - 1;
    if (last >= 0 && versions.get(last).getHlc().getPacked() == hlc) {
      versions.set(last, version);  // two changes at one HLC (e.g. a rename's two names) are one version
    } else {
      versions.add(version);
    }
  }

  private ResolvedPath resolve(String path, long limit, Caller caller) throws FffsException {
    return ResolvedPath.resolve(namespace, path, limit, caller, permissions);
  }

  private static FileStatusProto status(ResolvedPath target) {
    return Statuses.fileStatus(NamePaths.join(target.components), target.last(), target.lastState(),
        target.lastHlc());
  }
}
