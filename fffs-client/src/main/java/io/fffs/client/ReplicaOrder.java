package io.fffs.client;

import io.fffs.client.data.LocalHosts;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The order a reader tries a block's replicas in: those on this host first (their bytes need no network), then the
 * NameNode's order (the primary first while the block is being written, spread over the replicas otherwise; DataNodes
 * the NameNode finds unhealthy last); then replicas on DataNodes whose clock this client saw beyond the max offset
 * (the NameNode may not know yet, and a local one would otherwise come first); replicas that already failed for this
 * reader go last.
 */
final class ReplicaOrder {
  private ReplicaOrder() {}

  static List<DatanodeIdProto> order(List<DatanodeIdProto> listed, Set<String> failedUuids,
      Predicate<DatanodeIdProto> skewed) {
    if (listed.size() < 2) {
      return listed;
    }
    List<DatanodeIdProto> near = new ArrayList<>(listed.size());
    List<DatanodeIdProto> far = new ArrayList<>(listed.size());
    List<DatanodeIdProto> skewedAhead = new ArrayList<>(0);
    List<DatanodeIdProto> failed = new ArrayList<>(0);
    for (DatanodeIdProto replica : listed) {
      if (failedUuids.contains(replica.getDatanodeUuid())) {
        failed.add(replica);
      } else if (skewed.test(replica)) {
        skewedAhead.add(replica);
      } else if (LocalHosts.isLocal(replica.getHost())) {
        near.add(replica);
      } else {
        far.add(replica);
      }
    }
    near.addAll(far);
    near.addAll(skewedAhead);
    near.addAll(failed);
    return near;
  }
}
