package io.fffs.namenode.blocks;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * One block's replicas in placement order (the primary first), each with the length and the HLC of the last log
 * entry its DataNode last reported (-1 and 0 until it reports). A replica is <em>current</em> when its DataNode is
 * live and its last entry equals the newest reported by any replica, dead or alive — or, before any replica has
 * reported, when it was placed: logs are prefixes of the primary's, so an older last entry means the replica misses
 * entries and must not be read, and one that never reported while another did may hold nothing (it was left out of
 * the pipeline). A dead replica with the newest entry therefore hides the older live ones (unreadable, never
 * wrong), and so does the newest entry a writer reported for the block ({@code expected}), kept in the namespace
 * across restarts: a replica that missed an in-place overwrite has the same length but an older last entry.
 * Thread-safe.
 */
public final class BlockReplicas {
  private final List<Replica> replicas = new ArrayList<>(3);
  /** The newest last entry the block's writers reported (0: none), which a replica must have to be current. */
  private final LongSupplier expected;

  BlockReplicas() {
    this(() -> 0);
  }

  BlockReplicas(LongSupplier expected) {
    this.expected = expected;
  }

  /** {@link #standing} of a replica that stamps the block itself (or whose DataNode did not say). */
  public static final long STAMPS = Long.MAX_VALUE;

  private static final class Replica {
    final String uuid;
    long length = -1;
    long lastEntryHlc;
    boolean corrupt;
    /** From the DataNode's last full report since the block was last placed: its pipeline epoch (0: none) ... */
    long pipelineEpoch;
    /** ... the HLC up to which it holds every entry while it follows another's stamps (STAMPS: it stamps) ... */
    long frontier = STAMPS;
    /** ... and whether it was left out of a pipeline (it misses entries after its frontier). */
    boolean leftOut;
    /**
     * Placed by the block's first placement at this place (0: the primary), and no standing reported since: -1
     * otherwise. A new block's writer opens its first pipeline over that placement, primary first.
     */
    int firstPlacement = -1;

    Replica(String uuid) {
      this.uuid = uuid;
    }
  }

  /**
   * Records where the block was placed, primary first (replicas already known keep their place). A replica placed
   * stands nowhere in the pipeline until its DataNode says (a replacement is opened as a follower after the
   * members); the others keep their standing, which their DataNodes report as it changes.
   */
  synchronized void placed(List<String> uuids) {
    placed(uuids, true);
  }

  /**
   * As {@link #placed(List)}; {@code newBlock}: the block's first placement (its writer opens the first pipeline over
   * it, primary first), not a DataNode added to a pipeline, which never stands as the primary before it reports.
   */
  synchronized void placed(List<String> uuids, boolean newBlock) {
    boolean first = newBlock && replicas.isEmpty();
    for (int i = 0; i < uuids.size(); i++) {
      Replica replica = replica(uuids.get(i));
      replica.pipelineEpoch = 0;
      replica.frontier = STAMPS;
      replica.leftOut = false;
      replica.firstPlacement = first ? i : -1;
    }
  }

  /**
   * Records where the replica on {@code uuid} stands in the block's write pipeline, from its DataNode's full report
   * or an incremental one sent when it changed: the highest pipeline epoch it was opened with, its frontier while it
   * follows another's stamps ({@link #STAMPS}: it stamps the block itself) and whether it was left out of a pipeline.
   */
  synchronized void standing(String uuid, long pipelineEpoch, long frontier, boolean leftOut) {
    Replica replica = replica(uuid);
    replica.pipelineEpoch = pipelineEpoch;
    replica.frontier = frontier;
    replica.leftOut = leftOut;
    replica.firstPlacement = -1;
  }

