package io.fffs.client;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The order a reader tries a block's replicas in: those on this host first (their bytes need no network), then the
 * NameNode's order (the primary first while the block is being written, spread over the replicas otherwise);
 * replicas that already failed for this reader go last.
 */
final class ReplicaOrder {
  private static volatile Set<String> localHosts;

  private ReplicaOrder() {}

  static List<DatanodeIdProto> order(List<DatanodeIdProto> listed, Set<String> failedUuids) {
    if (listed.size() < 2) {
      return listed;
    }
    Set<String> local = localHosts();
    List<DatanodeIdProto> near = new ArrayList<>(listed.size());
    List<DatanodeIdProto> far = new ArrayList<>(listed.size());
    List<DatanodeIdProto> failed = new ArrayList<>(0);
    for (DatanodeIdProto replica : listed) {
      if (failedUuids.contains(replica.getDatanodeUuid())) {
        failed.add(replica);
      } else if (local.contains(replica.getHost())) {
        near.add(replica);
      } else {
        far.add(replica);
      }
    }
    near.addAll(far);
    near.addAll(failed);
    return near;
  }

  /** The addresses (and names) of this host's interfaces, looked up once. */
  private static Set<String> localHosts() {
    Set<String> hosts = localHosts;
    if (hosts == null) {
      hosts = new HashSet<>();
      try {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
          for (InetAddress address : Collections.list(nic.getInetAddresses())) {
            hosts.add(address.getHostAddress());
          }
        }
        hosts.add(InetAddress.getLocalHost().getHostName());
      } catch (SocketException | java.net.UnknownHostException e) {
        // No interface list: every replica counts as remote, and the NameNode's order stands.
      }
      hosts.add("localhost");
      localHosts = hosts = Set.copyOf(hosts);
    }
    return hosts;
  }
}
