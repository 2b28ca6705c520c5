package io.fffs.namenode.blocks;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

/**
 * HDFS's default block placement over racks, on candidates already filtered (live, healthy, in service, clock
 * window) and ordered by the caller: a new block's first replica on the writer's DataNode (or the next in turn), the
 * second on another rack, the third on the second's rack, more spread over the racks with fewest; a copy of an
 * existing block goes to another rack while all its replicas share one. With one rack this is the callers' order.
 */
final class BlockPlacement {
  private BlockPlacement() {}

  /**
   * Up to {@code n} distinct live, healthy DataNodes in service of {@code all} for a new block, the primary first, or
   * {@code NO_DATANODE} saying why none fits. The primary is one on {@code writerAddress} (the writer's IP address,
   * null: unknown) when there is one, else the next in turn ({@code turn}: a counter, round robin over the DataNodes
   * by uuid); the others follow {@link #pipeline}, among those whose clock is within {@code maxOffsetMicros} of the
   * primary's (a follower refuses a stamp further ahead of its own clock).
   */
  static List<DatanodeDescriptor> forNewBlock(Collection<DatanodeDescriptor> all, Predicate<DatanodeDescriptor> live,
      int n, String writerAddress, IntSupplier turn, long maxOffsetMicros) throws FffsException {
    List<DatanodeDescriptor> candidates = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    for (DatanodeDescriptor descriptor : all) {
      if (!live.test(descriptor)) {
        reasons.add(descriptor.address() + " is dead (no heartbeat)");
      } else if (!descriptor.isHealthy()) {
        reasons.add(descriptor.address() + ": " + descriptor.unhealthyReason());
      } else if (!descriptor.adminState.inService()) {
        reasons.add(descriptor.address() + " is " + descriptor.adminState.text().toLowerCase(Locale.ROOT));
      } else {
        candidates.add(descriptor);
      }
    }
    if (candidates.isEmpty()) {
      throw new FffsException(ErrorCode.NO_DATANODE, "no live, healthy DataNode can take a new block"
          + (reasons.isEmpty() ? " (none has registered)" : ": " + String.join("; ", reasons)));
    }
    candidates.sort(Comparator.comparing(DatanodeDescriptor::uuid));
    List<DatanodeDescriptor> local = new ArrayList<>();
    for (DatanodeDescriptor descriptor : candidates) {
      if (writerAddress != null && writerAddress.equals(descriptor.hostAddress)) {
        local.add(descriptor);
      }
    }
    int next = turn.getAsInt();
    DatanodeDescriptor primary = local.isEmpty() ? candidates.get(Math.floorMod(next, candidates.size()))
        : local.get(Math.floorMod(next, local.size()));
    int first = candidates.indexOf(primary);
    List<DatanodeDescriptor> others = new ArrayList<>(candidates.size() - 1);
    for (int i = 1; i < candidates.size(); i++) {
      DatanodeDescriptor other = candidates.get((first + i) % candidates.size());
      if (Math.abs(other.clockOffsetMicros() - primary.clockOffsetMicros()) <= maxOffsetMicros) {
        others.add(other);
      }
    }
    return pipeline(primary, others, n);
  }

  /**
   * Up to {@code n} live, healthy DataNodes in service of {@code all}, not in {@code exclude}, to copy a block from
   * {@code source} (null: any) to: those whose clock is within {@code maxOffsetMicros} of the source's, the least
   * loaded (fewest blocks) first, by {@link #copyTargets} over the racks of the block's replicas.
   */
  static List<DatanodeDescriptor> forCopy(Collection<DatanodeDescriptor> all, Predicate<DatanodeDescriptor> live,
      DatanodeDescriptor source, Set<String> exclude, Collection<String> replicaRacks, int n,
      long maxOffsetMicros) {
    List<DatanodeDescriptor> candidates = new ArrayList<>();
    for (DatanodeDescriptor descriptor : all) {
      if (live.test(descriptor) && descriptor.isHealthy() && descriptor.adminState.inService()
          && !exclude.contains(descriptor.uuid()) && (source == null
          || Math.abs(descriptor.clockOffsetMicros() - source.clockOffsetMicros()) <= maxOffsetMicros)) {
        candidates.add(descriptor);
      }
    }
    candidates.sort(Comparator.comparingLong(DatanodeDescriptor::blockCount).thenComparing(DatanodeDescriptor::uuid));
    return copyTargets(candidates, replicaRacks, n);
  }

  /** {@code primary}, then up to {@code n - 1} of {@code others} (in their order) by the rules above. */
  static List<DatanodeDescriptor> pipeline(DatanodeDescriptor primary, List<DatanodeDescriptor> others, int n) {
    List<DatanodeDescriptor> chosen = new ArrayList<>(n);
    chosen.add(primary);
    List<DatanodeDescriptor> left = new ArrayList<>(others);
    if (chosen.size() < n && !left.isEmpty()) {
      take(chosen, left, firstOtherRack(left, Set.of(primary.rack())));
    }
    if (chosen.size() < n && !left.isEmpty()) {
      String secondRack = chosen.get(1).rack();
      int sameAsSecond = -1;
      for (int i = 0; i < left.size() && !secondRack.equals(primary.rack()); i++) {
        if (left.get(i).rack().equals(secondRack)) {
          sameAsSecond = i;
          break;
        }
      }
      take(chosen, left, sameAsSecond >= 0 ? sameAsSecond : firstOtherRack(left, racks(chosen)));
    }
    while (chosen.size() < n && !left.isEmpty()) {
      take(chosen, left, leastUsedRack(left, chosen));
    }
    return chosen;
  }

