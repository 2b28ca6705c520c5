package io.fffs.namenode.namespace;

import io.fffs.common.proto.NamenodeEditsProtos.AddBlockOp;
import io.fffs.common.proto.NamenodeEditsProtos.CompleteOp;
import io.fffs.common.proto.NamenodeEditsProtos.CreateOp;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.GcBatchOp;
import io.fffs.common.proto.NamenodeEditsProtos.GcKeepProto;
import io.fffs.common.proto.NamenodeEditsProtos.MkdirsOp;
import io.fffs.common.proto.NamenodeEditsProtos.TruncateOp;
import io.fffs.common.history.MomentSet;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.time.HlcTimestamp;
import java.util.Arrays;
import java.util.List;

/**
 * The one mutation path of the namespace: applies a stamped, logged edit op. The same code runs for a live change
 * (right after the op is logged) and at replay, so replay ends in the same history. Ops were validated before they
 * were stamped; an op that does not fit the namespace here means a damaged log and is an
 * {@link IllegalStateException}. Modification times are the op's HLC physical part in ms, so they replay exactly.
 */
public final class NamespaceApplier {
  private final Namespace namespace;
  private GcPass.Result lastGc;

  public NamespaceApplier(Namespace namespace) {
    this.namespace = namespace;
  }

  /** What the last garbage-collection op applied by this applier dropped, or null if it applied none. */
  public GcPass.Result lastGcResult() {
    return lastGc;
  }

  public void apply(EditOpProto op, HlcTimestamp stamp) {
    long hlc = stamp.packed();
    long mtime = stamp.physicalMicros() / 1000;
    switch (op.getOpCase()) {
      case MKDIRS:
        mkdirs(op.getMkdirs(), hlc, mtime);
        break;
      case CREATE:
        create(op.getCreate(), hlc, mtime);
        break;
      case OPENFORWRITE:
        update(op.getOpenForWrite().getInodeId(), hlc,
            s -> s.withLease(op.getOpenForWrite().getClientName(), "openForWrite", s.mtime));
        raiseWriterEpoch(op.getOpenForWrite().getInodeId(), 0);  // a new writer: the epoch rises by one
        break;
      case DELEGATIONKEY:
        namespace.delegation().apply(op.getDelegationKey());
        break;
      case DELEGATIONTOKEN:
        namespace.delegation().apply(op.getDelegationToken());
        break;
      case BLOCKKEYS:
        namespace.delegation().apply(op.getBlockKeys());
        break;
      case DECOMMISSIONS:
        namespace.setDecommissioned(op.getDecommissions().getNodesList());
        break;
      case FENCEWRITERS:
        raiseWriterEpoch(op.getFenceWriters().getInodeId(), op.getFenceWriters().getEpoch());
        break;
      case ADDBLOCK:
        addBlock(op.getAddBlock(), hlc, mtime);
        break;
      case ABANDONBLOCK:
        update(op.getAbandonBlock().getInodeId(), hlc, s -> {
          int index = s.indexOfBlock(op.getAbandonBlock().getBlockId());
          return index < 0 ? s.with("abandonBlock", s.mtime) : s.withBlocks(Arrays.copyOf(s.blockIds, index),
              Arrays.copyOf(s.blockLengths, index), "abandonBlock", mtime);
        });
        break;
      case FSYNC:
        update(op.getFsync().getInodeId(), hlc,
            s -> withBlockLength(s, op.getFsync().getBlockId(), op.getFsync().getLength(), "fsync", mtime));
        namespace.lastEntries().raise(op.getFsync().getLastEntriesList());
        break;
      case COMPLETE:
        complete(op.getComplete(), hlc, mtime);
        break;
      case RENAME:
        rename(op.getRename().getSrc(), op.getRename().getDst(), hlc, mtime);
        break;
      case DELETE:
        delete(op.getDelete().getPath(), hlc, mtime);
        break;
      case SETPERMISSION:
        updatePath(op.getSetPermission().getPath(), hlc,
            s -> s.withPermission((short) op.getSetPermission().getPermission()));
        break;
      case SETOWNER:
        updatePath(op.getSetOwner().getPath(), hlc, s -> s.withOwner(
            op.getSetOwner().hasOwner() ? op.getSetOwner().getOwner() : null,
            op.getSetOwner().hasGroup() ? op.getSetOwner().getGroup() : null));
        break;
      case SETTIMES:
        updatePath(op.getSetTimes().getPath(), hlc,
            s -> s.withTimes(op.getSetTimes().getMtime(), op.getSetTimes().getAtime()));
        break;
      case SETREPLICATION:
        updatePath(op.getSetReplication().getPath(), hlc,
            s -> s.withReplication((short) op.getSetReplication().getReplication()));
        break;
      case TRUNCATE:
        truncate(op.getTruncate(), hlc, mtime);
        break;
      case SETRETENTION:
        updatePath(op.getSetRetention().getPath(), hlc, s -> s.withRetention(op.getSetRetention().hasRule()
            ? RetentionRule.fromProto(op.getSetRetention().getRule()) : null));
        break;
      case PIN:
        namespace.addPin(Pin.fromProto(op.getPin().getPin()));
        break;
      case UNPIN:
        namespace.removePin(op.getUnpin().getName());
        break;
      case GC:
        lastGc = GcPass.run(namespace, stamp, RetentionRule.fromProto(op.getGc().getDefaultRule()));
        break;
      case GCBATCH:
        lastGc = gcBatch(op.getGcBatch(), stamp);
        break;
      case RESERVEBLOCKS:
        namespace.sawBlockId(op.getReserveBlocks().getLastBlockId());
        break;
      case RESTORE:
        restore(op.getRestore(), hlc, mtime);
        break;
      default:
        throw new IllegalStateException("unknown edit op " + op.getOpCase());
    }
  }

