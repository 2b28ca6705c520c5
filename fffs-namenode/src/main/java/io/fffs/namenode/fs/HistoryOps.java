package io.fffs.namenode.fs;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.GcBatchOp;
import io.fffs.common.proto.NamenodeEditsProtos.PinOp;
import io.fffs.common.proto.NamenodeEditsProtos.SetRetentionOp;
import io.fffs.common.proto.NamenodeEditsProtos.UnpinOp;
import io.fffs.common.time.TemporalPath;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.time.TimeText;
import io.fffs.namenode.namespace.BlockRetention;
import io.fffs.namenode.namespace.GcBatches;
import io.fffs.namenode.namespace.GcPass;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.NamePaths;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.namespace.Pin;
import io.fffs.namenode.namespace.Retention;
import io.fffs.namenode.permission.Caller;
import io.fffs.namenode.permission.PermissionChecker;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Bounded history (docs/history.md): retention rules of directory subtrees, pins (named moments no rule collects)
 * and garbage-collection passes. Rules, pins and passes are edit-logged changes on the {@link MutationPath}, so
 * they have a history of their own and replay to the same namespace.
 */
public final class HistoryOps {
  private final MutationPath changes;
  private final QueryPath reads;
  private final Namespace namespace;
  private final PermissionChecker permissions;
  private final Horizon horizon;
  private final Supplier<RetentionRule> clusterDefault;
  private final LongSupplier nowMicros;
  private final Supplier<GcPass.Result> lastGc;
  private final int batchInodes;
  private final Object passes = new Object();
  private final AtomicLong ruleChanges = new AtomicLong();
  private volatile Runnable batchHook = () -> { };
  private volatile Runnable planHook = () -> { };
  private volatile ReadHolds lastReadHolds;
  private volatile BlockRetention retentionTable;

  HistoryOps(MutationPath changes, QueryPath reads, Namespace namespace, PermissionChecker permissions,
      Horizon horizon, Supplier<RetentionRule> clusterDefault, LongSupplier nowMicros,
      Supplier<GcPass.Result> lastGc, int batchInodes) {
    this.batchInodes = Math.max(1, batchInodes);
    this.changes = changes;
    this.reads = reads;
    this.namespace = namespace;
    this.permissions = permissions;
    this.horizon = horizon;
    this.clusterDefault = clusterDefault;
    this.nowMicros = nowMicros;
    this.lastGc = lastGc;
  }

  /** A directory's retention as reads see it now. */
  public record RetentionStatus(RetentionRule rule, String setOn, RetentionRule ownRule, long horizonMicros,
      long windowStartMicros, MomentSet kept) {}

  /**
   * Sets the retention rule of directory {@code path} (null: it follows its parent's again). Superuser only: a
   * shorter rule lets garbage collection drop history for good.
   */
  public Logged<Boolean> setRetention(Caller caller, String path, RetentionRule rule) throws IOException {
    return changes.mutate("set the retention of " + path, () -> {
      permissions.checkSuperUser(caller, "set the retention rule of " + path);
      ResolvedPath target = ResolvedPath.resolve(namespace, path, Namespace.LATEST, caller, permissions)
          .requireExists();
      if (!target.lastState().isDirectory()) {
        throw new FffsException(ErrorCode.NOT_A_DIRECTORY, path + " is a file; retention rules are set on"
            + " directories and hold for the subtree below them");
      }
      SetRetentionOp.Builder op = SetRetentionOp.newBuilder().setPath(NamePaths.join(target.components));
      if (rule != null) {
        op.setRule(rule.toProto());
      }
      changes.log(EditOpProto.newBuilder().setSetRetention(op).build());
      ruleChanges.incrementAndGet();
      return true;
    });
  }

  /** The rule governing {@code path} now, where it is set, and what reads of it may still ask for. */
  public RetentionStatus getRetention(Caller caller, String path) throws IOException {
    return reads.query(() -> {
      ResolvedPath target = ResolvedPath.resolve(namespace, path, Namespace.LATEST, caller, permissions)
          .requireExists();
      Retention.Governing governing = new Retention(namespace).ruleOf(target.last(), clusterDefault.get());
      long now = nowMicros.getAsLong();
      return new RetentionStatus(governing.rule(), governing.holder() == null ? ""
          : namespace.pathOf(governing.holder()), target.lastState().retention(),
          governing.rule().horizon(now), horizon.frozen(now).windowStart(target),
          target.last().kept() == null ? MomentSet.ALL : target.last().kept());
    });
  }

