package io.fffs.namenode.namespace;

import io.fffs.common.history.MomentSet;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.time.HlcTimestamp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One garbage-collection pass of the namespace (docs/history.md): drops the versions, names and inodes that no
 * retained moment sees. Applied by {@link NamespaceApplier} for a logged {@code GcOp}, at run time and at replay
 * alike; it depends only on the namespace, its rules and pins, the pass's time and the cluster default it was given,
 * so replay drops exactly what the live pass dropped.
 *
 * <p>The moments an inode must keep exact:
 * <ul>
 *   <li><em>own</em>: what its rule keeps now (window and tier moments), the moments of the newest versions its
 *       rule keeps for a name it was bound to, and the moment of every pin whose subtree held it then;</li>
 *   <li>for a directory's names (and its states): its own moments and, up the tree to the root, its children's
 *       while they were bound under it — a path through it must resolve then;</li>
 *   <li>for its states also: its parents' names' moments while it was bound under them — wherever a name is kept,
 *       what it resolves to is exact too.</li>
 * </ul>
 * Each inode then keeps those moments and nothing it had dropped before (the kept sets only shrink): a version stays
 * when a kept moment sees it, a name's entry likewise, and an inode stays while a kept entry of a kept directory
 * binds it. What a read at a kept moment finds is unchanged.
 */
public final class GcPass {
  /** What a pass dropped. */
  public record Result(int inodesRemoved, long versionsDropped, long namesDropped, List<Long> removedInodeIds) {
    public boolean droppedAnything() {
      return inodesRemoved > 0 || versionsDropped > 0 || namesDropped > 0;
    }
  }

  /** That {@code child} was bound under {@code parent} during {@code [from, to)} (µs). */
  private record Link(Inode child, Inode parent, long from, long to) {}

  private final Namespace namespace;
  private final Retention retention;
  private final long nowMicros;
  private final RetentionRule clusterDefault;
  private final Map<Inode, MomentSet> needed = new IdentityHashMap<>();
  private final Map<Inode, List<Link>> linksOfChild = new IdentityHashMap<>();

  private GcPass(Namespace namespace, long nowMicros, RetentionRule clusterDefault) {
    this.namespace = namespace;
    this.retention = new Retention(namespace);
    this.nowMicros = nowMicros;
    this.clusterDefault = clusterDefault;
  }

  /**
   * What one inode is to keep: the moments of its states and, for a directory, of its names (else null); with the
   * units applying it costs (the inode, its versions and its names' entries as the plan read them), by which batches
   * are cut.
   */
  public record Keep(long inodeId, MomentSet states, MomentSet names, int units, Part part) {
    public Keep(long inodeId, MomentSet states, MomentSet names, int units) {
      this(inodeId, states, names, units, null);
    }

    public Keep(long inodeId, MomentSet states, MomentSet names) {
      this(inodeId, states, names, 1);
    }
  }

  /**
   * Which of an inode's entries one part of its keep decides ({@link GcBatches}): its versions ({@code states}),
   * else the entries of its names from {@code namesFrom} to {@code namesTo}, both included; either way only those
   * with an HLC in [{@code fromHlc}, {@code toHlc}) ({@code Long.MAX_VALUE}: no end). An inode's parts are applied
   * in order, which drops what its whole keep drops.
   */
  public record Part(boolean states, String namesFrom, String namesTo, long fromHlc, long toHlc) {}

  /**
   * Runs each step of a pass's reading under the namespace's read lock, or directly where the caller holds a lock
   * already.
   */
  @FunctionalInterface
  public interface Locked {
    void run(Step step) throws IOException;
  }

  /** One bounded step of a pass's reading ({@link GcSteps}); returns the units (inodes, names, entries) it visited. */
  @FunctionalInterface
  public interface Step {
    int run();
  }

  /** Runs every step directly: for callers holding a lock for the whole pass (replay). */
  public static final Locked DIRECT = Step::run;