  /** Raises a file's writer epoch to {@code epoch}, or by one when {@code epoch} is 0. */
  private void raiseWriterEpoch(long inodeId, long epoch) {
    Inode inode = namespace.inode(inodeId);
    if (inode != null) {
      inode.raiseWriterEpoch(epoch == 0 ? inode.writerEpoch() + 1 : epoch);
    }
  }

  private void mkdirs(MkdirsOp op, long hlc, long mtime) {
    List<String> components = components(op.getPath());
    createMissingDirectories(components, components.size(), op.getInodeIdsList(), (short) op.getPermission(),
        op.getOwner(), op.getGroup(), hlc, mtime);
  }

  /** Creates the missing directories among the first {@code depth} components; returns the deepest. */
  private Inode createMissingDirectories(List<String> components, int depth, List<Long> ids, short permission,
      String owner, String group, long hlc, long mtime) {
    Inode current = namespace.root();
    int next = 0;
    for (int i = 0; i < depth; i++) {
      long childId = current.child(components.get(i), Namespace.LATEST);
      if (childId == Namespace.TOMBSTONE) {
        Inode created = namespace.newInode(ids.get(next++), true);
        created.states().add(hlc, InodeState.newDirectory(permission, owner, group, mtime));
        link(current, components.get(i), created.id(), hlc, mtime);
        current = created;
      } else {
        current = namespace.inode(childId);
      }
    }
    if (next != ids.size()) {
      throw new IllegalStateException("mkdirs of " + NamePaths.join(components) + " logged " + ids.size()
          + " new directories but " + next + " were missing");
    }
    return current;
  }

  private void create(CreateOp op, long hlc, long mtime) {
    List<String> components = components(op.getPath());
    int last = components.size() - 1;
    short parentPermission = (short) (op.hasParentPermission() ? op.getParentPermission() : op.getPermission());
    Inode parent = createMissingDirectories(components, last, op.getParentInodeIdsList(), parentPermission,
        op.getOwner(), op.getGroup(), hlc, mtime);
    Inode file = namespace.newInode(op.getInodeId(), false);
    file.states().add(hlc, InodeState.newFile((short) op.getPermission(), op.getOwner(), op.getGroup(), mtime,
        (short) op.getReplication(), op.getBlockSize(), op.hasUserTimePlugin() ? op.getUserTimePlugin() : null,
        op.getClientName()));
    // An overwritten file keeps its inode and history; the name now stands for the new one.
    link(parent, components.get(last), file.id(), hlc, mtime);
  }

