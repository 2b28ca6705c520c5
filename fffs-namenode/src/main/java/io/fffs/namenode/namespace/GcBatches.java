package io.fffs.namenode.namespace;

import io.fffs.common.history.MomentSet;
import io.fffs.common.proto.HistoryProtos.MomentSetProto;
import io.fffs.common.proto.NamenodeEditsProtos.GcBatchOp;
import io.fffs.common.proto.NamenodeEditsProtos.GcKeepPartProto;
import io.fffs.common.proto.NamenodeEditsProtos.GcKeepProto;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.function.IntConsumer;
import java.util.function.IntToLongFunction;

/**
 * The keeping batches of a garbage-collection pass, built one at a time from its plan under the write lock that
 * logs each (docs/history.md): keeps in plan order until applying the batch goes through about the budget's units
 * (an inode, its versions, its names' entries) or its moment sets reach ~1 MiB. An inode with more units than the
 * budget gets batches of its own, one {@link GcPass.Part} of its keep each, cut from the inode as it stands when the
 * batch is built: its versions by HLC range, then runs of whole names, a name with more entries than the budget by
 * HLC range. So no write-lock hold goes through much more than the budget, however long one inode's history is.
 */
public final class GcBatches {
  private static final long MAX_SET_BYTES = 1 << 20;

  /** One batch to log, and the units applying it goes through. */
  public record Batch(GcBatchOp.Builder op, int units) {}

  /** Where the next part of a large inode's keep starts: at a version's HLC, or at a name and an entry's HLC. */
  private record Cursor(boolean states, String name, long fromHlc) {}

  private final List<GcPass.Keep> plan;
  private final int budget;
  private int next;
  private Cursor cursor;

  public GcBatches(List<GcPass.Keep> plan, int budget) {
    this.plan = plan;
    this.budget = Math.max(1, budget);
  }

  /** Whether every keep of the plan is in a batch built. */
  public boolean done() {
    return next >= plan.size();
  }

  /** The next batch, read from {@code namespace} as it stands (call under the write lock); null when none is left. */
  public Batch next(Namespace namespace) {
    while (!done()) {
      GcPass.Keep keep = plan.get(next);
      if (cursor == null && units(namespace, keep) <= budget) {
        return whole(namespace);
      }
      Inode inode = namespace.inode(keep.inodeId());
      Batch part = inode == null ? null : part(inode, keep);
      if (cursor == null) {
        next++;
      }
      if (part != null) {
        return part;
      }
    }
    return null;
  }

  /** Whole keeps from the next one until the batch goes through the budget; a keep larger than it stays out. */
  private Batch whole(Namespace namespace) {
    GcBatchOp.Builder batch = GcBatchOp.newBuilder();
    Map<MomentSet, Integer> index = new HashMap<>();
    long bytes = 0;
    int units = 0;
    while (next < plan.size() && units < budget && bytes < MAX_SET_BYTES) {
      int more = units(namespace, plan.get(next));
      if (more > budget) {
        break;
      }
      units += more;
      bytes += add(batch, index, plan.get(next++), null);
    }
    return new Batch(batch, units);
  }

  /**
   * The units applying {@code keep} whole goes through: as the plan read them, or more when the inode has grown
   * since (versions and names added while the pass ran, counted without walking its names' histories).
   */
  private static int units(Namespace namespace, GcPass.Keep keep) {
    Inode inode = namespace.inode(keep.inodeId());
    return inode == null ? 1 : Math.max(keep.units(), 1 + inode.states().size() + inode.children().size());
  }