  /** Runs a whole pass as of {@code stamp} (its physical part is "now"): a {@code GcOp} of an older log. */
  static Result run(Namespace namespace, HlcTimestamp stamp, RetentionRule clusterDefault) {
    try {
      Result kept = apply(namespace, plan(namespace, stamp.physicalMicros(), clusterDefault, Integer.MAX_VALUE,
          DIRECT));
      List<Long> removed = remove(namespace, unreachable(namespace, Integer.MAX_VALUE, DIRECT));
      finished(namespace, stamp);
      return new Result(removed.size(), kept.versionsDropped(), kept.namesDropped(), removed);
    } catch (IOException e) {
      throw new UncheckedIOException(e);  // cannot happen: the steps run directly
    }
  }

  /**
   * What every inode of the namespace is to keep as of {@code nowMicros}; changes nothing. What it reads of the
   * namespace it reads in steps run by {@code locked} (under the read lock) of about {@code budget} units each
   * ({@link GcSteps}): the inodes there are, each inode's rule and names, the pins' subtrees. Changes go on between
   * steps; the rest is computed on what the steps gathered, holding no lock. Changes made meanwhile, or before the
   * plan is applied, are kept whatever it says, since whatever a change stamps after {@code nowMicros} lies in every
   * rule's window: an inode created meanwhile is not planned (nothing of it is dropped), a binding made meanwhile
   * adds nothing a rule does not keep, and one ended meanwhile is kept to its end.
   */
  public static List<Keep> plan(Namespace namespace, long nowMicros, RetentionRule clusterDefault, int budget,
      Locked locked) throws IOException {
    return new GcPass(namespace, nowMicros, clusterDefault).plan(Math.max(1, budget), locked);
  }

  private List<Keep> plan(int budget, Locked locked) throws IOException {
    List<Inode> inodes = GcSteps.inodes(namespace, budget, locked);
    Set<Inode> planned = Collections.newSetFromMap(new IdentityHashMap<>());
    planned.addAll(inodes);
    List<Link> links = new ArrayList<>();
    InodeReading reading = new InodeReading(inodes, planned, links);
    GcSteps.run(reading, budget, locked);
    GcSteps.run(new PinnedMoments(namespace, this::add), budget, locked);
    propagateUp(inodes);  // needed: what resolution through an inode and its own rule need
    Map<Inode, MomentSet> states = new IdentityHashMap<>(needed);
    for (Link link : links) {
      // Wherever the parent's names stay exact, a name resolves to the child: its state must be exact there too
      // (a listing shows it; a path through it goes on from it).
      MomentSet listed = needed.get(link.parent).within(link.from, link.to);
      if (!listed.isEmpty()) {
        states.merge(link.child, listed, MomentSet::union);
      }
    }
    List<Keep> keeps = new ArrayList<>(inodes.size());
    for (int i = 0; i < inodes.size(); i++) {
      Inode inode = inodes.get(i);
      keeps.add(new Keep(inode.id(), states.get(inode), inode.isDirectory() ? needed.get(inode) : null,
          reading.units[i]));
    }
    return keeps;
  }

  /**
   * Reads each planned inode's own moments and its names' bindings, a budget at a time: a directory's names may
   * span several steps.
   */
  private final class InodeReading implements GcSteps.Stepped {
    private final List<Inode> inodes;
    private final Set<Inode> planned;
    private final List<Link> links;
    private final Map<RetentionRule, MomentSet> byRule = new HashMap<>();
    /** Per inode: itself, its versions and its names' entries, what applying its keep will go through. */
    private final int[] units;
    private int index;
    private boolean started;
    private int versions;
    private String after;

    InodeReading(List<Inode> inodes, Set<Inode> planned, List<Link> links) {
      this.inodes = inodes;
      this.planned = planned;
      this.links = links;
      this.units = new int[inodes.size()];
    }

    @Override
    public boolean done() {
      return index >= inodes.size();
    }

    @Override
    public void step(GcSteps.Units units) {
      while (!units.exhausted() && index < inodes.size()) {
        Inode inode = inodes.get(index);
        if (!started) {
          versions = ownMoments(inode, byRule);
          started = true;
          after = null;
          units.spend(1);
          this.units[index] = 1 + inode.states().size();
          continue;
        }
        int at = index;
        after = GcSteps.names(inode, after, units, (name, history) -> {
          if (versions > 0) {
            retention.newestVersions(inode, name, versions, (micros, child) -> add(child, MomentSet.point(micros)));
          }
          links(inode, history, planned, links);
          this.units[at] += history.size();
          return history.size();
        });
        if (after == null) {
          index++;
          started = false;
        }
      }
    }
  }