  /**
   * {@code uuids} (replicas of this block) in the order a writer or reader of the block being written should try
   * them: those that may know the newest entries first. A replica left out of a pipeline goes last; then replicas
   * opened by a newer pipeline before older ones; then one that stamps the block (the primary) before those that
   * follow it; then followers by their frontier, highest first. Replicas that stand alike keep the given order (the
   * placement order while the NameNode knows it). A replica of the block's first placement whose DataNode has not
   * reported its standing yet stands in the first pipeline (the oldest epoch reported), as its primary if it was
   * placed first and else behind the followers that reported: the reports of one pipeline's members come in any
   * order, and the writer's word (fsync) makes them current before they arrive.
   */
  synchronized List<String> byStanding(List<String> uuids) {
    long firstEpoch = 0;
    for (Replica replica : replicas) {
      if (replica.pipelineEpoch != 0
          && (firstEpoch == 0 || Long.compareUnsigned(replica.pipelineEpoch, firstEpoch) < 0)) {
        firstEpoch = replica.pipelineEpoch;
      }
    }
    // Once a replica reported that it stamps the block (a primary), no unreported one stands in for the primary:
    // after a failover the first pipeline's primary is fenced and may miss what the new pipeline acknowledged.
    boolean primaryReported = false;
    for (Replica replica : replicas) {
      primaryReported |= replica.firstPlacement < 0 && replica.pipelineEpoch != 0 && replica.frontier == STAMPS;
    }
    long first = primaryReported ? -1 : firstEpoch;
    List<String> sorted = new ArrayList<>(uuids);
    sorted.sort((a, b) -> {
      Replica x = find(a);
      Replica y = find(b);
      if (x == null || y == null) {
        return Boolean.compare(x == null, y == null);
      }
      if (x.leftOut != y.leftOut) {
        return Boolean.compare(x.leftOut, y.leftOut);
      }
      int epoch = Long.compareUnsigned(epoch(y, first), epoch(x, first));
      return epoch != 0 ? epoch : Long.compare(frontier(y), frontier(x));
    });
    return sorted;
  }

  /** {@code firstEpoch} -1: unreported replicas of the first placement stand where placing left them. */
  private static long epoch(Replica replica, long firstEpoch) {
    return replica.firstPlacement >= 0 && firstEpoch != -1 ? firstEpoch : replica.pipelineEpoch;
  }

  private static long frontier(Replica replica) {
    return replica.firstPlacement > 0 ? 0 : replica.frontier;
  }

  /** Whether the replica on {@code uuid} was reported left out of a pipeline (it may miss entries). */
  synchronized boolean leftOut(String uuid) {
    Replica replica = find(uuid);
    return replica != null && replica.leftOut;
  }

  /** Where a replica stands in the block's write pipeline, as its DataNode reported it ({@link #standing}). */
  public record Standing(long pipelineEpoch, long frontier, boolean leftOut) {}

  /**
   * {@link #reported(String, long, long)} and, unless {@code standing} is null, {@link #standing} together: nobody
   * lists the replica between the two in an order its standing would not give.
   */
  synchronized void reported(String uuid, long length, long lastEntryHlc, Standing standing) {
    reported(uuid, length, lastEntryHlc);
    if (standing != null) {
      standing(uuid, standing.pipelineEpoch(), standing.frontier(), standing.leftOut());
    }
  }

  /** Records a report of {@code uuid}: the block's length there and its last entry's HLC (0: not reported). */
  synchronized void reported(String uuid, long length, long lastEntryHlc) {
    Replica replica = replica(uuid);
    replica.corrupt = false;
    // A replica's log only grows, so an older figure is a report that arrived late (or from an older DataNode):
    // its length is as old as its last entry (a cut since then made the block shorter) and is not taken.
    if (lastEntryHlc >= replica.lastEntryHlc) {
      replica.length = length;
      replica.lastEntryHlc = lastEntryHlc;
    }
  }

  /** Marks the replica on {@code uuid} damaged: it is not current, and it is dropped once enough good ones exist. */
  synchronized void markCorrupt(String uuid) {
    replica(uuid).corrupt = true;
  }

  /** The DataNodes whose replica is damaged. */
  synchronized List<String> corrupt() {
    List<String> corrupt = new ArrayList<>();
    for (Replica replica : replicas) {
      if (replica.corrupt) {
        corrupt.add(replica.uuid);
      }
    }
    return corrupt;
  }

  /** Forgets the reported lengths (the file was cut in this block, so they are stale until reported again). */
  synchronized void forgetLengths() {
    for (Replica replica : replicas) {
      replica.length = -1;
    }
  }