  /**
   * Up to {@code n} of {@code candidates} (in their order: the least loaded first) to copy a block to whose current
   * replicas are on {@code replicaRacks}: while those share one rack, one on another rack comes first.
   */
  static List<DatanodeDescriptor> copyTargets(List<DatanodeDescriptor> candidates, Collection<String> replicaRacks,
      int n) {
    List<DatanodeDescriptor> chosen = new ArrayList<>(n);
    List<DatanodeDescriptor> left = new ArrayList<>(candidates);
    Set<String> racks = new HashSet<>(replicaRacks);
    while (chosen.size() < n && !left.isEmpty()) {
      int pick = racks.size() == 1 ? firstOtherRack(left, racks) : 0;
      racks.add(left.get(pick).rack());
      take(chosen, left, pick);
    }
    return chosen;
  }

  /**
   * {@code locations} (stable) by distance from a reader at {@code readerAddress} on {@code readerRack}: healthy and
   * in service, then healthy and decommissioning, then unhealthy ({@link #readRank}); within each the reader's host,
   * then its rack, then the rest.
   */
  static List<DatanodeIdProto> nearestFirst(List<DatanodeIdProto> locations,
      Function<String, DatanodeDescriptor> descriptors, String readerAddress, String readerRack) {
    List<DatanodeIdProto> sorted = new ArrayList<>(locations);
    sorted.sort(Comparator.comparingInt(id -> {
      DatanodeDescriptor descriptor = descriptors.apply(id.getDatanodeUuid());
      if (descriptor == null) {
        return 9;  // after every group below
      }
      int near = readerAddress.equals(descriptor.hostAddress) ? 0 : readerRack.equals(descriptor.rack) ? 1 : 2;
      return 3 * readRank(descriptor) + near;
    }));
    return sorted;
  }

  /**
   * Which group a replica is read in: 0 healthy and in service, 1 healthy and decommissioning (read last, as HDFS
   * does), 2 unhealthy — its clock may be beyond the max offset, so a reader that gets its answer cannot take in its
   * clock; it serves reads only when no other replica does.
   */
  static int readRank(DatanodeDescriptor descriptor) {
    return !descriptor.isHealthy() ? 2 : descriptor.adminState.inService() ? 0 : 1;
  }

  /** Whether replicas on {@code replicaRacks} sit on one rack though the cluster has others to spread to. */
  static boolean misplaced(Collection<String> replicaRacks, int clusterRacks) {
    return clusterRacks > 1 && replicaRacks.size() > 1 && new HashSet<>(replicaRacks).size() == 1;
  }

  /**
   * Which {@code count} of {@code uuids} (on {@code racks}, one per replica) to drop: the last placed first, skipping
   * one whose going would leave the rest on fewer racks than two (or than they are on, if one).
   */
  static List<String> extras(List<String> uuids, List<String> racks, int count) {
    List<String> keptRacks = new ArrayList<>(racks);
    List<String> kept = new ArrayList<>(uuids);
    List<String> dropped = new ArrayList<>();
    int spread = racks.size() == uuids.size() ? Math.min(2, new HashSet<>(racks).size()) : 0;
    for (int i = uuids.size() - 1; i >= 0 && dropped.size() < count && spread > 0; i--) {
      int at = kept.indexOf(uuids.get(i));
      List<String> without = new ArrayList<>(keptRacks);
      without.remove(at);
      if (new HashSet<>(without).size() >= spread) {
        dropped.add(kept.remove(at));
        keptRacks.remove(at);
      }
    }
    for (int i = uuids.size() - 1; i >= 0 && dropped.size() < count; i--) {
      if (!dropped.contains(uuids.get(i))) {
        dropped.add(uuids.get(i));  // only possible with a single rack left: the order alone decides
      }
    }
    return dropped;
  }

  private static void take(List<DatanodeDescriptor> chosen, List<DatanodeDescriptor> left, int index) {
    chosen.add(left.remove(index));
  }

  /** The first of {@code left} on none of {@code racks}, else the first. */
  private static int firstOtherRack(List<DatanodeDescriptor> left, Set<String> racks) {
    for (int i = 0; i < left.size(); i++) {
      if (!racks.contains(left.get(i).rack())) {
        return i;
      }
    }
    return 0;
  }

  /** The first of {@code left} on the rack {@code chosen} uses least. */
  private static int leastUsedRack(List<DatanodeDescriptor> left, List<DatanodeDescriptor> chosen) {
    Map<String, Integer> used = new HashMap<>();
    for (DatanodeDescriptor d : chosen) {
      used.merge(d.rack(), 1, Integer::sum);
    }
    int best = 0;
    for (int i = 1; i < left.size(); i++) {
      if (used.getOrDefault(left.get(i).rack(), 0) < used.getOrDefault(left.get(best).rack(), 0)) {
        best = i;
      }
    }
    return best;
  }

  private static Set<String> racks(List<DatanodeDescriptor> chosen) {
    Set<String> racks = new HashSet<>();
    for (DatanodeDescriptor d : chosen) {
      racks.add(d.rack());
    }
    return racks;
  }
}
