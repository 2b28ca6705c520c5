package io.fffs.common.ipc;

import io.fffs.common.proto.DatanodeProtocolProtos.DatanodeProtocol;
import org.apache.hadoop.ipc.ProtocolInfo;
import org.apache.hadoop.security.KerberosInfo;

/** The DataNode-to-NameNode protocol as Hadoop IPC ({@code ProtobufRpcEngine2}) serves and calls it. */
// With Kerberos, clients authenticate the NameNode by this principal (KerberosConfigKeys).
@KerberosInfo(serverPrincipal = "fffs.namenode.kerberos.principal",
    clientPrincipal = "fffs.datanode.kerberos.principal")
@ProtocolInfo(protocolName = "io.fffs.DatanodeProtocol", protocolVersion = 1)
public interface DatanodeProtocolPB extends DatanodeProtocol.BlockingInterface {
}
