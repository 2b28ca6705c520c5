package io.fffs.namenode.fs;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.time.TimeText;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.NamePaths;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.namespace.Retention;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The edge of history: refuses, with {@code HISTORY_EXPIRED}, a read of a moment that retention does not keep, so
 * that a read never silently answers from what garbage collection left. A moment is readable when every inode the
 * path passes through still holds it exactly ({@link Inode#kept}) and the rule of the inode the path ends at keeps it
 * now: its window or a tier moment, a pin on the path, or one of the newest versions its rule keeps. Called under
 * the namespace read lock.
 */
final class Horizon {
  private final Namespace namespace;
  private final Retention retention;
  private final Supplier<RetentionRule> clusterDefault;
  private final LongSupplier nowMicros;

  Horizon(Namespace namespace, Supplier<RetentionRule> clusterDefault, LongSupplier nowMicros) {
    this.namespace = namespace;
    this.retention = new Retention(namespace);
    this.clusterDefault = clusterDefault;
    this.nowMicros = nowMicros;
  }

  /** This horizon with "now" fixed at the present: several checks of one answer then agree with each other. */
  Horizon frozen() {
    return frozen(nowMicros.getAsLong());
  }

  /** This horizon with "now" fixed at {@code now}. */
  Horizon frozen(long now) {
    return new Horizon(namespace, clusterDefault, () -> now);
  }

  /** Checks a read of {@code resolved} at {@code time}; reads of the latest state and by user time always pass. */
  void check(ResolvedPath resolved, TimeSpec time) throws FffsException {
    if (time.kind() == TimeSpec.Kind.SYSTEM) {
      check(resolved, time.micros());
    }
  }

  void check(ResolvedPath resolved, long micros) throws FffsException {
    for (int i = 0; i < resolved.existing; i++) {
      Inode inode = resolved.inodes[i];
      String path = NamePaths.join(resolved.components.subList(0, i));
      if (!inode.keeps(micros)) {
        throw collected(inode.kept(), path, micros);
      }
      // Its names were used: the path passes through it, or they said the next component was not there.
      boolean namesUsed = i < resolved.existing - 1 || !resolved.exists();
      if (namesUsed && !inode.keepsNames(micros)) {
        throw collected(inode.keptNames(), path, micros);
      }
    }
    int deepest = resolved.existing - 1;
    if (resolved.collectedChild != null) {
      String childPath = NamePaths.join(resolved.components.subList(0, deepest + 1));
      throw collected(resolved.collectedChild.kept() == null ? MomentSet.NONE : resolved.collectedChild.kept(),
          childPath, micros);
    }
    Inode target = resolved.inodes[deepest];
    String targetPath = NamePaths.join(resolved.components.subList(0, deepest));
    Retention.Governing governing = retention.ruleOf(target, clusterDefault.get());
    RetentionRule rule = governing.rule();
    if (rule.keeps(nowMicros.getAsLong(), micros) || retention.pinned(targetPath, micros)) {
      return;
    }
    if (deepest > 0 && !target.isDirectory()) {
      // The newest versions of a name, as garbage collection counts them: by the rule of its directory.
      Inode directory = resolved.inodes[deepest - 1];
      int versions = retention.ruleOf(directory, clusterDefault.get()).rule().keepVersions();
      if (versions > 0 && retention.isNewestVersion(directory, resolved.components.get(deepest - 1), versions,
          micros)) {
        return;
      }
    }
    throw expired(targetPath, micros, governing);
  }

  /** Checks that a child listed at {@code micros} still holds its state then (a nested rule may have dropped it). */
  void checkListed(Inode child, String childPath, long micros) throws FffsException {
    if (!child.keeps(micros)) {
      throw collected(child.kept(), childPath, micros);
    }
  }

  /** Checks that a directory listed at {@code micros} still holds its names then. */
  void checkNames(Inode directory, String path, long micros) throws FffsException {
    if (!directory.keepsNames(micros)) {
      throw collected(directory.keptNames(), path, micros);
    }
  }

  /**
   * Where the window of what {@code resolved} (as it is now) ends at: from this moment on every moment is readable
   * unless a rule or collection deeper down says otherwise; 0 when everything is kept.
   */
  long windowStart(ResolvedPath resolved) {
    int deepest = resolved.existing - 1;
    long start = retention.ruleOf(resolved.inodes[deepest], clusterDefault.get()).rule().horizon(
        nowMicros.getAsLong());
    for (int i = 0; i < resolved.existing; i++) {
      MomentSet kept = resolved.inodes[i].kept();
      if (kept != null) {
        start = Math.max(start, kept.floor());
      }
      MomentSet names = i < resolved.existing - 1 ? resolved.inodes[i].keptNames() : null;
      if (names != null) {
        start = Math.max(start, names.floor());
      }
    }
    return start;
  }

  /** Whether a read of {@code resolved} at {@code micros} passes {@link #check}. */
  boolean allows(ResolvedPath resolved, long micros) {
    try {
      check(resolved, micros);
      return true;
    } catch (FffsException e) {
      return false;
    }
  }

  private FffsException expired(String path, long micros, Retention.Governing governing) {
    RetentionRule rule = governing.rule();
    long now = nowMicros.getAsLong();
    long horizon = rule.horizon(now);
    String where = governing.holder() == null ? "the cluster default (fffs.history.retention.default)"
        : namespace.pathOf(governing.holder());
    long before = rule.latestKeptBefore(now, micros);
    return new FffsException(ErrorCode.HISTORY_EXPIRED, path + TimeSpec.system(micros).toMarker() + " ("
        + TimeText.isoMicros(micros) + ") is before the history horizon " + TimeText.isoMicros(horizon) + " of "
        + path + ", set by the rule '" + rule + "' (" + rule.describe() + ") on " + where
        + (before >= 0 ? "; the nearest earlier moment kept is " + TimeText.isoMicros(before) : "")
        + "; read at or after the horizon, or pin the moments you need before they pass it");
  }

  private static FffsException collected(MomentSet kept, String path, long micros) {
    long before = kept.latestBefore(micros);
    long after = kept.earliestAfter(micros);
    return new FffsException(ErrorCode.HISTORY_EXPIRED, path + TimeSpec.system(micros).toMarker() + " ("
        + TimeText.isoMicros(micros) + ") has been garbage-collected: " + path + " is kept exactly only at "
        + describe(kept) + (before >= 0 ? "; the nearest earlier moment kept is " + TimeText.isoMicros(before) : "")
        + (after >= 0 ? "; the nearest later one is " + TimeText.isoMicros(after) : ""));
  }

  private static String describe(MomentSet kept) {
    long floor = kept.floor();
    int points = kept.intervalCount() - (floor == MomentSet.END ? 0 : 1);
    if (floor == MomentSet.END) {
      return points + " moment" + (points == 1 ? "" : "s");
    }
    return "moments from " + TimeText.isoMicros(floor) + " on" + (points == 0 ? "" : " and " + points
        + " earlier moment" + (points == 1 ? "" : "s"));
  }
}