  private void addBlock(AddBlockOp op, long hlc, long mtime) {
    namespace.sawBlockId(op.getBlockId());
    update(op.getInodeId(), hlc, s -> {
      long[] lengths = Arrays.copyOf(s.blockLengths, s.blockLengths.length + 1);
      if (op.hasPreviousLength() && s.blockLengths.length > 0) {
        lengths[s.blockLengths.length - 1] = op.getPreviousLength();
      }
      long[] ids = Arrays.copyOf(s.blockIds, s.blockIds.length + 1);
      ids[ids.length - 1] = op.getBlockId();
      return s.withBlocks(ids, lengths, "addBlock", mtime);
    });
  }

  private void complete(CompleteOp op, long hlc, long mtime) {
    String change = op.getRecovered() ? "recoverLease" : "complete";
    update(op.getInodeId(), hlc, s -> {
      InodeState sized = op.hasLastBlockId()
          ? withBlockLength(s, op.getLastBlockId(), op.getLastBlockLength(), change, mtime)
          : s;
      return sized.withLease(null, change, mtime);
    });
    namespace.lastEntries().raise(op.getLastEntriesList());
  }

  private void truncate(TruncateOp op, long hlc, long mtime) {
    update(op.getInodeId(), hlc, s -> {
      long newLength = op.getNewLength();
      int keep = 0;
      long offset = 0;
      while (keep < s.blockIds.length && offset < newLength) {
        offset += s.blockLengths[keep];
        keep++;
      }
      long[] lengths = Arrays.copyOf(s.blockLengths, keep);
      if (keep > 0) {
        lengths[keep - 1] -= offset - newLength;
      }
      return s.withBlocks(Arrays.copyOf(s.blockIds, keep), lengths, "truncate", mtime);
    });
  }

  private void rename(String src, String dst, long hlc, long mtime) {
    List<String> from = components(src);
    List<String> to = components(dst);
    Inode srcParent = existing(namespace.resolve(from.subList(0, from.size() - 1), Namespace.LATEST), src);
    Inode dstParent = existing(namespace.resolve(to.subList(0, to.size() - 1), Namespace.LATEST), dst);
    long moved = srcParent.child(from.get(from.size() - 1), Namespace.LATEST);
    if (moved == Namespace.TOMBSTONE) {
      throw new IllegalStateException("rename of missing " + src);
    }
    link(srcParent, from.get(from.size() - 1), Namespace.TOMBSTONE, hlc, mtime);
    link(dstParent, to.get(to.size() - 1), moved, hlc, mtime);
  }

  private void delete(String path, long hlc, long mtime) {
    List<String> components = components(path);
    Inode parent = existing(namespace.resolve(components.subList(0, components.size() - 1), Namespace.LATEST),
        path);
    link(parent, components.get(components.size() - 1), Namespace.TOMBSTONE, hlc, mtime);
  }

  /** Makes the restored tree's inodes and binds the destination to its top (the old one stays in history). */
  private void restore(io.fffs.common.proto.NamenodeEditsProtos.RestoreOp op, long hlc, long mtime) {
    List<String> dst = components(op.getDst());
    Inode parent = existing(namespace.resolve(dst.subList(0, dst.size() - 1), Namespace.LATEST), op.getDst());
    java.util.Map<String, Inode> made = new java.util.HashMap<>();
    for (io.fffs.common.proto.NamenodeEditsProtos.RestoredEntryProto entry : op.getEntriesList()) {
      Inode inode = namespace.newInode(entry.getInodeId(), entry.getDirectory());
      InodeState state;
      if (entry.getDirectory()) {
        state = InodeState.newDirectory((short) entry.getPermission(), entry.getOwner(), entry.getGroup(), mtime)
            .with("restore", mtime);
      } else {
        long[] ids = entry.getBlockIdsList().stream().mapToLong(Long::longValue).toArray();
        long[] lengths = entry.getBlockLengthsList().stream().mapToLong(Long::longValue).toArray();
        for (long id : ids) {
          namespace.sawBlockId(id);
        }
        state = InodeState.newFile((short) entry.getPermission(), entry.getOwner(), entry.getGroup(), mtime,
            (short) entry.getReplication(), entry.getBlockSize(),
            entry.hasUserTimePlugin() ? entry.getUserTimePlugin() : null, null)
            .withBlocks(ids, lengths, "restore", mtime);
      }
      inode.states().add(hlc, state);
      String path = entry.getPath();
      if (!path.isEmpty()) {
        int slash = path.lastIndexOf('/');
        Inode directory = made.get(slash < 0 ? "" : path.substring(0, slash));
        if (directory == null) {
          throw new IllegalStateException("restore of " + op.getDst() + " lists " + path + " before its directory");
        }
        link(directory, path.substring(slash + 1), inode.id(), hlc, mtime);
      }
      made.put(path, inode);
    }
    link(parent, dst.get(dst.size() - 1), made.get("").id(), hlc, mtime);
  }

