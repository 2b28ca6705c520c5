package io.fffs.namenode.fs;

import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.namespace.ChildHistory;
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
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Questions about history as a whole (docs/history.md): what changed in a tree between two moments
 * ({@link #diff}), and how much the present and the past of a tree hold ({@link #usage}).
 */
public final class HistoryQueries {
  private final QueryPath reads;
  private final Namespace namespace;
  private final PermissionChecker permissions;
  private final Horizon horizon;

  HistoryQueries(QueryPath reads, Namespace namespace, PermissionChecker permissions, Horizon horizon) {
    this.reads = reads;
    this.namespace = namespace;
    this.permissions = permissions;
    this.horizon = horizon;
  }

  /** What happened to an entry of the tree between the two moments. */
  public enum Kind { CREATED, DELETED, RENAMED, MODIFIED }

  /**
   * One difference: {@code path} as it was at the first moment ({@code CREATED}: at the second), {@code target} the
   * path at the second for a rename; the lengths of a file then and now (-1 where it did not exist, 0 for
   * directories).
   */
  public record Difference(Kind kind, String path, String target, long lengthBefore, long lengthAfter) {}

  /** An entry of a tree at one moment: its path and state. */
  private record Seen(String path, InodeState state) {}

  /**
   * The differences of the tree at {@code path} between {@code from} and {@code to}, as HDFS's snapshotDiff lists
   * them: entries created, deleted, renamed (the same inode at another path) and modified (another state: a file's
   * blocks or lengths, or an attribute), by path. Both moments must be readable ({@code HISTORY_EXPIRED} otherwise).
   *
   * @param limit the most differences returned; {@code truncated} says when there were more
   */
  public Diff diff(Caller caller, String path, TimeSpec from, TimeSpec to, int limit) throws IOException {
    long fromLimit = reads.limitFor(from, path);
    long toLimit = reads.limitFor(to, path);
    return reads.query(() -> {
      Map<Long, Seen> before = tree(caller, path, from, fromLimit);
      Map<Long, Seen> after = tree(caller, path, to, toLimit);
      List<Difference> differences = new ArrayList<>();
      for (Map.Entry<Long, Seen> entry : before.entrySet()) {
        Seen was = entry.getValue();
        Seen is = after.get(entry.getKey());
        if (is == null) {
          differences.add(new Difference(Kind.DELETED, was.path, null, length(was.state), -1));
        } else if (!is.path.equals(was.path)) {
          differences.add(new Difference(Kind.RENAMED, was.path, is.path, length(was.state), length(is.state)));
        } else if (changed(was.state, is.state)) {
          differences.add(new Difference(Kind.MODIFIED, was.path, null, length(was.state), length(is.state)));
        }
      }
      for (Map.Entry<Long, Seen> entry : after.entrySet()) {
        if (!before.containsKey(entry.getKey())) {
          differences.add(new Difference(Kind.CREATED, entry.getValue().path, null, -1, length(entry.getValue()
              .state)));
        }
      }
      differences.sort((a, b) -> a.path.compareTo(b.path));
      boolean truncated = differences.size() > limit;
      return new Diff(truncated ? List.copyOf(differences.subList(0, limit)) : differences, truncated);
    });
  }

  /** The differences, sorted by path, and whether there were more than asked for. */
  public record Diff(List<Difference> differences, boolean truncated) {}

  /** Every inode of the tree at {@code path} as of {@code limit}, by id, with its path then (the root first). */
  private Map<Long, Seen> tree(Caller caller, String path, TimeSpec time, long limit) throws FffsException {
    ResolvedPath top = ResolvedPath.resolve(namespace, path, limit, caller, permissions);
    horizon.check(top, time);
    Map<Long, Seen> seen = new LinkedHashMap<>();
    if (!top.exists()) {
      return seen;
    }
    long micros = time.kind() == TimeSpec.Kind.SYSTEM ? time.micros() : -1;
    walk(caller, top.last(), NamePaths.join(top.components), top.lastState(), limit, micros, seen);
    return seen;
  }

  private void walk(Caller caller, Inode inode, String path, InodeState state, long limit, long micros,
      Map<Long, Seen> seen) throws FffsException {
    seen.put(inode.id(), new Seen(path, state));
    if (!state.isDirectory()) {
      return;
    }
    permissions.check(caller, state, path, Access.READ_EXECUTE);
    if (micros >= 0) {
      horizon.checkNames(inode, path, micros);
    }
    for (Map.Entry<String, ChildHistory> child : inode.children().entrySet()) {
      long id = child.getValue().at(limit);
      if (id == Namespace.TOMBSTONE) {
        continue;
      }
      Inode next = namespace.inode(id);
      String childPath = NamePaths.child(path, child.getKey());
      if (micros >= 0) {
        horizon.checkListed(next, childPath, micros);
      }
      InodeState nextState = next.stateAt(limit);
      if (nextState != null) {
        walk(caller, next, childPath, nextState, limit, micros, seen);
      }
    }
  }

  private static long length(InodeState state) {
    return state.isDirectory() ? 0 : state.length();
  }

  /** Whether what a reader sees of the entry differs: a file's blocks and lengths, or an attribute. */
  private static boolean changed(InodeState was, InodeState is) {
    boolean attributes = was.permission() != is.permission() || !was.owner().equals(is.owner())
        || !was.group().equals(is.group());
    if (was.isDirectory()) {
      return attributes;
    }
    return attributes || was.replication() != is.replication()
        || !Arrays.equals(was.blockIds(), is.blockIds()) || !Arrays.equals(was.blockLengths(), is.blockLengths())
        || was.mtime() != is.mtime();
  }

  /**
   * How much the tree at {@code path} holds, now and in the history the NameNode keeps of it: the present's files,
   * directories and bytes; the versions kept and the inodes kept only for the past (deleted or replaced); and the
   * bytes of blocks only past versions list (each at the largest length a kept version gives it).
   */
  public Usage usage(Caller caller, String path) throws IOException {
    return reads.query(() -> {
      ResolvedPath top = ResolvedPath.resolve(namespace, path, Namespace.LATEST, caller, permissions)
          .requireExists();
      long[] counts = new long[5];  // files, directories, bytes now, versions kept, inodes of the past only
      Set<Long> current = new HashSet<>();
      Map<Long, Long> pastBlocks = new HashMap<>();
      Set<Long> visited = new HashSet<>();
      account(top.last(), true, counts, current, pastBlocks, visited);
      long pastBytes = 0;
      for (Map.Entry<Long, Long> block : pastBlocks.entrySet()) {
        if (!current.contains(block.getKey())) {
          pastBytes += block.getValue();
        }
      }
      return new Usage(counts[0], counts[1], counts[2], counts[3], counts[4], pastBytes);
    });
  }

  /** The present and the kept past of a tree, as the NameNode holds it. */
  public record Usage(long files, long directories, long bytesNow, long versionsKept, long pastOnlyInodes,
      long pastOnlyBytes) {}

  /** Adds {@code inode} and what it binds now ({@code live}) or only in the past to the counts. */
  private void account(Inode inode, boolean live, long[] counts, Set<Long> current, Map<Long, Long> pastBlocks,
      Set<Long> visited) {
    if (!visited.add(inode.id())) {
      return;
    }
    VersionChain<InodeState> states = inode.states();
    counts[3] += states.size();
    InodeState latest = inode.latest();
    if (live) {
      counts[latest.isDirectory() ? 1 : 0]++;
      if (!latest.isDirectory()) {
        counts[2] += latest.length();
        for (long id : latest.blockIds()) {
          current.add(id);
        }
      }
    } else {
      counts[4]++;
    }
    for (int i = 0; i < states.size(); i++) {
      InodeState state = states.value(i);
      for (int b = 0; b < state.blockCount(); b++) {
        pastBlocks.merge(state.blockId(b), state.blockLength(b), Math::max);
      }
    }
    for (ChildHistory history : inode.children().values()) {
      long now = history.latest();
      if (live && now != Namespace.TOMBSTONE && namespace.inode(now) != null) {
        account(namespace.inode(now), true, counts, current, pastBlocks, visited);  // the present first
      }
      for (int i = 0; i < history.size(); i++) {
        long id = history.inodeId(i);
        Inode child = id == Namespace.TOMBSTONE ? null : namespace.inode(id);
        if (child != null) {
          account(child, false, counts, current, pastBlocks, visited);
        }
      }
    }
  }
}
