package io.fffs.datanode.http;

import io.fffs.common.json.JsonWriter;
import io.fffs.datanode.nn.ClockOffsetFilter;
import io.fffs.datanode.replication.ReplicaTransfers;
import io.fffs.datanode.store.MemoryUsage;
import java.util.Locale;

/**
 * The DataNode's {@code /status} (JSON) and {@code /prom} (Prometheus text) documents, from one {@link DataNodeView}
 * snapshot. Fields: {@code id}, {@code host}, {@code dataPort}, {@code httpPort}, {@code transport},
 * {@code registered}, {@code healthy} ({@code unhealthyReason}), {@code clockOffsetMicros} and
 * {@code clockOffsetErrorMicros} (this node minus the NameNode, best recent estimate; -1 error before one),
 * {@code hlc}, {@code durableHlc}, {@code durableLagMicros} (this node's clock minus the durable frontier), arena
 * {@code arenaCapacityBytes}, {@code arenaResidentBytes}, {@code logBytes}, {@code indexBytes}, {@code blocks}, and
 * counters of writes, reads and persistence, and of the block copies it sent for re-replication
 * ({@code replicaCopiesSent}, {@code replicaCopiesFailed}, {@code lastReplicaCopyFailure}: block, target and why).
 */
final class DataNodeStatus {
  private DataNodeStatus() {}

  static String json(DataNodeView node) {
    MemoryUsage memory = node.memory();
    ClockOffsetFilter.Estimate offset = node.clockOffset();
    long durable = node.durableFrontier().physicalMicros();
    ReplicaTransfers copies = node.replicaTransfers();
    return new JsonWriter().beginObject()
        .field("id", node.id().getDatanodeUuid())
        .field("host", node.id().getHost())
        .field("dataPort", node.id().getDataPort())
        .field("httpPort", node.id().getHttpPort())
        .field("transport", node.id().getTransport())
        .field("registered", node.registered())
        .field("healthy", node.unhealthyReason() == null)
        .field("unhealthyReason", node.unhealthyReason())
        .field("clockOffsetMicros", offset == null ? 0 : offset.offsetMicros())
        .field("clockOffsetErrorMicros", offset == null ? -1 : offset.errorMicros())
        .field("hlc", node.now().toString())
        .field("durableHlc", node.durableFrontier().toString())
        .field("durableLagMicros", durable == 0 ? 0 : node.physicalMicros() - durable)
        .field("arenaCapacityBytes", memory.arenaCapacityBytes())
        .field("arenaResidentBytes", memory.residentPageBytes())
        .field("logBytes", memory.logBytes())
        .field("indexBytes", memory.indexBytes())
        .field("blocks", node.blocks())
        .field("writes", node.serverStats().writes.sum())
        .field("writeBytes", node.serverStats().writeBytes.sum())
        .field("writesRefused", node.serverStats().writesRefused.sum())
        .field("reads", node.serverStats().reads.sum())
        .field("readBytes", node.serverStats().readBytes.sum())
        .field("entriesPersisted", node.storeStats().entriesPersisted.sum())
        .field("entriesDurable", node.storeStats().entriesDurable.sum())
        .field("fsyncs", node.storeStats().fsyncs.sum())
        .field("bytesPersisted", node.storeStats().bytesPersisted.sum())
        .field("pagesEvicted", node.storeStats().pagesEvicted.sum())
        .field("replicaCopiesSent", copies == null ? 0 : copies.copied())
        .field("replicaCopiesFailed", copies == null ? 0 : copies.failed())
        .field("lastReplicaCopyFailure", copies == null ? null : copies.lastFailure())
        .endObject().toString();
  }

  static String prometheus(DataNodeView node) {
    MemoryUsage memory = node.memory();
    ClockOffsetFilter.Estimate offset = node.clockOffset();
    long durable = node.durableFrontier().physicalMicros();
    StringBuilder out = new StringBuilder();
    String labels = String.format(Locale.ROOT, "{datanode=\"%s\",host=\"%s\"}", node.id().getDatanodeUuid(),
        node.id().getHost());
    gauge(out, "fffs_datanode_healthy", "1 while the NameNode lets this DataNode take writes", labels,
        node.unhealthyReason() == null ? 1 : 0);
    gauge(out, "fffs_datanode_registered", "1 while registered with the NameNode", labels, node.registered() ? 1 : 0);
    gauge(out, "fffs_datanode_clock_offset_seconds", "this node's clock minus the NameNode's (best estimate)", labels,
        offset == null ? 0 : offset.offsetMicros() / 1e6);
    gauge(out, "fffs_datanode_clock_offset_error_seconds", "half the round trip of that estimate", labels,
        offset == null ? -1 : offset.errorMicros() / 1e6);
    gauge(out, "fffs_datanode_durable_lag_seconds", "this node's clock minus its durable frontier", labels,
        durable == 0 ? 0 : (node.physicalMicros() - durable) / 1e6);
    gauge(out, "fffs_datanode_arena_capacity_bytes", "arena capacity", labels, memory.arenaCapacityBytes());
    gauge(out, "fffs_datanode_arena_resident_bytes", "arena pages resident", labels, memory.residentPageBytes());
    gauge(out, "fffs_datanode_log_heap_bytes", "heap of block logs and page indexes", labels,
        memory.logBytes() + memory.indexBytes());
    gauge(out, "fffs_datanode_blocks", "blocks held", labels, node.blocks());
    counter(out, "fffs_datanode_writes_total", "WRITE requests applied", labels, node.serverStats().writes.sum());
    counter(out, "fffs_datanode_write_bytes_total", "bytes written", labels, node.serverStats().writeBytes.sum());
    counter(out, "fffs_datanode_writes_refused_total", "WRITE requests refused", labels,
        node.serverStats().writesRefused.sum());
    counter(out, "fffs_datanode_reads_total", "READ requests served", labels, node.serverStats().reads.sum());
    counter(out, "fffs_datanode_read_bytes_total", "bytes read", labels, node.serverStats().readBytes.sum());
    counter(out, "fffs_datanode_persisted_bytes_total", "bytes written to segment files", labels,
        node.storeStats().bytesPersisted.sum());
    counter(out, "fffs_datanode_pages_evicted_total", "arena pages evicted", labels,
        node.storeStats().pagesEvicted.sum());
    ReplicaTransfers copies = node.replicaTransfers();
    counter(out, "fffs_datanode_replica_copies_total", "block copies sent whole for re-replication", labels,
        copies == null ? 0 : copies.copied());
    counter(out, "fffs_datanode_replica_copies_failed_total", "block copies for re-replication that failed", labels,
        copies == null ? 0 : copies.failed());
    return out.toString();
  }

  private static void gauge(StringBuilder out, String name, String help, String labels, double value) {
    metric(out, name, help, "gauge", labels, value);
  }

  private static void counter(StringBuilder out, String name, String help, String labels, double value) {
    metric(out, name, help, "counter", labels, value);
  }

  private static void metric(StringBuilder out, String name, String help, String type, String labels,
      double value) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    out.append(name).append(labels).append(' ');
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      out.append((long) value);
    } else {
      out.append(value);
    }
    out.append('\n');
  }
}
