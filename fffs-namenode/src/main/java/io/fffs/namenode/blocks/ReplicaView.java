package io.fffs.namenode.blocks;

import java.util.ArrayList;
import java.util.List;

/**
 * Where a block's replicas are, for re-replication ({@link DatanodeManager#replicaView}): {@code current} — live
 * replicas with the newest last entry, in placement order (copy sources); {@code kept} — how many replicas with the
 * newest last entry are on DataNodes in service and not yet given up for lost; {@code stale} — live replicas with an
 * older last entry; {@code holders} — every DataNode with any replica; {@code corrupt} — replicas reported damaged;
 * {@code retiring} — the current replicas on decommissioning or decommissioned DataNodes (sources, never counted).
 */
public record ReplicaView(List<String> current, int kept, List<String> stale, List<String> holders,
    List<String> corrupt, List<String> retiring) {
  /** The current replicas on DataNodes in service. */
  public List<String> inService() {
    if (retiring.isEmpty()) {
      return current;
    }
    List<String> in = new ArrayList<>(current);
    in.removeAll(retiring);
    return in;
  }
}
