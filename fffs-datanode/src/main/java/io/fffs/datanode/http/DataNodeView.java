package io.fffs.datanode.http;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.datanode.nn.ClockOffsetFilter;
import io.fffs.datanode.replication.ReplicaTransfers;
import io.fffs.datanode.server.DataServerStats;
import io.fffs.datanode.store.MemoryUsage;
import io.fffs.datanode.store.StoreStats;

/**
 * What the DataNode's HTTP server shows of it: one snapshot per request, taken through this interface so that the
 * server does not depend on the DataNode class that starts it.
 */
public interface DataNodeView {
  DatanodeIdProto id();

  boolean registered();

  /** Null when healthy. */
  String unhealthyReason();

  /** Null before the first answer from the NameNode. */
  ClockOffsetFilter.Estimate clockOffset();

  HlcTimestamp now();

  HlcTimestamp durableFrontier();

  /** Microseconds on this node's physical clock. */
  long physicalMicros();

  MemoryUsage memory();

  int blocks();

  StoreStats storeStats();

  DataServerStats serverStats();

  /** The block copies it sends for re-replication; null without a NameNode link. */
  ReplicaTransfers replicaTransfers();
}
