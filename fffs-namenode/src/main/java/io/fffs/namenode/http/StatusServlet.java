package io.fffs.namenode.http;

import io.fffs.namenode.blocks.DatanodeDescriptor;
import io.fffs.namenode.fs.NamespaceQueries;
import io.fffs.namenode.fs.Namesystem;
import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * {@code GET /status}: the NameNode as JSON — {@code hlc}, {@code safemode}, {@code files}, {@code blocks}, and per
 * the block replication counts ({@code underReplicatedBlocks}: fewer current replicas than the file's replication;
 * {@code missingBlocks}: none; {@code staleReplicas}: live replicas missing entries another replica has), and per
 * DataNode {@code id}, {@code address}, {@code transport}, {@code clockOffsetMicros}, {@code durableHlc},
 * {@code memoryUsedBytes}, {@code healthy} (with {@code unhealthyReason}), {@code live}, and what its segment
 * scrubber found ({@code scrubPasses}, {@code scrubBytesVerified}, {@code scrubCorruptions},
 * {@code scrubLastCorruption}).
 */
public final class StatusServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;
  /** Servlet-context attribute holding the {@link Namesystem}. */
  public static final String NAMESYSTEM_ATTRIBUTE = "fffs.namesystem";

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
    Namesystem fs = (Namesystem) getServletContext().getAttribute(NAMESYSTEM_ATTRIBUTE);
    response.setContentType("application/json; charset=utf-8");
    response.setHeader("Cache-Control", "no-store");
    response.getWriter().write(render(fs));
  }

  /** The status document. */
  public static String render(Namesystem fs) throws IOException {
    NamespaceQueries.ReplicationSummary replication = fs.queries.replicationSummary();
    Json json = new Json().beginObject()
        .field("clusterId", fs.clusterId())
        .field("hlc", fs.clock().now().toString())
        .field("hlcPacked", fs.clock().now().packed())
        .field("safemode", fs.safeMode().isOn())
        .field("safemodeStatus", fs.safeMode().describe())
        .field("files", fs.inodeCount())
        .field("blocks", fs.blockCount())
        .field("lastTxid", fs.lastTxid())
        .field("underReplicatedBlocks", replication.underReplicatedBlocks())
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
          .field("transport", datanode.id().getTransport())
          .field("clockOffsetMicros", datanode.clockOffsetMicros())
          .field("durableHlc", datanode.durableHlc().toString())
          .field("memoryUsedBytes", datanode.memoryUsedBytes())
          .field("capacityBytes", datanode.capacityBytes())
          .field("healthy", datanode.isHealthy())
          .field("unhealthyReason", datanode.unhealthyReason())
          .field("live", fs.datanodes().isLive(datanode))
          .field("scrubPasses", datanode.scrubPasses())
          .field("scrubBytesVerified", datanode.scrubBytesVerified())
          .field("scrubCorruptions", datanode.scrubCorruptions())
          .field("scrubLastCorruption", datanode.scrubLastCorruption())
          .endObject();
    }
    return json.endArray().endObject().toString();
  }
}