  /** The length reported by the replica with the newest last entry (the longest among equals), or -1. */
  synchronized long newestLength() {
    long newest = newestEntry();
    long length = -1;
    for (Replica replica : replicas) {
      if (replica.lastEntryHlc == newest && !replica.corrupt) {
        length = Math.max(length, replica.length);
      }
    }
    return length;
  }

  /** The current replicas' DataNodes in placement order. */
  synchronized List<String> current(Predicate<String> live) {
    long newest = newestEntry();
    List<String> current = new ArrayList<>(replicas.size());
    for (Replica replica : replicas) {
      if (live.test(replica.uuid) && replica.lastEntryHlc == newest && !replica.corrupt) {
        current.add(replica.uuid);
      }
    }
    return current;
  }

  /** A replica still following a pipeline, or left out of one: its epoch and last entry, to end it by. */
  public record Unended(String uuid, long pipelineEpoch, long lastEntryHlc) {}

  /**
   * The live replicas that still follow another's stamps or were left out of a pipeline, as their DataNodes last
   * reported, and hold the block's last entry as its writer (or a lease recovery) recorded it, beyond which no
   * replica reported one: of a closed file, they hold every entry yet refuse times past their frontier until ended.
   * None while no last entry is recorded: the reports alone may miss entries a lost DataNode holds.
   */
  synchronized List<Unended> unended(Predicate<String> live) {
    long recorded = expected.getAsLong();
    if (recorded == 0 || newestEntry() != recorded) {
      return List.of();
    }
    List<Unended> unended = new ArrayList<>();
    for (Replica replica : replicas) {
      if (live.test(replica.uuid) && replica.lastEntryHlc == recorded && !replica.corrupt
          && replica.firstPlacement < 0 && (replica.frontier != STAMPS || replica.leftOut)) {
        unended.add(new Unended(replica.uuid, replica.pipelineEpoch, replica.lastEntryHlc));
      }
    }
    return unended;
  }

  /**
   * The newest last entry reported when every replica's DataNode is live (so none holds entries not reported), for
   * a lease recovery to record; else 0.
   */
  synchronized long newestIfAllLive(Predicate<String> live) {
    for (Replica replica : replicas) {
      if (!replica.corrupt && !live.test(replica.uuid)) {
        return 0;
      }
    }
    return newestEntry();
  }

  /** Live replicas that are not current: their last entry is older than another replica's. */
  synchronized int staleCount(Predicate<String> live) {
    int live0 = 0;
    for (Replica replica : replicas) {
      if (live.test(replica.uuid) && !replica.corrupt) {
        live0++;
      }
    }
    return live0 - current(live).size();
  }

  /** One replica as last reported: its DataNode, length (-1: none), last entry (0: none) and damage. */
  record Reported(String uuid, long length, long lastEntryHlc, boolean corrupt) {}

  /** Every replica as last reported, in placement order. */
  synchronized List<Reported> reported() {
    List<Reported> all = new ArrayList<>(replicas.size());
    for (Replica replica : replicas) {
      all.add(new Reported(replica.uuid, replica.length, replica.lastEntryHlc, replica.corrupt));
    }
    return all;
  }

  /** Every replica's DataNode, in placement order. */
  synchronized List<String> all() {
    List<String> all = new ArrayList<>(replicas.size());
    for (Replica replica : replicas) {
      all.add(replica.uuid);
    }
    return all;
  }

  /** The DataNodes whose replica has the newest last entry (live or not), in placement order. */
  synchronized List<String> newest() {
    return current(uuid -> true);
  }

  /** Forgets the replica on {@code uuid} (it was dropped there). */
  synchronized void remove(String uuid) {
    replicas.removeIf(replica -> replica.uuid.equals(uuid));
  }

  private long newestEntry() {
    long newest = expected.getAsLong();
    for (Replica replica : replicas) {
      newest = replica.corrupt ? newest : Math.max(newest, replica.lastEntryHlc);
    }
    return newest;
  }

  private Replica find(String uuid) {
    for (Replica replica : replicas) {
      if (replica.uuid.equals(uuid)) {
        return replica;
      }
    }
    return null;
  }

  private Replica replica(String uuid) {
    Replica found = find(uuid);
    if (found != null) {
      return found;
    }
    Replica replica = new Replica(uuid);
    replicas.add(replica);
    return replica;
  }
}
