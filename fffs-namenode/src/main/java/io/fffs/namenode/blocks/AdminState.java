package io.fffs.namenode.blocks;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeAdminStateProto;

/**
 * A DataNode's administrative state. A decommissioning DataNode serves reads and takes no new blocks while the
 * replication monitor copies its replicas to DataNodes in service; once every block it holds has enough replicas
 * elsewhere it is decommissioned and can be stopped. Its replicas never count toward a block's replication.
 */
public enum AdminState {
  NORMAL(DatanodeAdminStateProto.DN_NORMAL, "Normal"),
  DECOMMISSIONING(DatanodeAdminStateProto.DN_DECOMMISSIONING, "Decommission in progress"),
  DECOMMISSIONED(DatanodeAdminStateProto.DN_DECOMMISSIONED, "Decommissioned");

  private final DatanodeAdminStateProto proto;
  private final String text;

  AdminState(DatanodeAdminStateProto proto, String text) {
    this.proto = proto;
    this.text = text;
  }

  public DatanodeAdminStateProto toProto() {
    return proto;
  }

  /** As {@code hdfs dfsadmin -report} prints it. */
  public String text() {
    return text;
  }

  /** Whether the DataNode takes new replicas and its replicas count toward replication. */
  public boolean inService() {
    return this == NORMAL;
  }
}
