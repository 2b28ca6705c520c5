package io.fffs.namenode.fs;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.InodeState;
import io.fffs.namenode.namespace.NamePaths;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.permission.Caller;
import io.fffs.namenode.permission.PermissionChecker;
import java.util.List;

/**
 * A path walked as of some limit: the inode and state of every component that existed then (the root first),
 * with traverse permission checked on the directories passed through.
 */
final class ResolvedPath {
  final String path;
  final List<String> components;
  /** inodes[0] is the root; inodes[i] the i-th component; null from the first missing one on. */
  final Inode[] inodes;
  final InodeState[] states;
  final int[] versionIndexes;
  /** How many entries of {@link #inodes} exist (at least 1: the root). */
  final int existing;
  /** Index of a component that is a file but has components after it, or -1. */
  final int fileInTheMiddle;
  /**
   * The inode the first missing component's name resolved to although it had no state then, or null: only garbage
   * collection leaves that (a name is bound when its inode is made), so a read there must be refused.
   */
  final Inode collectedChild;

  private ResolvedPath(String path, List<String> components, Inode[] inodes, InodeState[] states,
      int[] versionIndexes, int existing, int fileInTheMiddle, Inode collectedChild) {
    this.path = path;
    this.components = components;
    this.inodes = inodes;
    this.states = states;
    this.versionIndexes = versionIndexes;
    this.existing = existing;
    this.fileInTheMiddle = fileInTheMiddle;
    this.collectedChild = collectedChild;
  }

  static ResolvedPath resolve(Namespace namespace, String path, long limit, Caller caller,
      PermissionChecker permissions) throws FffsException {
    List<String> components = NamePaths.components(path);
    int n = components.size() + 1;
    Inode[] inodes = new Inode[n];
    InodeState[] states = new InodeState[n];
    int[] versions = new int[n];
    inodes[0] = namespace.root();
    versions[0] = inodes[0].states().indexAt(limit);
    states[0] = inodes[0].states().value(versions[0]);
    int existing = 1;
    int fileInTheMiddle = -1;
    Inode collectedChild = null;
    for (int i = 1; i < n; i++) {
      Inode parent = inodes[i - 1];
      if (!parent.isDirectory()) {
        fileInTheMiddle = i - 1;
        break;
      }
      permissions.check(caller, states[i - 1], NamePaths.join(components.subList(0, i - 1)),
          PermissionChecker.Access.EXECUTE);
      long childId = parent.child(components.get(i - 1), limit);
      if (childId == Namespace.TOMBSTONE) {
        break;
      }
      Inode child = namespace.inode(childId);
      int version = child == null ? -1 : child.states().indexAt(limit);
      if (version < 0) {
        collectedChild = child;
        break;
      }
      inodes[i] = child;
      states[i] = child.states().value(version);
      versions[i] = version;
      existing++;
    }
    return new ResolvedPath(path, components, inodes, states, versions, existing, fileInTheMiddle, collectedChild);
  }

  boolean exists() {
    return existing == inodes.length;
  }

  boolean isRoot() {
    return components.isEmpty();
  }

  Inode last() {
    return exists() ? inodes[inodes.length - 1] : null;
  }

  InodeState lastState() {
    return exists() ? states[states.length - 1] : null;
  }

  long lastHlc() {
    return last().states().hlc(versionIndexes[versionIndexes.length - 1]);
  }

  /** The parent directory's inode, if it exists. */
  Inode parent() {
    return existing >= inodes.length - 1 && inodes.length > 1 ? inodes[inodes.length - 2] : null;
  }

  InodeState parentState() {
    return parent() == null ? null : states[states.length - 2];
  }

  String parentPath() {
    return NamePaths.join(components.subList(0, Math.max(0, components.size() - 1)));
  }

  String name() {
    return components.isEmpty() ? "" : components.get(components.size() - 1);
  }

  /** The deepest existing component: its path and state (for a permission check on a create). */
  InodeState deepestExistingState() {
    return states[existing - 1];
  }

  String deepestExistingPath() {
    return NamePaths.join(components.subList(0, existing - 1));
  }

  /** Refuses a path that runs through a file ({@code /file/child}). */
  ResolvedPath requireNoFileInTheMiddle() throws FffsException {
    if (fileInTheMiddle >= 0) {
      throw new FffsException(ErrorCode.NOT_A_DIRECTORY, NamePaths.join(components.subList(0, fileInTheMiddle))
          + " is a file, so " + path + " cannot exist");
    }
    return this;
  }

  /** Refuses a missing path with {@code NOT_FOUND}. */
  ResolvedPath requireExists() throws FffsException {
    requireNoFileInTheMiddle();
    if (!exists()) {
      throw new FffsException(ErrorCode.NOT_FOUND, "no such file or directory: " + path);
    }
    return this;
  }
}