  /**
   * Makes each listed inode keep only what it kept before and its {@link Keep} says (inodes gone since are skipped):
   * drops the versions and names no kept moment sees, or, for a keep's {@link Part}, those of the part's entries.
   * The kept moments are set whole by each part (so a read between parts already answers as after the last).
   * Counts no removed inodes.
   */
  public static Result apply(Namespace namespace, List<Keep> keeps) {
    namespace.countGcBatch();
    long versions = 0;
    long names = 0;
    boolean fileVersions = false;
    for (Keep keep : keeps) {
      Inode inode = namespace.inode(keep.inodeId());
      if (inode == null) {
        continue;
      }
      Part part = keep.part();
      MomentSet keptStates = intersect(keep.states(), inode.kept());
      inode.setKept(keptStates);
      if (part == null || part.states()) {
        int dropped = part == null ? inode.states().retainVisible(keptStates)
            : inode.states().retainVisible(keptStates, part.fromHlc(), part.toHlc());
        versions += dropped;
        fileVersions |= dropped > 0 && !inode.isDirectory();
      }
      if (inode.isDirectory() && keep.names() != null) {
        MomentSet keptNames = intersect(keep.names(), inode.keptNames());
        inode.setKeptNames(keptNames);
        if (part != null && part.states()) {
          continue;
        }
        Map<String, ChildHistory> decided = part == null ? inode.children()
            : inode.children().subMap(part.namesFrom(), true, part.namesTo(), true);
        List<String> emptied = new ArrayList<>();
        for (Map.Entry<String, ChildHistory> child : decided.entrySet()) {
          versions += part == null ? child.getValue().retainVisible(keptNames)
              : child.getValue().retainVisible(keptNames, part.fromHlc(), part.toHlc());
          if (child.getValue().size() == 0) {
            emptied.add(child.getKey());
          }
        }
        emptied.forEach(inode::removeChild);
        names += emptied.size();
      }
    }
    if (fileVersions) {
      namespace.countGcDrop();
    }
    return new Result(0, versions, names, List.of());
  }

  /**
   * Records {@code stamp} as the last pass's (the last batch of a pass was applied at it), and forgets the last
   * entries of the blocks no version kept refers to.
   */
  public static void finished(Namespace namespace, HlcTimestamp stamp) {
    namespace.setLastGcHlc(stamp.packed());
    BlockLastEntries entries = namespace.lastEntries();
    if (entries.size() == 0) {
      return;
    }
    // One walk of the kept versions, as the blocks table's; only blocks with an entry are remembered.
    Set<Long> referenced = new HashSet<>();
    for (Inode inode : namespace.inodes()) {
      if (inode.isDirectory()) {
        continue;
      }
      VersionChain<InodeState> states = inode.states();
      for (int i = 0; i < states.size(); i++) {
        InodeState state = states.value(i);
        for (int b = 0; b < state.blockCount(); b++) {
          if (entries.get(state.blockId(b)) != 0) {
            referenced.add(state.blockId(b));
          }
        }
      }
    }
    entries.retainOnly(referenced::contains);
  }

  /**
   * The blocks with a last entry that no version of any inode refers to, read in steps of about {@code budget}
   * units (an inode and each of its versions) run by {@code locked}: what {@link #finished} forgets, found without
   * walking every version under the write lock. Call it once the pass's inodes are removed. A block no version
   * refers to stays so (a new version refers to the blocks of the current state, or to new ones).
   */
  public static List<Long> unreferencedEntries(Namespace namespace, int budget, Locked locked) throws IOException {
    Set<Long> withEntries = namespace.lastEntries().blockIds();
    if (withEntries.isEmpty()) {
      return List.of();
    }
    Set<Long> referenced = new HashSet<>();
    GcSteps.run(GcSteps.versions(namespace, state -> {
      for (int b = 0; b < state.blockCount(); b++) {
        if (withEntries.contains(state.blockId(b))) {
          referenced.add(state.blockId(b));
        }
      }
    }), Math.max(1, budget), locked);
    withEntries.removeAll(referenced);
    List<Long> unreferenced = new ArrayList<>(withEntries);
    Collections.sort(unreferenced);
    return unreferenced;
  }

