package io.fffs.namenode.http;

import io.fffs.common.json.JsonWriter;
import io.fffs.namenode.blocks.DatanodeDescriptor;
import io.fffs.namenode.fs.NamespaceQueries;
import io.fffs.namenode.fs.Namesystem;
import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * {@code GET /status}: the NameNode as JSON — its advertised {@code rpcAddress} and {@code httpAddress}, {@code hlc}, {@code safemode}, {@code files}, {@code blocks}, and per
 * the block replication counts ({@code underReplicatedBlocks}: fewer current replicas than the file's replication;
 * {@code missingBlocks}: none; {@code staleReplicas}: live replicas missing entries another replica has), and per
 * DataNode {@code id}, {@code address} (as the DataNode advertises it), {@code httpAddress} (its HTTP server, or
 * null), {@code transport}, {@code clockOffsetMicros}
 * (the offset judged for health: the part beyond the measurement's error), {@code measuredOffsetMicros} and
 * {@code offsetErrorMicros} (the DataNode's own estimate and half its round trip; -1 before one), {@code durableHlc},
 * {@code memoryUsedBytes}, {@code healthy} (with {@code unhealthyReason}), {@code live}, and what its segment
 * scrubber found ({@code scrubPasses}, {@code scrubBytesVerified}, {@code scrubCorruptions},
 * {@code scrubLastCorruption}).
 */
public final class StatusServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;
  /** Servlet-context attribute holding the {@link Namesystem}. */
  public static final String NAMESYSTEM_ATTRIBUTE = "fffs.namesystem";
  /** Servlet-context attribute holding the NameNode's advertised {@code {rpc URI, http URI}}. */
  public static final String ADDRESSES_ATTRIBUTE = "fffs.namenode.addresses";
  /** The NameNode's {@code HaNode} in a highly available cluster (absent for a single NameNode). */
  public static final String HA_ATTRIBUTE = "fffs.namenode.ha";

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
    Namesystem fs = (Namesystem) getServletContext().getAttribute(NAMESYSTEM_ATTRIBUTE);
    response.setContentType("application/json; charset=utf-8");
    response.setHeader("Cache-Control", "no-store");
    String[] addresses = (String[]) getServletContext().getAttribute(ADDRESSES_ATTRIBUTE);
    io.fffs.namenode.ha.HaNode ha = (io.fffs.namenode.ha.HaNode) getServletContext().getAttribute(HA_ATTRIBUTE);
    response.getWriter().write(addresses == null ? render(fs)
        : render(fs, addresses[0], addresses[1], ha));
  }

  /** The status document. */
  public static String render(Namesystem fs) throws IOException {
    return render(fs, null, null);
  }

  /** The status document, with the NameNode's advertised RPC and HTTP addresses (null: left out). */
  public static String render(Namesystem fs, String rpcAddress, String httpAddress) throws IOException {
    return render(fs, rpcAddress, httpAddress, null);
  }

  /**
   * The status document; {@code ha} (null for a single NameNode) adds the NameNode's place in its highly available
   * cluster: {@code haId}, {@code haRole} (leader: it takes changes; follower), {@code haLeader}, {@code raft},
   * {@code haCommittedFrontier} (a follower answers past reads before it) and {@code haPastReadsServed}. A follower
   * leaves out the replica counts and lists no DataNodes: they report to the leader, whose document has them.
   */
  public static String render(Namesystem fs, String rpcAddress, String httpAddress, io.fffs.namenode.ha.HaNode ha)
      throws IOException {
    boolean follower = ha != null && !ha.isLeader();
    JsonWriter json = new JsonWriter().beginObject()
        .field("clusterId", fs.clusterId());
    if (rpcAddress != null) {
      json.field("rpcAddress", rpcAddress).field("httpAddress", httpAddress);
    }
    if (ha != null) {
      json.field("nameservice", ha.nameservice()).field("haId", ha.id())
          .field("haRole", follower ? "follower" : "leader").field("haLeader", ha.leaderId())
          .field("raft", ha.describe()).field("haCommittedFrontier", ha.committedFrontier().toString())
          .field("haPastReadsServed", ha.pastReadsServed());
    }
    json
        .field("hlc", fs.clock().now().toString())
        .field("hlcPacked", fs.clock().now().packed())
        .field("safemode", fs.safeMode().isOn())
        .field("safemodeStatus", fs.safeMode().describe())
        .field("files", fs.inodeCount())
        .field("blocks", fs.blockCount())
        .field("lastTxid", fs.lastTxid());
    if (follower) {
      // DataNodes report to the leader only: a follower's replica counts would say every block is missing.
      return json.beginArray("datanodes").endArray().endObject().toString();
    }
    NamespaceQueries.ReplicationSummary replication = fs.queries.replicationSummary();
    json.field("underReplicatedBlocks", replication.underReplicatedBlocks())
        .field("missingBlocks", replication.missingBlocks())
        .field("staleReplicas", replication.staleReplicas())
        .field("pendingReplicaCopies", fs.replication.counts().pendingCopies())
        .field("replicaCopiesScheduled", fs.replication.counts().copiesScheduled())
        .field("replicasDropped", fs.replication.counts().replicasDropped())
        .field("corruptReplicas", fs.replication.counts().corruptReplicas())
        .field("filesWithoutGoodReplica", String.join(",", fs.replication.counts().filesWithoutGoodReplica()))
        .beginArray("datanodes");
    for (DatanodeDescriptor datanode : fs.datanodes().datanodes()) {
      json.beginObject()
          .field("id", datanode.uuid())
          .field("address", datanode.address())
          .field("httpAddress", datanode.id().getHttpPort() == 0 ? null
              : datanode.id().getHost() + ":" + datanode.id().getHttpPort())
          .field("transport", datanode.id().getTransport())
          .field("clockOffsetMicros", datanode.clockOffsetMicros())
          .field("measuredOffsetMicros", datanode.measuredOffsetMicros())
          .field("offsetErrorMicros", datanode.offsetErrorMicros())
          .field("durableHlc", datanode.durableHlc().toString())
          .field("memoryUsedBytes", datanode.memoryUsedBytes())
          .field("capacityBytes", datanode.capacityBytes())
          .field("healthy", datanode.isHealthy())
          .field("unhealthyReason", datanode.unhealthyReason())
          .field("live", fs.datanodes().isLive(datanode))
          .field("adminState", datanode.adminState().name())
          .field("rack", datanode.rack())
          .field("decommissionBlocksLeft", datanode.decommissionBlocksLeft())
          .field("scrubPasses", datanode.scrubPasses())
          .field("scrubBytesVerified", datanode.scrubBytesVerified())
          .field("scrubCorruptions", datanode.scrubCorruptions())
          .field("scrubLastCorruption", datanode.scrubLastCorruption())
          .endObject();
    }
    return json.endArray().endObject().toString();
  }
}
