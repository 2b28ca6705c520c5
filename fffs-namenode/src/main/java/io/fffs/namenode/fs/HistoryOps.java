package io.fffs.namenode.fs;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.GcOp;
import io.fffs.common.proto.NamenodeEditsProtos.PinOp;
import io.fffs.common.proto.NamenodeEditsProtos.SetRetentionOp;
import io.fffs.common.proto.NamenodeEditsProtos.UnpinOp;
import io.fffs.common.time.TemporalPath;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.time.TimeText;
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
import java.util.List;
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

  HistoryOps(MutationPath changes, QueryPath reads, Namespace namespace, PermissionChecker permissions,
      Horizon horizon, Supplier<RetentionRule> clusterDefault, LongSupplier nowMicros,
      Supplier<GcPass.Result> lastGc) {
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

  /** Runs a garbage-collection pass now ({@code caller} null: the NameNode's own schedule). */
  public Logged<GcPass.Result> collect(Caller caller) throws IOException {
    return changes.mutate("collect history", () -> {
      if (caller != null) {
        permissions.checkSuperUser(caller, "run garbage collection of history");
      }
      changes.log(EditOpProto.newBuilder().setGc(GcOp.newBuilder().setDefaultRule(clusterDefault.get().toProto()))
          .build());
      return lastGc.get();
    });
  }

  /** Whether any rule (a directory's or the default) bounds history: else a pass cannot drop anything. */
  public boolean anyBoundedRule() throws IOException {
    if (!clusterDefault.get().keepsAll()) {
      return true;
    }
    return reads.query(() -> {
      for (Inode inode : namespace.inodes()) {
        if (inode.isDirectory() && inode.latest().retention() != null && !inode.latest().retention().keepsAll()) {
          return true;
        }
      }
      return false;
    });
  }
}