  /**
   * Pins {@code path} as it was at {@code time} (the latest time: now) under {@code name}, unique in the
   * namespace. The moment must be readable now; the pin keeps it readable for the subtree below {@code path}.
   */
  public Logged<Pin> pin(Caller caller, String path, TimeSpec time, String name) throws IOException {
    TemporalPath.checkPinName(name);
    if (time.kind() == TimeSpec.Kind.USER) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a pin names a moment of system time; " + path
          + time.toMarker() + " is a user time");
    }
    long micros = time.isLatest() ? nowMicros.getAsLong() : time.micros();
    long limit = reads.limitFor(TimeSpec.system(micros), path);
    return changes.mutate("pin " + path, () -> {
      Pin existing = namespace.pins().get(name);
      if (existing != null) {
        throw new FffsException(ErrorCode.ALREADY_EXISTS, "a pin named " + name + " exists already ("
            + existing.path() + " at " + TimeText.isoMicros(existing.micros()) + "); unpin it first or choose"
            + " another name");
      }
      ResolvedPath target = ResolvedPath.resolve(namespace, path, limit, caller, permissions);
      horizon.check(target, micros);
      target.requireExists();
      Pin pin = new Pin(name, NamePaths.join(target.components), micros, caller.user());
      changes.log(EditOpProto.newBuilder().setPin(PinOp.newBuilder().setPin(pin.toProto())).build());
      return pin;
    });
  }

  /** Removes pin {@code name}; its owner or the superuser. What only it kept is collected by the next pass. */
  public Logged<Boolean> unpin(Caller caller, String name) throws IOException {
    return changes.mutate("unpin " + name, () -> {
      Pin pin = require(name);
      if (!pin.owner().equals(caller.user()) && !permissions.isSuperUser(caller)) {
        throw new FffsException(ErrorCode.ACCESS_DENIED, "pin " + name + " belongs to " + pin.owner() + "; only"
            + " they or the superuser may remove it");
      }
      changes.log(EditOpProto.newBuilder().setUnpin(UnpinOp.newBuilder().setName(name)).build());
      return true;
    });
  }

  /** The pins on {@code path} and below it, by name. */
  public List<Pin> listPins(Caller caller, String path) throws IOException {
    String normalized = NamePaths.join(NamePaths.components(path));
    return reads.query(() -> {
      List<Pin> pins = new ArrayList<>();
      for (Pin pin : namespace.pins().values()) {
        if (NamePaths.isSelfOrDescendant(pin.path(), normalized)) {
          pins.add(pin);
        }
      }
      return pins;
    });
  }

  /** The pin named {@code name} ({@code NOT_FOUND} if none). */
  public Pin getPin(Caller caller, String name) throws IOException {
    return reads.query(() -> require(name));
  }

  private Pin require(String name) throws FffsException {
    Pin pin = namespace.pins().get(name);
    if (pin == null) {
      throw new FffsException(ErrorCode.NOT_FOUND, "no pin named " + name + "; bin/fffs history pins lists them");
    }
    return pin;
  }

  /**
   * Runs a garbage-collection pass now ({@code caller} null: the NameNode's own schedule), holding no lock for long:
   * what every inode keeps is planned reading the namespace in steps of about {@code batchInodes} units (inodes,
   * names, entries of a name's history) under the read lock ({@link GcPass#plan}), so changes go on between those
   * steps and reads beside them; then applied in batches of about {@code batchInodes} units (inodes, their versions
   * and name entries), each one logged {@code GcBatchOp} under the write lock (the one mutation path), so changes go
   * on between batches; then the inodes nothing binds any more are found in steps of the same size
   * ({@link GcPass#unreachable}) and removed by batches of as many, the last one marked last; and what each block
   * must keep is read in steps too ({@link #retentionTable}). A rule set while a pass runs ends its keeping batches
   * early (the next pass follows the new rule). Passes run one at a time. Returns what the whole pass dropped.
   */
  public GcPass.Result collect(Caller caller) throws IOException {
    if (caller != null) {
      permissions.checkSuperUser(caller, "run garbage collection of history");
    }
    synchronized (passes) {
      ReadHolds holds = new ReadHolds();
      GcPass.Locked locked = step -> {
        planHook.run();
        reads.query(() -> holds.record(step.run()));
      };
      long rules = ruleChanges.get();
      RetentionRule rule = clusterDefault.get();
      long now = nowMicros.getAsLong();
      GcBatches batches = new GcBatches(GcPass.plan(namespace, now, rule, batchInodes, locked), batchInodes);
      long versions = 0;
      long names = 0;
      while (!batches.done()) {
        // Built under the write lock: a large inode's next part is cut from the inode as it stands.
        GcPass.Result done = logBatch(() -> {
          GcBatches.Batch batch = batches.next(namespace);
          return batch == null ? null : batch.op();
        }, rules);
        if (done == null) {
          break;
        }
        versions += done.versionsDropped();
        names += done.namesDropped();
      }
      // Found after the keeping batches, in steps: what nothing binds stays so (no path names it).
      List<Long> unreachable = GcPass.unreachable(namespace, batchInodes, locked);
      List<Long> removed = new ArrayList<>();
      for (int from = 0; from < unreachable.size(); from += batchInodes) {
        GcBatchOp.Builder batch = GcBatchOp.newBuilder()
            .addAllRemoveInodeIds(unreachable.subList(from, Math.min(unreachable.size(), from + batchInodes)));
        removed.addAll(logBatch(() -> batch, -1).removedInodeIds());
      }
      // The blocks no version refers to any more, found in steps too: the last batches forget their entries.
      List<Long> forget = GcPass.unreferencedEntries(namespace, batchInodes, locked);
      int from = 0;
      do {
        List<Long> slice = forget.subList(from, Math.min(forget.size(), from + batchInodes));
        from += slice.size();
        GcBatchOp.Builder batch = GcBatchOp.newBuilder().addAllForgetLastEntries(slice)
            .setLast(from == forget.size()).setLastEntriesListed(true);
        logBatch(() -> batch, -1);
      } while (from < forget.size());
      retentionTable = BlockRetention.compute(namespace, batchInodes, locked);
      lastReadHolds = holds;
      return new GcPass.Result(removed.size(), versions, names, removed);
    }
  }

  /**
   * Logs one batch of a pass, built by {@code batch} under the write lock (null: none left); a keeping batch
   * ({@code rules} the rule-change count its plan saw, -1 for a removing one) is not logged once a rule changed.
   * Returns what it dropped, or null if not logged.
   */
  private GcPass.Result logBatch(Supplier<GcBatchOp.Builder> batch, long rules) throws IOException {
    batchHook.run();
    return changes.mutate("collect history", () -> {
      if (rules >= 0 && ruleChanges.get() != rules) {
        return null;  // checked under the write lock: no batch of an outdated plan is logged
      }
      GcBatchOp.Builder op = batch.get();
      if (op == null) {
        return null;
      }
      changes.log(EditOpProto.newBuilder().setGcBatch(op).build());
      return lastGc.get();
    }).await();
  }

  /** How a pass read the namespace: its read-lock holds, the most units one visited, and all it visited. */
  static final class ReadHolds {
    private int holds;
    private int largest;
    private long units;

    private Void record(int visited) {
      holds++;
      largest = Math.max(largest, visited);
      units += visited;
      return null;
    }

    int holds() {
      return holds;
    }

    int largest() {
      return largest;
    }

    long units() {
      return units;
    }

    @Override
    public String toString() {
      return holds + " read holds of at most " + largest + " units (" + units + " in all)";
    }
  }

  /** What each block must keep as the last pass left the namespace (null before the first pass). */
  BlockRetention retentionTable() {
    return retentionTable;
  }

  /** How the last pass read the namespace (null before the first). */
  ReadHolds lastReadHolds() {
    return lastReadHolds;
  }

  /** For tests: runs before each batch of a pass is logged (a latch holds a pass between batches). */
  void setBatchHook(Runnable hook) {
    batchHook = hook == null ? () -> { } : hook;
  }

  /** For tests: runs before each step of a pass's reading takes the read lock (a latch holds it between steps). */
  void setPlanHook(Runnable hook) {
    planHook = hook == null ? () -> { } : hook;
  }

  /**
   * Whether any rule (a directory's or the default) bounds history: else a pass cannot drop anything. Reads
   * {@code batchInodes} inodes per read-lock hold (the namespace's iterator is weakly consistent across holds).
   */
  public boolean anyBoundedRule() throws IOException {
    if (!clusterDefault.get().keepsAll()) {
      return true;
    }
    Iterator<Inode> cursor = namespace.inodes().iterator();
    while (true) {
      Boolean found = reads.query(() -> {
        for (int i = 0; i < batchInodes && cursor.hasNext(); i++) {
          Inode inode = cursor.next();
          if (inode.isDirectory() && inode.latest().retention() != null && !inode.latest().retention().keepsAll()) {
            return true;
          }
        }
        return cursor.hasNext() ? null : false;
      });
      if (found != null) {
        return found;
      }
    }
  }
}