  /** Points {@code name} in {@code parent} at {@code inodeId} from {@code hlc} on; the parent's mtime moves. */
  private void link(Inode parent, String name, long inodeId, long hlc, long mtime) {
    parent.childHistory(name).add(hlc, inodeId);
    if (inodeId != Namespace.TOMBSTONE) {
      namespace.inode(inodeId).setParentId(parent.id());
    }
    InodeState state = parent.latest();
    String change = inodeId == Namespace.TOMBSTONE ? "removeChild" : "addChild";
    if (parent.states().latestHlc() == hlc) {
      change = "children";  // e.g. a rename within one directory: one version for both names
    }
    parent.states().add(hlc, state.with(change, mtime));
  }

  private static InodeState withBlockLength(InodeState s, long blockId, long length, String change, long mtime) {
    int index = s.indexOfBlock(blockId);
    if (index < 0) {
      throw new IllegalStateException("block " + blockId + " is not in the file");
    }
    long[] lengths = s.blockLengths.clone();
    lengths[index] = length;
    return s.withBlocks(s.blockIds, lengths, change, mtime);
  }

  private interface Change {
    InodeState apply(InodeState state);
  }

  private void update(long inodeId, long hlc, Change change) {
    Inode inode = namespace.inode(inodeId);
    if (inode == null) {
      throw new IllegalStateException("edit for unknown inode " + inodeId);
    }
    inode.states().add(hlc, change.apply(inode.latest()));
  }

  private void updatePath(String path, long hlc, Change change) {
    Inode inode = existing(namespace.resolve(components(path), Namespace.LATEST), path);
    inode.states().add(hlc, change.apply(inode.latest()));
  }

  private static Inode existing(Inode inode, String path) {
    if (inode == null) {
      throw new IllegalStateException("edit for missing path " + path);
    }
    return inode;
  }

  private static List<String> components(String path) {
    try {
      return NamePaths.components(path);
    } catch (io.fffs.common.error.FffsException e) {
      throw new IllegalStateException("edit with bad path: " + e.getMessage(), e);
    }
  }

  /** One batch of a pass: each listed inode keeps what the batch says; the last one removes and finishes. */
  private GcPass.Result gcBatch(GcBatchOp op, HlcTimestamp stamp) {
    List<MomentSet> sets = new java.util.ArrayList<>(op.getSetsCount());
    op.getSetsList().forEach(set -> sets.add(MomentSet.fromProto(set)));
    List<GcPass.Keep> keeps = new java.util.ArrayList<>(op.getKeepCount());
    for (GcKeepProto keep : op.getKeepList()) {
      keeps.add(new GcPass.Keep(keep.getInodeId(), sets.get(keep.getStates()),
          keep.hasNames() ? sets.get(keep.getNames()) : null, 1, GcBatches.partOf(keep)));
    }
    GcPass.Result kept = GcPass.apply(namespace, keeps);
    List<Long> removed = GcPass.remove(namespace, op.getRemoveInodeIdsList());
    namespace.lastEntries().forget(op.getForgetLastEntriesList());
    if (op.getLast() && op.getLastEntriesListed()) {
      namespace.setLastGcHlc(stamp.packed());  // the entries to forget came in this pass's batches
    } else if (op.getLast()) {
      GcPass.finished(namespace, stamp);
    }
    return new GcPass.Result(removed.size(), kept.versionsDropped(), kept.namesDropped(), removed);
  }
}