  /** The next part of {@code inode}'s keep (advances the cursor; null at its end), or null if nothing is left. */
  private Batch part(Inode inode, GcPass.Keep keep) {
    Cursor at = cursor == null ? new Cursor(true, null, 0) : cursor;
    GcPass.Part part;
    int units;
    if (at.states()) {
      VersionChain<InodeState> states = inode.states();
      int start = states.firstAtOrAfter(at.fromHlc());
      long to = cut(states::hlc, start, states.size());
      units = Math.max(1, (to == Long.MAX_VALUE ? states.size() : states.firstAtOrAfter(to)) - start);
      part = new GcPass.Part(true, null, null, at.fromHlc(), to);
      cursor = to != Long.MAX_VALUE ? new Cursor(true, null, to)
          : inode.isDirectory() && keep.names() != null ? new Cursor(false, null, 0) : null;
    } else {
      NavigableMap<String, ChildHistory> children = at.name() == null ? inode.children()
          : inode.children().tailMap(at.name(), true);
      Iterator<Map.Entry<String, ChildHistory>> names = children.entrySet().iterator();
      if (!names.hasNext()) {
        cursor = null;
        return null;
      }
      Map.Entry<String, ChildHistory> first = names.next();
      ChildHistory history = first.getValue();
      int start = history.firstAtOrAfter(at.fromHlc());
      String last = first.getKey();
      if (at.fromHlc() > 0 || history.size() - start > budget) {
        long to = cut(history::hlc, start, history.size());  // one name's entries by HLC range
        units = Math.max(1, (to == Long.MAX_VALUE ? history.size() : history.firstAtOrAfter(to)) - start);
        part = new GcPass.Part(false, last, last, at.fromHlc(), to);
        if (to != Long.MAX_VALUE) {
          cursor = new Cursor(false, last, to);
          return new Batch(batchOf(keep, part), units);
        }
      } else {
        units = Math.max(1, history.size());
        while (names.hasNext()) {
          Map.Entry<String, ChildHistory> name = names.next();
          int more = Math.max(1, name.getValue().size());
          if (units + more > budget) {
            break;
          }
          units += more;
          last = name.getKey();
        }
        part = new GcPass.Part(false, first.getKey(), last, 0, Long.MAX_VALUE);
      }
      String after = inode.children().higherKey(last);
      cursor = after == null ? null : new Cursor(false, after, 0);
    }
    return new Batch(batchOf(keep, part), units);
  }

  /**
   * Where a part starting at index {@code start} of {@code size} entries ends: the HLC of the entry a budget later
   * ({@code Long.MAX_VALUE}: the end). Entries sharing an HLC stay in one part, so a part is never empty.
   */
  private long cut(IntToLongFunction hlc, int start, int size) {
    int end = start + budget;
    while (end < size && hlc.applyAsLong(end) == hlc.applyAsLong(end - 1)) {
      end++;
    }
    return end >= size ? Long.MAX_VALUE : hlc.applyAsLong(end);
  }

  private static GcBatchOp.Builder batchOf(GcPass.Keep keep, GcPass.Part part) {
    GcBatchOp.Builder batch = GcBatchOp.newBuilder();
    add(batch, new HashMap<>(), keep, part);
    return batch;
  }

  /** Adds {@code keep} (one part of it, or whole: null) to the batch; returns the bytes its new sets added. */
  private static long add(GcBatchOp.Builder batch, Map<MomentSet, Integer> index, GcPass.Keep keep,
      GcPass.Part part) {
    GcKeepProto.Builder entry = GcKeepProto.newBuilder().setInodeId(keep.inodeId());
    long bytes = indexOf(batch, index, keep.states(), entry::setStates);
    if (keep.names() != null) {
      bytes += indexOf(batch, index, keep.names(), entry::setNames);
    }
    if (part != null) {
      GcKeepPartProto.Builder proto = GcKeepPartProto.newBuilder().setStates(part.states())
          .setFromHlc(part.fromHlc());
      if (!part.states()) {
        proto.setNamesFrom(part.namesFrom()).setNamesTo(part.namesTo());
      }
      if (part.toHlc() != Long.MAX_VALUE) {
        proto.setToHlc(part.toHlc());
      }
      entry.setPart(proto);
    }
    batch.addKeep(entry);
    return bytes;
  }

  /** The part a logged keep names, or null for a whole keep. */
  public static GcPass.Part partOf(GcKeepProto keep) {
    if (!keep.hasPart()) {
      return null;
    }
    GcKeepPartProto part = keep.getPart();
    return new GcPass.Part(part.getStates(), part.getNamesFrom(), part.getNamesTo(), part.getFromHlc(),
        part.hasToHlc() ? part.getToHlc() : Long.MAX_VALUE);
  }

  /** Sets the index of {@code set} in the batch's table (added if new); returns the bytes it added. */
  private static long indexOf(GcBatchOp.Builder batch, Map<MomentSet, Integer> index, MomentSet set,
      IntConsumer setIndex) {
    Integer known = index.get(set);
    if (known != null) {
      setIndex.accept(known);
      return 0;
    }
    int added = batch.getSetsCount();
    MomentSetProto proto = set.toProto();
    batch.addSets(proto);
    index.put(set, added);
    setIndex.accept(added);
    return proto.getSerializedSize();
  }
}