  private static MomentSet intersect(MomentSet wanted, MomentSet before) {
    return before == null ? wanted : wanted.intersect(before);
  }

  /**
   * Sets an inode's own moments to its rule's (set even when empty: every planned inode has an entry); returns how
   * many newest versions of each of its names the rule keeps (0 for a file).
   */
  private int ownMoments(Inode inode, Map<RetentionRule, MomentSet> byRule) {
    RetentionRule rule = retention.ruleOf(inode, clusterDefault).rule();
    needed.merge(inode, byRule.computeIfAbsent(rule, r -> r.moments(nowMicros)), MomentSet::union);
    return inode.isDirectory() ? rule.keepVersions() : 0;
  }

  /**
   * Adds every binding of a planned inode by one name of {@code parent}, with the moments it was visible, to
   * {@code links}. An inode created since the plan began is left out: it needs nothing before the plan's time.
   */
  private void links(Inode parent, ChildHistory history, Set<Inode> planned, List<Link> links) {
    for (int i = 0; i < history.size(); i++) {
      Inode child = history.inodeId(i) == Namespace.TOMBSTONE ? null : namespace.inode(history.inodeId(i));
      if (child == null || !planned.contains(child)) {
        continue;
      }
      long from = HlcTimestamp.valueOf(history.hlc(i)).physicalMicros();
      long to = i + 1 < history.size() ? HlcTimestamp.valueOf(history.hlc(i + 1)).physicalMicros()
          : MomentSet.END;
      if (from < to) {
        Link link = new Link(child, parent, from, to);
        links.add(link);
        linksOfChild.computeIfAbsent(child, c -> new ArrayList<>()).add(link);
      }
    }
  }

  /** Adds each inode's needed moments to its parents' while it was bound under them, until nothing changes. */
  private void propagateUp(List<Inode> inodes) {
    ArrayDeque<Inode> pending = new ArrayDeque<>(inodes);
    Map<Inode, Boolean> queued = new IdentityHashMap<>();
    inodes.forEach(inode -> queued.put(inode, true));
    while (!pending.isEmpty()) {
      Inode child = pending.poll();
      queued.put(child, false);
      MomentSet childNeeds = needed.get(child);
      for (Link link : linksOfChild.getOrDefault(child, List.of())) {
        MomentSet more = childNeeds.within(link.from, link.to);
        if (!needed.get(link.parent).containsAll(more)) {
          add(link.parent, more);
          if (!queued.get(link.parent)) {
            queued.put(link.parent, true);
            pending.add(link.parent);
          }
        }
      }
    }
  }

  private void add(Inode inode, MomentSet moments) {
    if (!moments.isEmpty()) {
      needed.merge(inode, moments, MomentSet::union);
    }
  }

  /**
   * The inodes no kept name of a kept directory binds any more, ascending, read in steps of about {@code budget}
   * units run by {@code locked} ({@link UnreachableScan}). Changes nothing; once unreachable an inode stays so (no
   * path names it, so nothing can bind it again). Call it once the pass's keeping batches are applied.
   */
  public static List<Long> unreachable(Namespace namespace, int budget, Locked locked) throws IOException {
    UnreachableScan scan = new UnreachableScan(namespace);
    GcSteps.run(scan, Math.max(1, budget), locked);
    return scan.unreachable();
  }

  /** Removes the listed inodes that are still there; returns the ids removed. */
  public static List<Long> remove(Namespace namespace, List<Long> ids) {
    namespace.countGcBatch();
    List<Long> removed = new ArrayList<>();
    boolean files = false;
    for (long id : ids) {
      Inode inode = namespace.inode(id);
      if (inode != null) {
        files |= !inode.isDirectory();
        namespace.removeInode(id);
        removed.add(id);
      }
    }
    if (files) {
      namespace.countGcDrop();
    }
    return removed;
  }
}
